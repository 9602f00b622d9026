"""Iterative-deepening principal-variation search over the engine board.

Shape (negamax, scores for the player to move, centiflats; a win is `WIN - plies to it`):
- before any move generation a node asks the bitboards whether the player to move can place a road
  piece that completes a road: if so the node is a win, no search needed;
- at the horizon, if the opponent threatens such a road, the node is searched one ply more (threat
  extension, a few per line) instead of trusting the static evaluation;
- a transposition table keyed by the Zobrist hash gives the best ply found before and cut bounds;
- move order: table move, placements that block an immediate road threat, killers, history, then
  flats before capstones before walls before spreads;
- late quiet plies are searched one ply shallower first (late-move reduction) and re-searched
  at full depth when they turn out interesting;
- the root always completes depth 2 (unless stopped or out of nodes), so it never walks into a
  road in one it could prevent; an immediate win is played without searching at all.

Time: `Limit` gives movetime, clock, nodes and depth; `stop()` from another thread ends the search
at the next check (every 512 nodes) and the best ply of the deepest finished iteration (or of the
current one, if a better ply was already proved there) is returned.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from controller.engine.board import CAP, FLAT, WALL, Geometry, Ply, Position
from controller.engine.evaluate import DEFAULT_WEIGHTS, Weights, evaluate
from controller.engine.limits import Limit
from controller.engine.tactics import placement_wins, spread_wins, winning_plies

WIN = 1_000_000
WIN_BOUND = WIN - 1000  # scores beyond this are forced game ends
INF = WIN + 1
EXACT, LOWER, UPPER = 0, 1, 2
MIN_DEPTH = 2
MAX_DEPTH = 64
THREAT_EXTENSIONS = 2
TT_MAX_ENTRIES = 1_500_000
SPREAD_CACHE_MAX = 1_000_000
# where the horizon asks for road wins by spread (placements are asked everywhere):
OFF, IN_EXTENSIONS, ALL = 0, 1, 2  # never; below a threat extension; at every leaf


class _Stop(Exception):
    """Internal: the time, node budget or stop signal ran out mid-iteration."""


@dataclass
class SearchInfo:
    """One finished iteration, for `info` lines and progress displays."""

    depth: int
    score: int
    nodes: int
    elapsed_ms: float
    pv: list[str]


@dataclass
class SearchResult:
    best: Ply | None  # None only when the game is already over
    best_ptn: str
    score: int  # centiflats for the player to move; |score| > WIN_BOUND means a forced end
    pv: list[str]
    depth: int
    nodes: int
    elapsed_ms: float
    iterations: list[SearchInfo] = field(default_factory=list)

    @property
    def is_forced_win(self) -> bool:
        return self.score > WIN_BOUND

    def plies_to_end(self) -> int | None:
        """Plies until the forced game end the score announces (None if the score is not forced)."""
        if abs(self.score) <= WIN_BOUND:
            return None
        return WIN - abs(self.score)


class Searcher:
    """A reusable search (keeps its transposition table between calls). Not re-entrant."""

    def __init__(
        self,
        *,
        weights: Weights = DEFAULT_WEIGHTS,
        clock: Callable[[], float] = time.monotonic,
        threat_extensions: int = THREAT_EXTENSIONS,
        spread_threats: int = IN_EXTENSIONS,
    ) -> None:
        self.weights = weights
        self.clock = clock
        self.threat_extensions = threat_extensions
        self.spread_threats = spread_threats
        self.spread_cache: dict[int, bool] = {}
        self._rules: tuple[int, int, str] | None = None
        self.tt: dict[int, tuple[int, int, int, Ply | None]] = {}
        self.history: dict[int, int] = {}  # by Ply.code: int keys hash in C
        self.killers: list[list[Ply | None]] = [[None, None] for _ in range(MAX_DEPTH + 16)]
        self._stop = threading.Event()
        self.nodes = 0
        self._deadline: float | None = None
        self._max_nodes: int | None = None
        self._must_finish = True

    # ----------------------------------------------------------------- control
    def stop(self) -> None:
        """Ask a running search to return as soon as possible (thread-safe)."""
        self._stop.set()

    def new_game(self) -> None:
        self.tt.clear()
        self.spread_cache.clear()
        self.history.clear()

    # ----------------------------------------------------------------- entry point
    def search(
        self,
        board: Position,
        limit: Limit,
        on_iteration: Callable[[SearchInfo], None] | None = None,
    ) -> SearchResult:
        """Best ply for the player to move within `limit`. The board is left as it was given."""
        self._stop.clear()
        rules = (board.size, board.komi, board.opening)
        if rules != self._rules:
            # the position hash does not include the size or komi: tables from another game's
            # rules would hand out plies of another board and scores under another komi
            self._rules = rules
            self.new_game()
        start = self.clock()
        self.nodes = 0
        budget = limit.budget_ms(board.to_move)
        self._deadline = None if budget is None else start + budget / 1000.0
        self._max_nodes = limit.nodes
        max_depth = min(limit.depth or MAX_DEPTH, MAX_DEPTH)
        if len(self.tt) > TT_MAX_ENTRIES:
            self.tt.clear()
        self.history = {k: v // 8 for k, v in self.history.items() if v >= 8}
        for k in self.killers:
            k[0] = k[1] = None

        def elapsed_ms() -> float:
            return (self.clock() - start) * 1000.0

        if board.is_over:
            return SearchResult(None, "", 0, [], 0, 0, elapsed_ms())
        root_moves = board.generate()
        wins = winning_plies(board)
        if wins:
            best = _prefer_placement(wins)
            ptn = best.ptn()
            info = SearchInfo(1, WIN - 1, 1, elapsed_ms(), [ptn])
            if on_iteration:
                on_iteration(info)
            return SearchResult(best, ptn, WIN - 1, [ptn], 1, 1, info.elapsed_ms, [info])

        scores: dict[Ply, int] = {}
        best_move = root_moves[0]
        best_score = -INF
        done_depth = 0
        iterations: list[SearchInfo] = []
        base = board.ply_count
        for depth in range(1, max_depth + 1):
            self._must_finish = depth <= MIN_DEPTH
            order = sorted(root_moves, key=lambda m: -scores.get(m, -INF))
            if depth == 1:
                order = self._order(
                    board, root_moves, None, 0, placement_wins(board, 1 - board.to_move)
                )
            try:
                score, move = self._root(board, depth, order, scores)
            except _Stop:
                while board.ply_count > base:
                    board.pop()
                # a ply proved better than the last iteration's best within this iteration counts
                partial = [m for m in order if m in scores and scores[m] > best_score]
                if partial and done_depth:
                    move = max(partial, key=lambda m: scores[m])
                    best_move, best_score = move, scores[move]
                break
            best_move, best_score, done_depth = move, score, depth
            pv = self._pv(board, best_move, depth + 4)
            info = SearchInfo(depth, score, self.nodes, elapsed_ms(), pv)
            iterations.append(info)
            if on_iteration:
                on_iteration(info)
            if abs(score) > WIN_BOUND and WIN - abs(score) <= depth:
                break  # a forced end inside the horizon: deeper search cannot change it
            if self._deadline is not None and depth >= MIN_DEPTH:
                # the next iteration costs several times this one: do not start what cannot finish
                spent = self.clock() - start
                if self.clock() + spent * 2.5 > self._deadline:
                    break
        pv = self._pv(board, best_move, done_depth + 4)
        return SearchResult(
            best_move,
            best_move.ptn(),
            best_score,
            pv,
            done_depth,
            self.nodes,
            elapsed_ms(),
            iterations,
        )

    # ----------------------------------------------------------------- internals
    def _check(self) -> None:
        if self._stop.is_set():
            raise _Stop
        if self._max_nodes is not None and self.nodes >= self._max_nodes:
            raise _Stop
        if not self._must_finish and self._deadline is not None and self.clock() > self._deadline:
            raise _Stop

    def _root(
        self, board: Position, depth: int, order: list[Ply], scores: dict[Ply, int]
    ) -> tuple[int, Ply]:
        alpha, beta = -INF, INF
        best_move = order[0]
        best = -INF
        me = board.to_move
        for i, move in enumerate(order):
            board.push(move)
            end = _end_after(board, move)
            if end is not None:
                score = _end_score(end, me, 0)
            elif i == 0:
                score = -self._negamax(board, depth - 1, -beta, -alpha, 1, self.threat_extensions)
            else:
                score = -self._negamax(
                    board, depth - 1, -alpha - 1, -alpha, 1, self.threat_extensions
                )
                if score > alpha:
                    score = -self._negamax(
                        board, depth - 1, -beta, -alpha, 1, self.threat_extensions
                    )
            board.pop()
            scores[move] = score
            if score > best:
                best, best_move = score, move
                if score > alpha:
                    alpha = score
        # unsearched-at-this-depth moves keep their old scores; make sure they sort after
        self.tt[board.hash] = (depth, EXACT, best, best_move)
        return best, best_move

    def _negamax(
        self, board: Position, depth: int, alpha: int, beta: int, ply: int, ext: int
    ) -> int:
        self.nodes += 1
        if not self.nodes & 511:
            self._check()
        if self._max_nodes is not None and self.nodes >= self._max_nodes:
            self._check()
        me = board.to_move
        if placement_wins(board, me):
            return WIN - ply - 1
        threat = placement_wins(board, 1 - me)
        if depth <= 0:
            # the horizon: no ply is searched here, so road wins by spread must be asked for
            # (a win for the mover; a threat by the opponent, placed or spread, extends)
            mode = self.spread_threats
            if mode and (mode == ALL or ext < self.threat_extensions) and self._spread_win(board):
                return WIN - ply - 1
            if not threat and ext > 0 and mode == ALL:
                board.toggle_turn()
                spread_threat = self._spread_win(board)
                board.toggle_turn()
            else:
                spread_threat = False
            if (threat or spread_threat) and ext > 0:
                depth = 1
                ext -= 1
            else:
                return evaluate(board, self.weights)

        key = board.hash
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, flag, e_score, tt_move = entry
            if e_depth >= depth:
                s = (
                    e_score - ply
                    if e_score > WIN_BOUND
                    else e_score + ply
                    if e_score < -WIN_BOUND
                    else e_score
                )
                if flag == EXACT:
                    return s
                if flag == LOWER and s >= beta:
                    return s
                if flag == UPPER and s <= alpha:
                    return s

        moves = self._staged(board, tt_move, ply, threat)
        alpha_orig = alpha
        best = -INF
        best_move = None
        killers = self.killers[ply]
        for i, move in enumerate(moves):
            board.push(move)
            end = _end_after(board, move)
            if end is not None:
                score = _end_score(end, me, ply)
            elif i == 0:
                score = -self._negamax(board, depth - 1, -beta, -alpha, ply + 1, ext)
            else:
                reduction = 0
                if depth >= 3 and i >= 4 and not threat and move not in killers:
                    reduction = 1 if i < 16 or depth < 5 else 2
                score = -self._negamax(
                    board, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, ext
                )
                if score > alpha and (reduction or score < beta):
                    score = -self._negamax(board, depth - 1, -beta, -alpha, ply + 1, ext)
            board.pop()
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if move != killers[0]:
                            killers[1] = killers[0]
                            killers[0] = move
                        code = move.code
                        self.history[code] = self.history.get(code, 0) + depth * depth
                        break
        if best_move is None:
            return 0  # no legal ply: cannot happen in Tak before the game ends
        flag = UPPER if best <= alpha_orig else LOWER if best >= beta else EXACT
        stored = best + ply if best > WIN_BOUND else best - ply if best < -WIN_BOUND else best
        self.tt[key] = (depth, flag, stored, best_move)
        return best

    def _spread_win(self, board: Position) -> bool:
        """Can the player to move win by a spread? Remembered by position hash (the hash
        includes the player to move; reserves do not change the answer): leaves repeat a lot."""
        key = board.hash
        known = self.spread_cache.get(key)
        if known is None:
            if len(self.spread_cache) > SPREAD_CACHE_MAX:
                self.spread_cache.clear()
            known = self.spread_cache[key] = bool(spread_wins(board, first_only=True))
        return known

    def _order(
        self, board: Position, moves: list[Ply], tt_move: Ply | None, ply: int, threat: int
    ) -> list[Ply]:
        """All of `moves`, best first (for the root, where the whole list is needed anyway)."""
        return list(self._staged(board, tt_move, ply, threat, moves))

    def _staged(
        self,
        board: Position,
        tt_move: Ply | None,
        ply: int,
        threat: int,
        moves: list[Ply] | None = None,
    ) -> Iterator[Ply]:
        """Plies in search order, generated lazily: a cut on the table move costs no generation.

        Order: table move; placements on the squares of an immediate road threat (the blocks);
        killers; flats (centre first), capstones; spreads that caused cuts before (history);
        walls; the remaining spreads.
        """
        done: set[int] = set()  # Ply.code of the plies already given out
        if tt_move is not None:
            done.add(tt_move.code)
            yield tt_move
        if moves is None:
            moves = board.generate()
        geo = Geometry.of(board.size)
        first = []
        if threat:
            names = geo.names
            blocks = set()
            while threat:
                low = threat & -threat
                blocks.add(names[low.bit_length() - 1])
                threat ^= low
            first = [m for m in moves if m.direction is None and m.square in blocks]
            first.sort(key=lambda m: m.stone == WALL)
        killers = [k for k in self.killers[ply] if k is not None]
        if killers:
            codes = {m.code for m in moves}
            first.extend(k for k in killers if k.code in codes)
        for m in first:
            if m.code not in done:
                done.add(m.code)
                yield m
        centre = geo.inner_names
        flats_c, flats_e, caps, walls, spreads = [], [], [], [], []
        for m in moves:
            stone = m.stone
            if stone is None:
                spreads.append(m)
            elif stone == FLAT:
                (flats_c if m.square in centre else flats_e).append(m)
            elif stone == WALL:
                walls.append(m)
            else:
                caps.append(m)
        history = self.history
        known = [m for m in spreads if m.code in history]
        known.sort(key=lambda m: history[m.code], reverse=True)
        rest = [m for m in spreads if m.code not in history]
        for group in (flats_c, flats_e, caps, known, walls, rest):
            for m in group:
                if m.code not in done:
                    yield m

    def _pv(self, board: Position, first: Ply, max_len: int) -> list[str]:
        line: list[str] = []
        made = 0
        move: Ply | None = first
        seen = set()
        while move is not None and len(line) < max_len:
            if move not in board.generate():
                break
            line.append(board.push(move).ptn())
            made += 1
            if board.hash in seen or board.is_over:
                break
            seen.add(board.hash)
            entry = self.tt.get(board.hash)
            move = entry[3] if entry else None
        for _ in range(made):
            board.pop()
        return line


def _prefer_placement(plies: list[Ply]) -> Ply:
    """Among equal wins, the simplest to execute on a real board: a flat placement first."""
    placements = [p for p in plies if p.direction is None]
    flats = [p for p in placements if p.stone == FLAT]
    return (flats or placements or plies)[0]


def _end_after(board: Position, move: Ply):
    """The game end caused by `move` (just played), checked as cheaply as the ply allows."""
    mover = 1 - board.to_move
    white, black, walls, _caps = board.bitboards()
    has_road = board.has_road_bits
    mine = (black if mover else white) & ~walls
    if move.direction is None:
        if move.stone != WALL and has_road(mine):
            return (mover, "road")
        flats, capsleft = board.reserve_lists()
        if (white | black) == Geometry.of(board.size).full or not (
            flats[mover] or capsleft[mover]
        ):
            end = board.outcome()
            return (end.winner, end.reason) if end else None
        return None
    if has_road(mine):
        return (mover, "road")
    other = 1 - mover
    if has_road((black if other else white) & ~walls):
        return (other, "road")
    if (white | black) == Geometry.of(board.size).full:
        end = board.outcome()
        return (end.winner, end.reason) if end else None
    return None


def _end_score(end: tuple, me: int, ply: int) -> int:
    winner = end[0]
    if winner is None:
        return 0
    return WIN - ply - 1 if winner == me else -(WIN - ply - 1)


__all__ = ["CAP", "WIN", "SearchInfo", "SearchResult", "Searcher"]

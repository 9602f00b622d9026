"""Regenerate `tests/engine/data/tactics.txt`: tactical positions with exact answers.

    .venv/bin/python tests/engine/make_tactics.py > tests/engine/data/tactics.txt
    .venv/bin/python tests/engine/make_tactics.py --spread >> tests/engine/data/tactics.txt
    (the committed spread section: `--spread` stopped by a timeout during size 5, where a greedy
    ply allowing only a spread road never came up, then `--spread 6 7` stopped during size 6;
    size 7 has none of its own: the 7x7 spread positions are the hand-made ones)

Positions come from seeded games of a deliberately sloppy player (random, greedy and shallow
search mixed) on sizes 4-7, so they look like real play and contain real mistakes. Each position
is classified and its answer set computed by the rules, exhaustively, never by the search under
test:
- win:      the player to move has a road (or flat win) in one; answers = every winning ply;
- block:    no win, the opponent threatens a road in one; answers = every ply after which the
            opponent has no win in one (only kept when most plies lose);
- tinue:    no win in one, but some ply leaves the opponent in tinue (every reply allows a road):
            a forced win in 3 plies; answers = every such ply;
- suicide:  the greedy bot's choice here hands the opponent a road in one; answers = the plies
            that do not (the engine must pick one of them).
The hand-made positions (`HANDMADE`) follow, with answers computed the same way. Note: the
committed data file's generation was stopped during size 7 (suicide traps are rare there), and the
sloppy player uses the search, so a rerun after search changes gives a different, equally checked
set; `test_tactics_suite.py` and `test_against_rules.py` re-verify whatever the file holds.
"""

from __future__ import annotations

import random
import sys

from controller.engine.board import Ply, Position, from_tps, new_position
from controller.engine.bots import greedy_ply, random_ply
from controller.engine.limits import Limit
from controller.engine.search import Searcher
from controller.engine.tactics import (
    Budget,
    has_winning_ply,
    is_tinue,
    placement_wins,
    threat_plies,
    threatens,
    winning_plies,
)

PER_KIND = {"win": 4, "block": 4, "tinue": 3, "suicide": 4}
DEPTH = {"win": 1, "block": 2, "tinue": 3, "suicide": 2}
KOMI = {4: 0, 5: 2, 6: 4, 7: 4}


HANDMADE = [
    # (id, kind, komi, depth, TPS): built by hand to cover what self-play rarely shows:
    # spread and capstone roads, the double-road rule, a flat win on the last square, traps, a fork
    ("5-hand-spread-road", "win", 0, 1, "x3,2,2/x5/1,1111,x3/x5/2,2,2,x2 1 8"),
    ("5-hand-cap-flattens-into-road", "win", 0, 1, "x5/x2,1C,x2/1,1,2S,1,1/x5/2,2,2,x2 1 8"),
    ("4-hand-double-road-mover-wins", "win", 0, 1, "x4/1,1,1,x/x4/2,2,2,2111 1 10"),
    ("4-hand-last-square-wins-on-flats", "win", 0, 1, "1,1,2,1/2,1,2,1/1,2,1,2/2,1,2,x 1 9"),
    (
        "5-hand-dont-lift-the-cap-off-their-road",
        "suicide",
        0,
        2,
        "x5/x5/x2,1,x2/1,x4/2,2,21C,2,2 1 8",
    ),
    ("5-hand-fork-tinue", "tinue", 0, 3, "x3,2,2/x2,1,x2/1,1,x,1,x/x2,1,x2/2,2,1,x,2 1 7"),
    ("6-hand-block-the-open-end", "block", 4, 2, "x6/x6/x6/2,2,2,2,2,x/1,1,x4/1,1,1,x3 1 8"),
    ("7-hand-block-or-lose", "block", 4, 2, "x7/x7/x7/x7/2,2,2,2,2,2,x/1,1,1,x4/1,1,1,x4 1 10"),
    ("7-hand-six-stone-spread-road", "win", 4, 1, "x7/x7/x7/1111111,x6/x7/x7/2,2,2,x,2,2,x 1 10"),
    ("4-hand-keep-covering-their-road", "suicide", 0, 2, "x4/x4/1,x2,1/2,2,21,2 1 6"),
    (
        "6-hand-keep-covering-their-road",
        "suicide",
        4,
        2,
        "x5,2/x5,2/x,1,1,x2,21/x5,2/1,x4,2/1,x4,2 1 8",
    ),
]


def safe_plies(board: Position) -> tuple[list[Ply], list[Ply]]:
    """(plies that leave the opponent no win in one, plies that lose at once or allow a win)."""
    me = board.to_move
    safe, losing = [], []
    for ply in board.generate():
        played = board.push(ply)
        end = board.outcome()
        if end is not None:
            (safe if end.winner == me else losing).append(played)
        elif has_winning_ply(board):
            losing.append(played)
        else:
            safe.append(played)
        board.pop()
    return safe, losing


def tinue_plies(board: Position) -> list[Ply]:
    me = board.to_move
    out = []
    for ply in board.generate():
        played = board.push(ply)
        if (
            board.outcome() is None
            and threatens(board, me)
            and is_tinue(board, me, 1, Budget(400_000))
        ):
            out.append(played)
        board.pop()
    return out


def classify(board: Position, rng: random.Random) -> tuple[str, list[Ply]] | None:
    wins = winning_plies(board)
    if wins:
        return "win", wins
    opponent = 1 - board.to_move
    if threatens(board, opponent):
        safe, losing = safe_plies(board)
        if safe and len(safe) * 3 < len(losing):
            return "block", safe
        return None
    greedy = greedy_ply(board, random.Random(0))
    board.push(greedy)
    greedy_loses = board.outcome() is None and has_winning_ply(board)
    board.pop()
    if greedy_loses:
        safe, _ = safe_plies(board)
        if safe:
            return "suicide", safe
    if rng.random() < 0.3 and threatens_soon(board):
        tinues = tinue_plies(board)
        if tinues:
            return "tinue", tinues
    return None


def threatens_soon(board: Position) -> bool:
    """Cheap filter for the tinue search: the player to move has many road pieces already."""
    white, black, walls, _caps = board.bitboards()
    road = (black if board.to_move else white) & ~walls
    return road.bit_count() >= board.size - 1


def sloppy_ply(board: Position, rng: random.Random, searcher: Searcher) -> Ply:
    roll = rng.random()
    if roll < 0.25:
        return random_ply(board, rng)
    if roll < 0.6:
        return greedy_ply(board, rng)
    return searcher.search(board, Limit(depth=2)).best  # type: ignore[return-value]


def spread_only_threat(board: Position, player: int) -> bool:
    """`player` threatens a road in one, and only by spreads (no placement would do)."""
    return not placement_wins(board, player) and bool(threat_plies(board, player))


def classify_spread(board: Position, rng: random.Random) -> tuple[str, list[Ply]] | None:
    """The spread-threat kinds: what the 1 s match losses were made of (see docs/engine.md)."""
    if winning_plies(board):
        return None
    me, opponent = board.to_move, 1 - board.to_move
    if threatens(board, opponent):
        if spread_only_threat(board, opponent):
            safe, losing = safe_plies(board)
            if safe and len(safe) < len(losing):
                return "block", safe
        return None
    greedy = greedy_ply(board, random.Random(0))
    board.push(greedy)
    allows_spread_road = board.outcome() is None and spread_only_threat(board, opponent)
    board.pop()
    if allows_spread_road:
        safe, _ = safe_plies(board)
        if safe:
            return "suicide", safe
    if threatens_soon(board):
        tinues = []
        for ply in tinue_plies(board):
            board.push(ply)
            by_spread = any(p.direction for p in threat_plies(board, me))
            board.pop()
            if by_spread or ply.direction:
                tinues.append(ply)
        if tinues:
            return "tinue", tinues
    return None


def spread_section(sizes: list[int]) -> int:
    """Print the spread-threat positions (appended to the data file, ids `N-spread-KIND-K`)."""
    if sizes == [4, 5, 6, 7]:
        print("#\n# spread threats: blocks where only a spread threatens, greedy plies that")
        print("# allow a spread road, tinue made or kept by spreads (make_tactics.py --spread)")
    for size in sizes:
        rng = random.Random(20261130 + (size if size > 5 else 0))
        searcher = Searcher()
        # a greedy ply that allows only a spread road is rare on big boards: fewer asked for
        per_kind = {"block": 3, "tinue": 2, "suicide": 3 if size == 4 else 1}
        found = dict.fromkeys(per_kind, 0)
        seen: set[int] = set()
        games = 0
        while any(found[k] < per_kind[k] for k in per_kind) and games < 300:
            games += 1
            board = new_position(size, komi=KOMI[size])
            while not board.is_over and board.ply_count < 14 * size:
                if board.ply_count >= 6 and board.hash not in seen:
                    seen.add(board.hash)
                    kind_answers = classify_spread(board, rng)
                    if kind_answers and found[kind_answers[0]] < per_kind[kind_answers[0]]:
                        kind, answers = kind_answers
                        found[kind] += 1
                        ident = f"{size}-spread-{kind}-{found[kind]}"
                        ptns = " ".join(sorted(a.ptn() for a in answers))
                        print(
                            f"{ident} | {kind} | {size} | {board.komi} | {DEPTH[kind]} | "
                            f"{board.tps()} | {ptns}",
                            flush=True,
                        )
                board.push(sloppy_ply(board, rng, searcher))
        print(f"size {size}: {found} after {games} games", file=sys.stderr)
    return 0


def main() -> int:
    if "--spread" in sys.argv[1:]:
        # optional sizes after --spread (default 4 5 6 7), to generate big boards separately
        sizes = [int(a) for a in sys.argv[sys.argv.index("--spread") + 1 :]] or [4, 5, 6, 7]
        return spread_section(sizes)
    rng = random.Random(20261129)
    searcher = Searcher()
    print("# tactics suite: id | kind | size | komi (half-flats) | depth | TPS | answers (PTN)")
    print("# generated by tests/engine/make_tactics.py; answers computed exhaustively by the rules")
    for size in (4, 5, 6, 7):
        found: dict[str, int] = dict.fromkeys(PER_KIND, 0)
        seen: set[int] = set()
        games = 0
        while any(found[k] < PER_KIND[k] for k in PER_KIND) and games < 400:
            games += 1
            board = new_position(size, komi=KOMI[size])
            while not board.is_over and board.ply_count < 12 * size:
                if board.ply_count >= 4 and board.hash not in seen:
                    seen.add(board.hash)
                    kind_answers = classify(board, rng)
                    if kind_answers and found[kind_answers[0]] < PER_KIND[kind_answers[0]]:
                        kind, answers = kind_answers
                        found[kind] += 1
                        ident = f"{size}-{kind}-{found[kind]}"
                        ptns = " ".join(sorted(a.ptn() for a in answers))
                        print(
                            f"{ident} | {kind} | {size} | {board.komi} | {DEPTH[kind]} | "
                            f"{board.tps()} | {ptns}",
                            flush=True,
                        )
                board.push(sloppy_ply(board, rng, searcher))
        print(f"size {size}: {found} after {games} games", file=sys.stderr)
    print("#\n# hand-made positions (HANDMADE in make_tactics.py), answers computed the same way")
    for ident, kind, komi, depth, tps in HANDMADE:
        board = from_tps(tps, komi=komi)
        if kind == "win":
            answers = winning_plies(board)
        elif kind == "tinue":
            answers = tinue_plies(board)
        else:
            answers = safe_plies(board)[0]
        ptns = " ".join(sorted(a.ptn() for a in answers))
        print(f"{ident} | {kind} | {board.size} | {komi} | {depth} | {tps} | {ptns}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

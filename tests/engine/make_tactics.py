"""Regenerate `tests/engine/data/tactics.txt`: tactical positions with exact answers.

    .venv/bin/python tests/engine/make_tactics.py > tests/engine/data/tactics.txt

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

from controller.engine.board import Board
from controller.engine.bots import greedy_ply, random_ply
from controller.engine.limits import Limit
from controller.engine.search import Searcher
from controller.engine.tactics import Budget, has_winning_ply, is_tinue, threatens, winning_plies

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


def safe_plies(board: Board) -> tuple[list[tuple], list[tuple]]:
    """(plies that leave the opponent no win in one, plies that lose at once or allow a win)."""
    me = board.to_move
    safe, losing = [], []
    for ply in board.plies():
        board.make(ply)
        end = board.game_end()
        if end is not None:
            (safe if end.winner == me else losing).append(ply)
        elif has_winning_ply(board):
            losing.append(ply)
        else:
            safe.append(ply)
        board.unmake()
    return safe, losing


def tinue_plies(board: Board) -> list[tuple]:
    me = board.to_move
    out = []
    for ply in board.plies():
        board.make(ply)
        if (
            board.game_end() is None
            and threatens(board, me)
            and is_tinue(board, me, 1, Budget(400_000))
        ):
            out.append(ply)
        board.unmake()
    return out


def classify(board: Board, rng: random.Random) -> tuple[str, list[tuple]] | None:
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
    board.make(greedy)
    greedy_loses = board.game_end() is None and has_winning_ply(board)
    board.unmake()
    if greedy_loses:
        safe, _ = safe_plies(board)
        if safe:
            return "suicide", safe
    if rng.random() < 0.3 and threatens_soon(board):
        tinues = tinue_plies(board)
        if tinues:
            return "tinue", tinues
    return None


def threatens_soon(board: Board) -> bool:
    """Cheap filter for the tinue search: the player to move has a long group already."""
    geo = board.geo
    road = board.road[board.to_move]
    return road.bit_count() >= geo.size - 1


def sloppy_ply(board: Board, rng: random.Random, searcher: Searcher) -> tuple:
    roll = rng.random()
    if roll < 0.25:
        return random_ply(board, rng)
    if roll < 0.6:
        return greedy_ply(board, rng)
    return searcher.search(board, Limit(depth=2)).best  # type: ignore[return-value]


def main() -> int:
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
            board = Board(size, komi=KOMI[size])
            while board.game_end() is None and board.ply_count < 12 * size:
                if board.ply_count >= 4 and board.hash not in seen:
                    seen.add(board.hash)
                    kind_answers = classify(board, rng)
                    if kind_answers and found[kind_answers[0]] < PER_KIND[kind_answers[0]]:
                        kind, answers = kind_answers
                        found[kind] += 1
                        ident = f"{size}-{kind}-{found[kind]}"
                        ptns = " ".join(sorted(board.ptn(a) for a in answers))
                        print(
                            f"{ident} | {kind} | {size} | {board.komi} | {DEPTH[kind]} | "
                            f"{board.tps()} | {ptns}",
                            flush=True,
                        )
                board.make(sloppy_ply(board, rng, searcher))
        print(f"size {size}: {found} after {games} games", file=sys.stderr)
    print("#\n# hand-made positions (HANDMADE in make_tactics.py), answers computed the same way")
    for ident, kind, komi, depth, tps in HANDMADE:
        board = Board.from_tps(tps, komi=komi)
        if kind == "win":
            answers = winning_plies(board)
        elif kind == "tinue":
            answers = tinue_plies(board)
        else:
            answers = safe_plies(board)[0]
        ptns = " ".join(sorted(board.ptn(a) for a in answers))
        print(f"{ident} | {kind} | {board.size} | {komi} | {depth} | {tps} | {ptns}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

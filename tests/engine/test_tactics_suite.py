"""The tactics suite: the engine must find the road, block the threat, see the tinue, skip the trap.

Positions and answers live in `tests/engine/data/tactics.txt` (generated part: see
`make_tactics.py`; hand-made part at the end). Each position has its own depth limit (the time it
is allowed, independent of how busy the machine is).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.engine.board import Position, from_tps
from controller.engine.limits import Limit
from controller.engine.search import WIN_BOUND, Searcher
from controller.engine.tactics import Budget, has_winning_ply, is_tinue, winning_plies

DATA = Path(__file__).parent / "data" / "tactics.txt"


@dataclass(frozen=True)
class Puzzle:
    ident: str
    kind: str
    size: int
    komi: int
    depth: int
    tps: str
    answers: frozenset[str]

    def board(self) -> Position:
        return from_tps(self.tps, komi=self.komi)


def load() -> list[Puzzle]:
    puzzles = []
    for number, raw in enumerate(DATA.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip() or raw.startswith("#"):
            continue
        fields = [f.strip() for f in raw.split("|")]
        if len(fields) != 7:
            raise ValueError(f"{DATA.name}:{number}: expected 7 fields, got {len(fields)}")
        ident, kind, size, komi, depth, tps, answers = fields
        puzzles.append(
            Puzzle(ident, kind, int(size), int(komi), int(depth), tps, frozenset(answers.split()))
        )
    return puzzles


PUZZLES = load()


def test_suite_covers_sixty_positions_on_sizes_four_to_seven_and_every_kind():
    assert len(PUZZLES) >= 60
    assert {p.size for p in PUZZLES} == {4, 5, 6, 7}
    assert {p.kind for p in PUZZLES} == {"win", "block", "tinue", "suicide"}
    assert len({p.ident for p in PUZZLES}) == len(PUZZLES)
    # what the 1 s match losses were made of: threats and tinue by spreads
    spread = [p for p in PUZZLES if p.ident.split("-")[1] == "spread"]
    assert len(spread) >= 12 and {p.kind for p in spread} == {"block", "tinue", "suicide"}


@pytest.mark.parametrize("puzzle", PUZZLES, ids=[p.ident for p in PUZZLES])
def test_engine_answer_is_one_of_the_correct_plies(puzzle):
    board = puzzle.board()
    result = Searcher().search(board, Limit(depth=puzzle.depth))
    assert result.best_ptn in puzzle.answers, (
        f"{puzzle.ident}: engine played {result.best_ptn} (score {result.score}, pv {result.pv}); "
        f"correct: {sorted(puzzle.answers)[:12]}"
    )
    if puzzle.kind in ("win", "tinue"):
        assert result.score > WIN_BOUND, "a forced win must be scored as one"


@pytest.mark.parametrize("puzzle", [p for p in PUZZLES if p.kind != "tinue"], ids=lambda p: p.ident)
def test_answers_are_exactly_what_the_rules_say(puzzle):
    board = puzzle.board()
    if puzzle.kind == "win":
        expected = {p.ptn() for p in winning_plies(board)}
    else:
        expected = set()
        me = board.to_move
        for ply in board.generate():
            played = board.push(ply)
            end = board.outcome()
            safe = end.winner == me if end is not None else not has_winning_ply(board)
            board.pop()
            if safe:
                expected.add(played.ptn())
    assert expected == set(puzzle.answers)


@pytest.mark.parametrize("puzzle", [p for p in PUZZLES if p.kind == "tinue"], ids=lambda p: p.ident)
def test_every_tinue_answer_really_leaves_the_opponent_in_tinue(puzzle):
    board = puzzle.board()
    me = board.to_move
    assert not winning_plies(board), "a tinue puzzle must not have a road in one"
    for text in puzzle.answers:
        board.push(board.parse_ply(text))
        assert is_tinue(board, me, 1, Budget(400_000)), text
        board.pop()

"""The engine board against `controller.tak`, the project's rules authority.

The search runs on its own board (see `controller/engine/board.py` for why). These tests replay
seeded random games on both and require the same legal plies (as PTN), the same game ends and the
same TPS at every step, for every size and opening rule; and they re-check the tactics suite's
answers with `controller.tak` alone.
"""

from __future__ import annotations

import random

import pytest

from controller.engine.board import Board
from controller.engine.hints import to_board
from controller.tak import Position

from .test_tactics_suite import PUZZLES


@pytest.mark.parametrize("opening", ["swap", "no-swap", "double black stack"])
@pytest.mark.parametrize("size", [3, 4, 5, 6, 7, 8])
def test_random_games_agree_ply_for_ply(size, opening):
    rng = random.Random(f"{size}{opening}")
    for game in range(3):
        komi = game
        board = Board(size, komi=komi, opening=opening)
        position = Position(size, komi=komi, opening=opening)
        while True:
            ours = sorted(board.ptn(p) for p in board.legal_plies())
            theirs = sorted(p.ptn() for p in position.legal_plies)
            assert ours == theirs, position.tps()
            end = board.game_end()
            outcome = position.outcome()
            if outcome is None:
                assert end is None, position.tps()
            else:
                assert end is not None and (end.winner, end.reason) == (
                    outcome.winner,
                    outcome.reason,
                ), position.tps()
                break
            ply = rng.choice(board.plies())
            text = board.ptn(ply)
            board.make(ply)
            position.play(text)
            assert board.tps() == position.tps()


def test_a_rules_position_becomes_an_equal_engine_board_with_its_reserves():
    position = Position(6, komi=4, flats=(20, 25), caps=(0, 2))
    for text in ["a1", "f6", "c3", "Cd4"]:
        position.play(text)
    board = to_board(position)
    assert board.tps() == position.tps()
    assert board.komi == 4
    assert [(board.flats[p], board.caps[p]) for p in (0, 1)] == [
        position.reserves(0),
        position.reserves(1),
    ]


def _wins_now(position: Position) -> bool:
    mover = position.to_move
    for ply in list(position.legal_plies):
        position.push(ply)
        outcome = position.outcome()
        position.pop()
        if outcome is not None and outcome.winner == mover:
            return True
    return False


@pytest.mark.parametrize("puzzle", PUZZLES, ids=[p.ident for p in PUZZLES])
def test_suite_answers_hold_under_the_rules_engine(puzzle):
    position = Position.from_tps(puzzle.tps, komi=puzzle.komi)
    mover = position.to_move
    legal = {p.ptn(): p for p in position.legal_plies}
    assert puzzle.answers <= set(legal), "every answer is a legal ply"
    if puzzle.kind == "win":
        for text in puzzle.answers:
            position.push(legal[text])
            outcome = position.outcome()
            position.pop()
            assert outcome is not None and outcome.winner == mover, text
    elif puzzle.kind in ("block", "suicide"):
        # every ply left out of the answers really hands the opponent a win in one
        for text, ply in legal.items():
            if text in puzzle.answers:
                continue
            position.push(ply)
            outcome = position.outcome()
            lost = (outcome is not None and outcome.winner != mover) or (
                outcome is None and _wins_now(position)
            )
            position.pop()
            assert lost, text

"""Exact tactics: roads in one for either side, tak, tinue, and the automatic annotations."""

from __future__ import annotations

import pytest

from controller.engine.annotate import annotate_plies
from controller.engine.board import BoardError, Geometry, Position, from_tps
from controller.engine.tactics import (
    Budget,
    is_tinue,
    placement_wins,
    threat_plies,
    threatens,
    winning_plies,
)


def ptns(board: Position, plies) -> set[str]:
    return {p.ptn() for p in plies}


def test_placement_wins_are_found_by_bitboards_for_both_players():
    # white a1-a4 (threat a5), black b5-e5 (threat a5 too)
    board = from_tps("x,2,2,2,2/1,x4/1,x4/1,x4/1,x4 1 6")
    assert placement_wins(board, 0) == 1 << Geometry.of(5).names.index("a5")
    assert placement_wins(board, 1) == 1 << Geometry.of(5).names.index("a5")
    assert ptns(board, winning_plies(board)) == {"a5", "Ca5"}


def test_spread_road_in_one_is_found():
    board = from_tps("x3,2,2/x5/1,1111,x3/x5/2,2,2,x2 1 8")
    assert ptns(board, winning_plies(board)) == {"3b3>111"}


def test_threat_of_the_player_not_to_move_is_tak():
    board = from_tps("x5/x5/x5/x5/1,1,1,1,x 2 5")
    assert threatens(board, 0)
    assert not threatens(board, 1)
    assert ptns(board, threat_plies(board, 0)) == {"e1", "Ce1"}
    assert board.to_move == 1  # asking did not change whose turn it is


FORK = "x3,2,2/x2,1,x2/1,1,x,1,x/x2,1,x2/2,2,1,x,2 1 7"  # white c3 threatens e3 and c5


def test_a_fork_is_tinue_a_single_threat_is_not():
    fork = from_tps(FORK)
    fork.push(fork.parse_ply("c3"))
    assert threatens(fork, 0)
    assert is_tinue(fork, 0, 1, Budget(100_000))
    single = from_tps(FORK)
    single.push(single.parse_ply("e3"))  # a3 b3 . d3 e3: only c3 finishes it
    assert threatens(single, 0)
    assert not is_tinue(single, 0, 1, Budget(100_000))


def test_tinue_budget_running_out_means_not_proven():
    fork = from_tps(FORK)
    fork.push(fork.parse_ply("c3"))
    assert not is_tinue(fork, 0, 1, Budget(3))


def test_tinue_requires_the_defender_to_move():
    with pytest.raises(ValueError, match="defender to move"):
        is_tinue(from_tps(FORK), 0)


def test_annotations_mark_tak_after_the_threatening_ply_only():
    # white builds a3 b3 c3 d3 (tak: e3), black blocks e3, builds b5-e5 (tak: a5), white blocks
    game = ["e5", "a1", "a3", "e4", "b3", "d5", "c3", "c5", "d3", "e3", "c2", "b5", "a5"]
    marks = annotate_plies(game, size=5)
    assert [i for i, m in enumerate(marks) if m] == [8, 11]
    assert marks[8] == marks[11] == "'"


def test_annotations_mark_a_fork_as_tinue():
    assert annotate_plies(["c3"], tps=FORK) == ["''"]
    assert annotate_plies(["e3"], tps=FORK) == ["'"]
    assert annotate_plies(["Sb4"], tps=FORK) == [""]


def test_a_ply_that_ends_the_game_gets_no_mark():
    assert annotate_plies(["e3"], tps="x5/x5/1,1,1,1,x/x5/2,2,2,x2 1 5") == [""]


def test_annotating_an_illegal_ply_names_it():
    with pytest.raises(BoardError, match="ply 2 'a1'"):
        annotate_plies(["a1", "a1"], size=5)


def test_annotate_game_reads_a_ptn_game_with_its_komi_and_start():
    from controller.engine.annotate import annotate_game
    from controller.tak import ptn

    text = (
        '[Size "5"]\n[Komi "1.5"]\n\n1. e5 a1 2. a3 e4 3. b3 d5 4. c3 c5 5. d3 e3 6. c2 b5 7. a5\n'
    )
    game = ptn.parse_game(text)
    marks = annotate_game(game)
    assert [i for i, m in enumerate(marks) if m] == [8, 11]

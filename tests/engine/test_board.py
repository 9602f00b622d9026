"""The engine's own board: exact against the perft table, exact undo, notation round trips."""

from __future__ import annotations

import random

import pytest

from controller.engine.board import CAP, FLAT, WALL, Board, BoardError


def perft(board: Board, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for ply in board.plies():
        board.make(ply)
        if depth == 1:
            total += 1
        elif board.game_end() is None:
            total += perft(board, depth - 1)
        board.unmake()
    return total


# from /work/shared/reference/tak.md (positions already decided count 0 below them)
@pytest.mark.parametrize(
    ("size", "depth", "nodes"),
    [(3, 4, 17_792), (4, 3, 7_440), (5, 3, 43_320), (6, 2, 1_260), (7, 2, 2_352), (8, 2, 4_032)],
)
def test_perft_from_the_start_matches_the_reference_table(size, depth, nodes):
    assert perft(Board(size), depth) == nodes


def random_game(size: int, rng: random.Random, plies: int = 200) -> Board:
    board = Board(size)
    while board.game_end() is None and board.ply_count < plies:
        board.make(rng.choice(board.plies()))
    return board


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7, 8])
def test_make_and_unmake_restore_position_and_hash_exactly(size):
    rng = random.Random(size)
    for _ in range(5):
        board = Board(size)
        history = []
        while board.game_end() is None and board.ply_count < 120:
            history.append((board.tps(), board.hash, list(board.flats), list(board.caps)))
            board.make(rng.choice(board.plies()))
            fresh = Board.from_tps(board.tps())
            assert fresh.hash == board.hash
            assert (fresh.road, fresh.walls, fresh.capbits) == (
                board.road,
                board.walls,
                board.capbits,
            )
        while history:
            tps, h, flats, caps = history.pop()
            board.unmake()
            assert (board.tps(), board.hash, board.flats, board.caps) == (tps, h, flats, caps)


def test_tps_round_trip_keeps_stacks_walls_and_caps():
    tps = "x2,1S,2S,1/x,1,x,2,x/x,1,x3/x,1C,2,x2/1,112,x3 1 9"
    board = Board.from_tps(tps)
    assert board.tps() == tps
    assert board.stacks[1] == [0, 0, 1]
    assert board.kinds[board.geo.index["c5"]] == WALL
    assert board.kinds[board.geo.index["b2"]] == CAP
    assert board.caps == [0, 1]


@pytest.mark.parametrize(
    ("tps", "why"),
    [
        ("x5/x5/x5/x5 1 1", "rank 4 has 5 squares, expected 4"),
        ("x5/x5/x5/x5/x5 3 1", "player must be 1 or 2"),
        ("x5/x5/x5/x5/x4,13Q 1 1", "bad stack"),
        ("x5/x5/x5/x5/x5 1", "expected 'rows player move'"),
        ("1C,1C,x3/x5/x5/x5/x5 2 2", "more pieces on the board than in the reserve"),
    ],
)
def test_bad_tps_is_refused_with_the_reason(tps, why):
    with pytest.raises(BoardError, match=why):
        Board.from_tps(tps)


def test_every_generated_ply_round_trips_through_ptn():
    rng = random.Random(7)
    board = random_game(5, rng, plies=30)
    for ply in board.plies():
        assert board.parse_ptn(board.ptn(ply)) == ply


def test_ptn_reader_is_lenient_about_prefix_count_and_annotations():
    board = Board.from_tps("x5/x5/x2,1,x2/x5/x5 2 2")
    assert board.parse_ptn("Fa1'") == board.parse_ptn("a1")
    with pytest.raises(BoardError, match="not legal"):
        board.parse_ptn("c3>")  # black cannot move white's stack


def test_capstone_flattens_a_wall_only_as_a_lone_last_drop():
    board = Board.from_tps("x5/x5/x,2C,1,1S,x/x5/x5 2 5")
    plies = {board.ptn(p) for p in board.plies()}
    assert "b3>" in plies
    board2 = Board.from_tps("x5/x5/x,1C,x,2S,x/x5/x5 1 5")
    plies2 = {board2.ptn(p) for p in board2.plies()}
    assert "b3>" in plies2
    board3 = Board.from_tps("x5/x5/x,1C,2S,x2/x5/x5 1 5")
    moves3 = {board3.ptn(p) for p in board3.plies()}
    assert "b3>*" in moves3
    ply = board3.parse_ptn("b3>")
    board3.make(ply)
    assert board3.tps() == "x5/x5/x2,21C,x2/x5/x5 2 5"


def test_opening_plies_place_the_opponents_flat_and_nothing_else():
    board = Board(5)
    assert {len(p) for p in board.plies()} == {2}
    assert {p[1] for p in board.plies()} == {FLAT}
    board.make(board.parse_ptn("a1"))
    assert board.tps() == "x5/x5/x5/x5/2,x4 2 1"


def test_completing_only_the_opponents_road_loses_and_a_double_road_wins_for_the_mover():
    # white's spread uncovers black's flat on d1: black's road on rank 1 appears
    board = Board.from_tps("x4/x4/x4/2,2,2,21 1 10")
    board.make(board.parse_ptn("d1+"))  # uncovers black's d1: black road a1-d1
    end = board.game_end()
    assert end is not None and end.winner == 1 and end.reason == "road"
    dragon = Board.from_tps("1,1,1,x/x4/x4/2,2,2,2111 1 10")
    dragon.make(dragon.parse_ptn("3d1+111"))  # white completes rank 4, black's rank 1 appears too
    end = dragon.game_end()
    assert end is not None and end.winner == 0

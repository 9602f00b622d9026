"""Position: every rule of Tak in positions built for it, exact undo and the Zobrist hash."""

from __future__ import annotations

import pytest

from controller.tak import (
    BLACK,
    CAP,
    FLAT,
    WALL,
    WHITE,
    IllegalPlyError,
    Outcome,
    Ply,
    Position,
    TPSError,
)


def plies(pos: Position) -> set[str]:
    return {p.ptn() for p in pos.legal_plies}


def play_all(pos: Position, text: str) -> Position:
    for token in text.split():
        pos.play(token)
    return pos


# -- openings ----------
def test_swap_opening_places_the_opponents_flat_and_nothing_else():
    pos = Position(5)
    assert plies(pos) == {f"{f}{r}" for f in "abcde" for r in range(1, 6)}
    pos.play("c3")
    assert pos.top("c3") == (BLACK, FLAT)
    assert pos.reserves(BLACK) == (20, 1)
    assert "Sa1" not in plies(pos) and "Ca1" not in plies(pos)
    pos.play("a1")
    assert pos.top("a1") == (WHITE, FLAT)
    assert "Ca2" in plies(pos)


def test_no_moves_and_no_walls_in_the_first_two_plies():
    pos = play_all(Position(5), "c3")
    with pytest.raises(IllegalPlyError, match="no stack moves in the first two plies"):
        pos.play("c3+")
    with pytest.raises(IllegalPlyError, match="first ply of each player places a flat"):
        pos.play("Sa1")


def test_no_swap_opening_places_your_own_flat():
    pos = Position(5, opening="no-swap")
    pos.play("c3")
    assert pos.top("c3") == (WHITE, FLAT)
    pos.play("d3")
    assert pos.top("d3") == (BLACK, FLAT)


def test_double_black_stack_opening_starts_with_two_black_flats():
    pos = Position(6, opening="double black stack")
    assert plies(pos) == {f"2{f}{r}" for f in "abcdef" for r in range(1, 7)}
    played = pos.play("2a1")
    assert played.ptn() == "2a1"
    assert pos.stack("a1") == ((BLACK, FLAT), (BLACK, FLAT))
    assert pos.reserves(BLACK) == (28, 1)
    with pytest.raises(IllegalPlyError, match="place one flat, not two"):
        pos.play("2b1")
    pos.play("f6")
    assert pos.top("f6") == (WHITE, FLAT)
    assert pos.pop().ptn() == "f6"
    assert pos.pop().ptn() == "2a1"
    assert pos.reserves(BLACK) == (30, 1)


# -- placements ----------
def test_placement_on_an_occupied_square_is_illegal():
    pos = play_all(Position(4), "a1 b1")
    with pytest.raises(IllegalPlyError, match="a1 is occupied"):
        pos.play("Sa1")


def test_a_player_without_capstones_cannot_place_one():
    pos = Position.from_tps("x4/x4/x4/x2,2,1 1 3")
    assert not any(p.stone == CAP for p in pos.legal_plies)
    with pytest.raises(IllegalPlyError, match="white has no capstones left"):
        pos.play("Ca4")


def test_a_player_with_only_a_capstone_left_can_only_place_it():
    pos = Position.from_tps("x4/x4/x4/x2,2,1 1 3", flats=(1, 5), caps=1)
    placements = {p.ptn() for p in pos.legal_plies if p.is_placement}
    assert placements == {f"C{f}{r}" for f in "abcd" for r in range(1, 5)} - {"Cc1", "Cd1"}


# -- spreads ----------
def test_every_drop_sequence_is_listed_up_to_the_carry_limit():
    # a lone 5-high white stack in the corner of a 3x3 board: carry limit 3
    pos = Position.from_tps("x3/x3/12121,x2 1 10", flats=10)
    spreads = {p.ptn() for p in pos.legal_plies if p.is_spread}
    assert spreads == {
        "a1+", "2a1+", "2a1+11", "3a1+", "3a1+12", "3a1+21",
        "a1>", "2a1>", "2a1>11", "3a1>", "3a1>12", "3a1>21",
    }  # fmt: skip
    with pytest.raises(IllegalPlyError, match="carry limit on a 3x3 board is 3, not 4"):
        pos.play("4a1+13")


def test_you_cannot_lift_more_than_the_stack_holds():
    pos = Position.from_tps("x4/x4/x4/21,1,2,x 1 4")
    with pytest.raises(IllegalPlyError, match="a1 holds 2 stones, cannot lift 3"):
        pos.play("3a1+")


def test_you_only_move_stacks_you_control():
    pos = Position.from_tps("x4/x4/x4/12,1,2,x 1 4")
    with pytest.raises(IllegalPlyError, match="a1 is controlled by black, white is to move"):
        pos.play("a1+")
    with pytest.raises(IllegalPlyError, match="d1 is empty"):
        pos.play("d1+")


def test_walls_and_capstones_block_spreads():
    pos = Position.from_tps("x5/x5/x,2S,111,2C,x/x5/x5 1 8")
    assert not any(p.direction in ("<", ">") and p.square == "c3" for p in pos.legal_plies)
    with pytest.raises(IllegalPlyError, match="b3 is a wall: nothing moves onto it"):
        pos.play("c3<")
    with pytest.raises(IllegalPlyError, match="d3 is a capstone: nothing moves onto it"):
        pos.play("c3>")


def test_a_wall_moves_onto_flats_but_not_onto_walls():
    pos = Position.from_tps("x4/x4/x,2,1S,2S/x4 1 5")
    assert "c2<" in plies(pos)
    assert "c2>" not in plies(pos)
    pos.play("c2<")
    assert pos.stack("b2") == ((BLACK, FLAT), (WHITE, WALL))


def test_a_lone_capstone_flattens_a_wall_as_the_last_drop():
    pos = Position.from_tps("x4/x4/x,2S,1C,x/x4 1 5", caps=1)
    assert "c2<*" in plies(pos)
    played = pos.play("c2<")
    assert played.flattens and played.ptn() == "c2<*"
    assert pos.stack("b2") == ((BLACK, FLAT), (WHITE, CAP))
    pos.pop()
    assert pos.top("b2") == (BLACK, WALL)


def test_capstone_flattens_wall_only_as_last_drop_and_alone():
    # white stack 2-1C on d3, free c3, black wall on b3
    pos = Position.from_tps("x5/x5/x,2S,x,21C,x/x5/x5 1 8")
    legal = plies(pos)
    assert "2d3<11*" in legal  # one on c3, then the capstone alone onto the wall
    assert "2d3<" in legal  # both onto c3: legal, flattens nothing
    assert not pos.push(Ply.from_ptn("2d3<")).flattens
    pos2 = Position.from_tps("x5/x5/x,2S,21C,x2/x5/x5 1 8")
    with pytest.raises(IllegalPlyError, match="b3 is a wall: a capstone flattens it only alone"):
        pos2.play("2c3<")  # two stones onto the wall
    assert "c3<*" in plies(pos2)


def test_a_spread_off_the_board_is_illegal_with_a_clear_reason():
    pos = Position.from_tps("x3/x3/x2,21 1 3")
    with pytest.raises(IllegalPlyError, match="runs off a 3x3 board"):
        pos.play("2c1>11")
    with pytest.raises(Exception, match="a5 is off a 4x4 board"):
        Position(4).play("a5")


def test_play_error_quotes_the_ply_and_the_tps():
    pos = Position.from_tps("x3/x3/x2,2 1 3")
    with pytest.raises(IllegalPlyError) as err:
        pos.play("c1<")
    assert str(err.value) == '"c1<" in x3/x3/x2,2 1 3: c1 is controlled by black, white is to move'


def test_spreads_drop_the_bottom_stones_first():
    pos = Position.from_tps("x4/x4/x4/1212,x3 2 8")
    pos.play("3a1>12")
    assert pos.stack("a1") == ((WHITE, FLAT),)
    assert pos.stack("b1") == ((BLACK, FLAT),)
    assert pos.stack("c1") == ((WHITE, FLAT), (BLACK, FLAT))


# -- roads and the end of the game ----------
def test_a_road_of_flats_and_capstones_wins_and_walls_do_not_count():
    assert Position.from_tps("x3/1,1C,1/x,2,2 2 4", caps=1).outcome() == Outcome(WHITE, "road")
    assert Position.from_tps("x3/1,1S,1/x,2,2 2 4").outcome() is None


def test_a_winding_road_connects_opposite_edges():
    pos = Position.from_tps("x,2,x3/x,2,2,x2/x2,2,x2/x2,2,2,x/x3,2,x 1 9")
    assert pos.outcome() == Outcome(BLACK, "road")
    assert pos.road(BLACK) == ["d1", "d2", "c2", "c3", "c4", "b4", "b5"]  # edge to edge
    assert pos.road(WHITE) is None


def test_completing_only_the_opponents_road_is_legal_and_loses():
    # white lifts its flat off c1 and uncovers black: black's road on rank 1
    pos = Position.from_tps("x3/x3/2,2,21 1 4")
    assert pos.outcome() is None
    pos.play("c1+")
    assert pos.outcome() == Outcome(BLACK, "road")


def test_both_roads_at_once_is_a_win_for_the_mover():
    # white's 3-stack on c1 (black, black, white on top) spreads up: c2 gets a black flat and
    # completes black's rank-2 road, c3 gets black then white and completes white's rank-3 road
    pos = Position.from_tps("1,1,x/2,2,x/x,x,221 1 6")
    pos.play("3c1+12")  # c2 gets the black flat, c3 gets black then white on top
    assert pos.stack("c2") == ((BLACK, FLAT),)
    assert pos.stack("c3") == ((BLACK, FLAT), (WHITE, FLAT))
    assert pos.road(WHITE) == ["a3", "b3", "c3"]
    assert pos.road(BLACK) == ["a2", "b2", "c2"]
    assert pos.outcome() == Outcome(WHITE, "road")
    assert pos.outcome().result() == "R-0"
    assert not pos.legal_plies


def test_a_full_board_ends_the_game_on_flat_count():
    pos = Position.from_tps("1,2,1/2,1,2/1,2,x 1 5")
    assert pos.outcome() is None
    pos.play("c1")
    assert pos.outcome() == Outcome(WHITE, "flats")
    assert pos.flat_count() == (5, 4)


def test_komi_goes_to_player_two_and_can_draw():
    tps = "1,2,1/2,1,2/1,2,1S 2 5"  # full: 4 white flats (wall does not count), 4 black
    assert Position.from_tps(tps).outcome() == Outcome(None, "draw")
    assert Position.from_tps(tps, komi=1).outcome() == Outcome(BLACK, "flats")
    tps2 = "1,2,1/2,1,2/1,2,1 2 5"
    assert Position.from_tps(tps2, komi=2).outcome() == Outcome(None, "draw")
    assert Position.from_tps(tps2, komi=1).outcome() == Outcome(WHITE, "flats")


def test_running_out_of_stones_ends_the_game_for_either_player():
    pos = Position(4, flats=(4, 6))
    play_all(pos, "a1 d4 b2 c3 Sa3")
    assert pos.reserves(WHITE) == (1, 0)
    assert pos.outcome() is None
    pos.play("d1")
    pos.play("Sd2")  # white's last stone
    assert pos.reserves(WHITE) == (0, 0)
    assert pos.outcome() == Outcome(BLACK, "flats")  # 2 white flats (walls do not count), 3 black
    assert pos.is_over and not pos.legal_plies


def test_no_stones_but_a_capstone_left_is_not_the_end():
    pos = Position.from_tps("x5/x5/x5/x5/2,1,x3 1 2", flats=(1, 21))
    assert pos.reserves(WHITE) == (0, 1)
    assert pos.outcome() is None


def test_flat_count_ignores_walls_and_capstones():
    pos = Position.from_tps("1,1S,1C/2,2C,2S/x,12,21 1 8", caps=1)
    assert pos.flat_count() == (2, 2)


# -- draw policies ----------
def test_fifty_plies_without_placement_or_flattening_draw_when_asked():
    tps = "x5/x5/x,1,x,2,x/x5/x5 1 10"
    pos = Position.from_tps(tps, draw_policies=("fifty",))
    plain = Position.from_tps(tps)
    for i in range(50):
        for p in (pos, plain):
            p.play(("b3+", "d3+", "b4-", "d4-")[i % 4])
    assert pos.outcome() == Outcome(None, "draw")
    assert plain.outcome() is None
    pos.pop()
    assert pos.outcome() is None


def test_threefold_repetition_draws_when_asked():
    pos = Position.from_tps("x5/x5/x,1,x,2,x/x5/x5 1 10", draw_policies=["threefold"])
    cycle = ["b3+", "d3+", "b4-", "d4-"]
    for i in range(7):
        pos.play(cycle[i % 4])
        assert pos.outcome() is None
    pos.play(cycle[3])
    assert pos.outcome() == Outcome(None, "draw")


def test_unknown_draw_policy_is_refused():
    with pytest.raises(ValueError, match="draw policy 'sixty'"):
        Position(5, draw_policies=["sixty"])


# -- undo and hash ----------
def test_pop_restores_stacks_reserves_player_and_hash():
    pos = Position.from_tps("x4/x,2,1C,x/x,12S,21,x/1,x3 1 6", caps=1)
    before = (pos.tps(), pos.hash, pos.reserves(WHITE), pos.reserves(BLACK), pos.ply_count)
    for ply in list(pos.legal_plies):
        pos.push(ply)
        assert pos.pop() == ply
        assert (
            pos.tps(),
            pos.hash,
            pos.reserves(WHITE),
            pos.reserves(BLACK),
            pos.ply_count,
        ) == before


def test_transpositions_have_equal_hashes_and_the_player_to_move_counts():
    a = play_all(Position(5), "a1 e5 b1 d5")
    b = play_all(Position(5), "a1 d5 b1 e5")
    assert a.hash != b.hash or a.tps() == b.tps()
    c = play_all(Position(5), "a1 e5 c1 d5 b1")
    d = play_all(Position(5), "a1 e5 b1 d5 c1")
    assert c.tps() == d.tps() and c.hash == d.hash
    e = Position.from_tps(c.tps())
    assert e.hash == c.hash
    f = Position.from_tps(c.tps().replace(" 2 ", " 1 "))
    assert f.hash != c.hash


def test_copy_is_independent_and_pop_needs_the_stack():
    pos = play_all(Position(5), "a1 e5 c3")
    branch = pos.copy()
    branch.play("d3")
    assert pos.tps() != branch.tps()
    with pytest.raises(IndexError):
        pos.copy().pop()
    full = pos.copy(stack=True)
    assert full.pop().ptn() == "c3"


def test_state_accessors():
    pos = Position.from_tps("x3/x,12C,x/x3 2 4", caps=1)
    assert pos.size == 3 and pos.to_move == BLACK and pos.move_number == 4 and pos.ply_count == 7
    assert pos.stack("b2") == ((WHITE, FLAT), (BLACK, CAP))
    assert pos.top("a1") is None and pos.height("b2") == 2
    assert pos.stacks() == {"b2": ((WHITE, FLAT), (BLACK, CAP))}
    assert repr(pos) == "Position('x3/x,12C,x/x3 2 4')"
    assert pos.reserves(BLACK) == (10, 0) and pos.reserves(WHITE) == (9, 1)


def test_custom_reserves_per_player_and_bad_options():
    pos = Position(6, flats=(10, 12), caps=(0, 2), komi=5)
    assert pos.reserves(WHITE) == (10, 0) and pos.reserves(BLACK) == (12, 2)
    with pytest.raises(ValueError, match="board size 9"):
        Position(9)
    with pytest.raises(ValueError, match="opening 'chess'"):
        Position(5, opening="chess")
    with pytest.raises(ValueError, match="flats cannot be negative"):
        Position(5, flats=-1)
    with pytest.raises(TPSError, match="white has 13 stones on the board but only 10"):
        Position.from_tps("1,1,1/1,1,1/1,1,11111 2 10")


def test_legal_plies_view_answers_in_and_counts_without_listing():
    pos = Position(5)
    assert Ply.from_ptn("c3") in pos.legal_plies
    assert Ply.from_ptn("Sc3") not in pos.legal_plies
    assert "c3" not in pos.legal_plies  # only Ply values are members
    assert pos.legal_plies.count() == len(list(pos.legal_plies)) == 25
    assert bool(pos.legal_plies)
    pos = Position.from_tps("x5/x5/x2,1C,x2/x5/2,x4 2 3")
    assert pos.legal_plies.count() == len(list(pos.legal_plies))


def test_stone_constants_are_plain_values():
    assert (WHITE, BLACK, FLAT, WALL, CAP) == (0, 1, 0, 1, 2)


def test_a_spread_onto_the_last_empty_square_ends_the_game_on_flats():
    pos = Position.from_tps("1,2,1/2,1,2/1,21,x 1 8")
    assert pos.outcome() is None
    played = pos.play("b1>")
    assert played.is_spread and pos.top("c1") == (WHITE, FLAT)
    assert pos.outcome() == Outcome(WHITE, "flats") and pos.flat_count() == (5, 4)


def test_very_tall_stacks_from_custom_reserves_hash_apart():
    tall = "1" * 129
    a = Position.from_tps(f"x3/x3/{tall},x2 1 70", flats=200)
    b = Position.from_tps(f"x3/x3/2{tall[1:]},x2 1 70", flats=200)
    c = Position.from_tps(f"x3/x3/{tall[1:]},x2 1 70", flats=200)
    assert len({a.hash, b.hash, c.hash}) == 3
    before = a.hash
    a.play("3a1>12")
    assert a.hash == Position.from_tps(a.tps(), flats=200).hash
    a.pop()
    assert a.hash == before

"""The virtual table: hands move pieces like on a real board, with no rules and clear refusals."""

from __future__ import annotations

import pytest

from controller.service.virtual_board import CAP, FLAT, WALL, VirtualBoard, VirtualBoardError

W, B = 0, 1


def test_place_stacks_pieces_bottom_to_top_and_bumps_version():
    vb = VirtualBoard(5)
    v0 = vb.version
    vb.place("c3", W)
    vb.place("c3", B, CAP)
    assert vb.stack("c3") == ((W, FLAT), (B, CAP))
    assert vb.version == v0 + 2


def test_nothing_can_be_placed_on_a_wall_or_capstone():
    vb = VirtualBoard(5)
    vb.place("a1", W, WALL)
    with pytest.raises(VirtualBoardError, match="a1 is topped by a wall"):
        vb.place("a1", B)


def test_pick_up_holds_the_hand_over_the_board_until_the_last_drop():
    vb = VirtualBoard(5)
    for player in (W, B, W):
        vb.place("b2", player)
    vb.pick_up("b2", 2)
    scene = vb.scene()
    assert scene.hand_over and scene.in_hand == ((B, FLAT), (W, FLAT))
    vb.drop("b3", 1)
    assert vb.scene().hand_over
    vb.drop("b4", 1)
    scene = vb.scene()
    assert not scene.hand_over
    assert scene.stacks == {"b2": ((W, FLAT),), "b3": ((B, FLAT),), "b4": ((W, FLAT),)}


def test_spread_drops_along_the_direction():
    vb = VirtualBoard(5)
    for player in (W, B, W, B):
        vb.place("a1", player)
    vb.spread("a1", ">", [1, 2])
    assert vb.stack("a1") == ((W, FLAT),)
    assert vb.stack("b1") == ((B, FLAT),)
    assert vb.stack("c1") == ((W, FLAT), (B, FLAT))


def test_spread_off_the_board_is_refused_before_anything_moves():
    vb = VirtualBoard(4)
    vb.place("d4", W)
    with pytest.raises(VirtualBoardError, match="leaves the board"):
        vb.spread("d4", "+", [1])
    assert vb.stack("d4") == ((W, FLAT),)


def test_lone_capstone_dropped_on_a_wall_flattens_it():
    vb = VirtualBoard(5)
    vb.place("c3", B, WALL)
    vb.place("c2", W, CAP)
    vb.spread("c2", "+", [1])
    assert vb.stack("c3") == ((B, FLAT), (W, CAP))


def test_knock_over_scatters_the_stack_and_lays_walls_flat():
    vb = VirtualBoard(5)
    vb.place("a1", W)
    vb.place("a1", B)
    vb.place("a1", W, WALL)
    changed = vb.knock_over("a1", "+")
    assert changed == ["a1", "a2", "a3"]
    assert vb.stack("a1") == ((W, FLAT),)
    assert vb.stack("a2") == ((B, FLAT),)
    assert vb.stack("a3") == ((W, FLAT),)


def test_knocked_pieces_past_the_edge_fall_off_the_table():
    vb = VirtualBoard(3)
    for player in (W, B, W, B):
        vb.place("c1", player)
    assert vb.knock_over("c1", ">") == ["c1"]
    assert vb.scene().stacks == {"c1": ((W, FLAT),)}


def test_hands_cannot_do_two_things_at_once():
    vb = VirtualBoard(5)
    vb.place("a1", W)
    vb.pick_up("a1", 1)
    with pytest.raises(VirtualBoardError, match="hand still holds 1 piece"):
        vb.place("b1", B)


@pytest.mark.parametrize("square", ["f1", "a6", "c0", "zz", "", "a10"])
def test_squares_off_the_board_are_named_in_the_error(square):
    vb = VirtualBoard(5)
    with pytest.raises(VirtualBoardError, match=r"off a 5x5 board|not a square name"):
        vb.place(square, W)


def test_reset_lays_out_given_stacks():
    vb = VirtualBoard(5)
    vb.place("a1", W)
    vb.reset(4, {"b2": [(B, FLAT), (W, CAP)]})
    assert vb.size == 4
    assert vb.scene().stacks == {"b2": ((B, FLAT), (W, CAP))}


def test_hand_over_board_is_visible_in_the_scene():
    vb = VirtualBoard(5)
    vb.set_hand_over(True)
    assert vb.scene().hand_over
    vb.set_hand_over(False)
    assert not vb.scene().hand_over

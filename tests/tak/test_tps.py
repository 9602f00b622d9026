"""TPS: positions in and out, and malformed TPS rejected with what and where."""

from __future__ import annotations

import pytest

from controller.tak import BLACK, CAP, FLAT, WALL, WHITE, Position, TPSError


@pytest.mark.parametrize(
    "tps",
    [
        "x3/x3/x3 1 1",
        "x5/x5/x5/x5/x5 1 1",
        "x5/x5/x2,12C,x2/x5/x5 1 3",
        "2,x3/x,121S,x2/x4/x3,1 2 6",
        "x8/x8/x8/x8/x8/x8/x8/x7,2 2 1",
        "1,2,1/2,1,2/1,2,1 2 5",
    ],
)
def test_tps_round_trips(tps):
    assert Position.from_tps(tps, caps=2).tps() == tps


def test_tps_sets_stacks_player_and_ply_number():
    pos = Position.from_tps("x5/x5/x2,12C,x2/x5/x5 1 3")
    assert pos.stack("c3") == ((WHITE, FLAT), (BLACK, CAP))
    assert pos.to_move == WHITE and pos.ply_count == 4
    pos = Position.from_tps("x3/x,2S,x/x3 2 2")
    assert pos.top("b2") == (BLACK, WALL) and pos.ply_count == 3


def test_tps_in_a_ptn_tag_is_accepted():
    assert Position.from_tps('[TPS "x3/x3/x3 1 1"]').tps() == "x3/x3/x3 1 1"


@pytest.mark.parametrize(
    ("tps", "why"),
    [
        ("x3/x3/x3 1", "expected 3 fields"),
        ("x3/x3/x3 3 1", "player to move must be 1 or 2"),
        ("x3/x3/x3 1 0", "move number must be a whole number >= 1"),
        ("x3/x3 1 1", "2 rows; Tak boards have 3 to 8"),
        ("x3/x2/x3 1 1", r"row 2 \(rank 2\) has 2 squares, expected 3"),
        ("x3/x4/x3 1 1", r"row 2 \(rank 2\) has 4 squares, expected 3"),
        ("x3/x,13,x/x3 1 1", '"13" is not a square'),
        ("x3/x,1S2,x/x3 1 1", '"1S2" is not a square'),
        ("x3/x,x0,x3/x3 1 1", "empty run of 0"),
        ("x3/1C,x2/x3 1 1", "white has 1 capstones on the board but only 0"),
        ("", "expected 3 fields"),
    ],
)
def test_bad_tps_says_what_is_wrong(tps, why):
    with pytest.raises(TPSError, match=why) as err:
        Position.from_tps(tps)
    assert f'"{tps}"' in str(err.value) or tps == ""


def test_tps_of_a_position_after_plies():
    pos = Position(3)
    pos.play("a1")
    pos.play("c3")
    assert pos.tps() == "x2,1/x3/2,x2 1 2"

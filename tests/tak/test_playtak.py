"""PlayTak server notation to and from plies."""

from __future__ import annotations

import pytest

from controller.tak import InvalidPlyError, Ply, playtak


@pytest.mark.parametrize(
    ("server", "ptn"),
    [
        ("P A1", "a1"),
        ("P A1 W", "Sa1"),
        ("P H8 C", "Ch8"),
        ("M A2 A4 2 1", "3a2+21"),
        ("M C3 C2 1", "c3-"),
        ("M E5 B5 1 1 1", "3e5<111"),
        ("M B1 C1 3", "3b1>"),
    ],
)
def test_server_moves_translate_both_ways(server, ptn):
    assert playtak.to_ptn(server) == Ply.from_ptn(ptn)
    assert playtak.from_ptn(Ply.from_ptn(ptn)) == server


@pytest.mark.parametrize(
    ("server", "why"),
    [
        ("", "empty move"),
        ("X A1", "neither P"),
        ("P A1 Q", "is not W"),
        ("P Z9", "is not a square"),
        ("M A1 B2 1", "not on one line"),
        ("M A1 A3 2", "1 drop counts for 2 square"),
        ("M A1 A2 x", "whole numbers"),
    ],
)
def test_bad_server_moves_are_rejected(server, why):
    with pytest.raises(InvalidPlyError, match=why) as err:
        playtak.to_ptn(server)
    assert f'"{server}"' in str(err.value)


def test_double_stack_placement_has_no_server_form():
    with pytest.raises(InvalidPlyError, match="PlayTak has no such move"):
        playtak.from_ptn(Ply.from_ptn("2a1"))

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


def test_game_rows_become_games_with_tags():
    row = {"id": 7, "date": 1760000000000, "size": 6, "player_white": "a", "player_black": "b",
           "notation": "P A1,P F6,P C3 C", "result": "1-0", "komi": 3, "pieces": 28,
           "capstones": -1}  # fmt: skip
    game = playtak.game_from_row(row, index=4)
    assert dict(game.tags.items()) == {
        "Size": "6", "Player1": "a", "Player2": "b", "PlayTakID": "7", "Date": "2025.10.09",
        "Time": "08:53:20", "Komi": "1.5", "Flats": "28", "Result": "1-0",
    }  # fmt: skip
    assert game.index == 4 and game.errors == []
    assert game.replay().reserves(0) == (27, 0)


def test_bad_game_row_fields_are_errors_not_crashes():
    row = {"size": None, "notation": 5, "date": 1e30, "komi": 1.5, "pieces": "x"}
    game = playtak.game_from_row(row)
    whys = " | ".join(e.why for e in game.errors)
    assert (
        "date" in whys and "komi 1.5" in whys and "pieces 'x'" in whys and "notation is int" in whys
    )
    from controller.tak.check import check_game

    report = check_game(game)
    assert not report.ok and 'Size tag "None"' in report.error

"""PTN games: reading every quirk, writing canonically, lossless round trips, precise errors."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from controller.tak import IllegalPlyError, Position, PTNError, perft, ptn
from controller.tak.ptn import Game, PlyRecord

DATA = Path(__file__).resolve().parents[1] / "data" / "tak"
SAMPLES = sorted(p for p in DATA.glob("*.ptn") if p.name != "corrupt.ptn")


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_games_replay_to_their_recorded_result(path):
    for game in ptn.read_games(path.read_text(), filename=path.name):
        assert game.errors == []
        outcome = game.replay().outcome()
        assert outcome is not None and outcome.result() == game.result


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_read_write_read_keeps_tags_comments_and_annotations(path):
    games = ptn.read_games(path.read_text())
    again = ptn.read_games(ptn.write_games(games))
    assert len(again) == len(games)
    for a, b in zip(games, again, strict=True):
        assert list(a.tags.items()) == list(b.tags.items())
        assert a.comments == b.comments and a.final_comments == b.final_comments
        assert a.result == b.result
        assert [(m.ply, m.annotation, m.comments_before, m.comments_after) for m in a.moves] == [
            (m.ply, m.annotation, m.comments_before, m.comments_after) for m in b.moves
        ]
    assert ptn.write_games(again) == ptn.write_games(games)


def test_club_game_keeps_unknown_tags_comments_and_annotations():
    game = ptn.read_games((DATA / "club-6x6.ptn").read_text())[0]
    assert game.tag("board") == "walnut, recorded by takboard"
    assert game.tag("CLOCK") == "15:00 +10"
    assert next(iter(game.tags)) == "Event"
    assert game.comments == [
        "Recorded from the camera; plies 17 and 24 confirmed by hand on the page."
    ]
    notes = {m.token: m.annotation for m in game.moves if m.annotation}
    assert notes == {"Sf5!?": "!?", "2b4-11?": "?", "c6'": "'", "2b6>11??": "??",
                     "3b3+21''": "''", "c4!": "!"}  # fmt: skip
    assert game.moves[33].comments_after == ["the capstone takes the wall on d1"]
    assert game.moves[33].ply.ptn() == "c1>*"
    assert game.final_comments == ["jules completes the c file"]


def test_several_games_per_file_are_read_one_at_a_time():
    text = (DATA / "komi.ptn").read_text()
    handle = io.StringIO(text)
    first, second, end = ptn.read_game(handle), ptn.read_game(handle), ptn.read_game(handle)
    assert (first.komi, second.komi, end) == (2, 3, None)
    assert first.replay().outcome().result() == "1/2-1/2"
    assert second.replay().outcome().result() == "0-F"
    assert second.index == 2
    assert ptn.read_game(text).komi == 2


def test_tps_start_tag_and_black_to_move_continuation():
    game = ptn.read_games((DATA / "tps-start.ptn").read_text())[0]
    start = game.start_position()
    assert start.tps() == "x5/2,2,2,x2/1,1,1,1,x/x5/x5 2 5"
    assert game.moves[0].ply.ptn() == "Se3" and game.moves[0].annotation == "!"
    text = ptn.write_game(game)
    assert "5... Se3! 6. Sd4 a5" in text.replace("\n", " ")
    assert game.replay().outcome().result() == "0-R"


def test_corrupt_ply_is_located_by_game_ply_and_token():
    games = ptn.read_games((DATA / "corrupt.ptn").read_text(), filename="corrupt.ptn")
    assert len(games) == 5
    (err,) = games[0].errors
    assert str(err) == 'corrupt.ptn: game 1, ply 7 "12d4-12": drops sum to 3 but count is 12'
    assert (err.line, err.column, err.token, err.ply) == (7, 31, "12d4-12", 7)
    assert [m.token for m in games[0].moves] == ["a1", "e5", "b1", "d5", "c1", "c5"]


def test_strict_reading_raises_the_first_error():
    with pytest.raises(PTNError, match='game 1, ply 7 "12d4-12"'):
        ptn.read_games((DATA / "corrupt.ptn").read_text(), strict=True)


def test_replay_names_the_game_and_ply_of_an_illegal_ply():
    games = ptn.read_games((DATA / "corrupt.ptn").read_text(), filename="corrupt.ptn")
    with pytest.raises(IllegalPlyError) as err:
        games[4].replay()
    assert str(err.value) == (
        'corrupt.ptn: game 5, ply 5 "a1+": a1 is controlled by black, white is to move'
    )
    assert (err.value.game_index, err.value.ply_number, err.value.token) == (5, 5, "a1+")
    with pytest.raises(IllegalPlyError, match='ply 10 "b4": the game is already over'):
        games[1].replay()


def test_flatten_star_is_optional_but_strict_replay_rejects_a_false_one():
    text = '[Size "5"]\n[TPS "x5/x5/x5/x,2S,1C,x2/x5 1 5"]\n\n5. c2< {flattens, no star}'
    assert ptn.parse_game(text).replay().top("b2") == (0, 2)
    false_star = '[Size "5"]\n[TPS "x5/x5/x5/x,2,1,x2/x5 1 5"]\n\n5. c2<*'
    assert ptn.parse_game(false_star).replay()  # lenient
    with pytest.raises(IllegalPlyError, match=r"marked \* but no wall is flattened"):
        ptn.parse_game(false_star).replay(strict=True)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('[Size "5"\n\n1. a1 e5', "malformed tag"),
        ('[Size "5"]\n\n1. a1 {never closed', "comment never closed"),
        ('[Size "5"]\n\n1. a1 e5 3. b1', r"move number 3\. where 2\. was expected"),
        ('[Size "5"]\n\n1. a1 e5 R-0 b2', "ply after the result R-0"),
        ('[Size "9"]\n\n1. a1', 'Size tag "9" is not a board size'),
        ('[Size "5"]\n[Komi "abc"]\n\n1. a1', 'Komi tag "abc" is not a number'),
        ('[Size "5"]\n[Komi "0.25"]\n\n1. a1', "not a whole or half number"),
        ('[Size "5"]\n[Opening "chess"]\n\n1. a1', 'Opening tag "chess"'),
        ('[Size "5"]\n[Flats "many"]\n\n1. a1', 'Flats tag "many"'),
        ('[Size "5"]\n[TPS "x5/x5 1 1"]\n\n1. a1', "TPS"),
        ('[Size "4"]\n[TPS "x5/x5/x5/x5/x5 1 1"]\n\n1. a1', "TPS tag is a 5x5 board but Size is 4"),
    ],
)
def test_malformed_ptn_is_reported_in_lenient_mode_and_raised_in_strict(text, why):
    game = ptn.read_games(text)[0]
    assert game.errors and any(
        why.replace("\\", "") in str(e) or __import__("re").search(why, str(e)) for e in game.errors
    )
    with pytest.raises(PTNError, match=why):
        ptn.read_games(text, strict=True)


def test_komi_opening_and_custom_reserves_come_from_tags():
    text = (
        '[Size "6"]\n[Komi "2.5"]\n[Flats1 "20"]\n[Flats2 "22"]\n[Caps "0"]\n'
        '[Opening "double black stack"]\n\n1. 2a1 f6'
    )
    game = ptn.parse_game(text)
    assert game.komi == 5 and game.opening == "double black stack"
    pos = game.replay()
    assert pos.reserves(0) == (19, 0) and pos.reserves(1) == (20, 0)
    assert pos.stack("a1") == ((1, 0), (1, 0))


def test_game_from_position_writes_a_replayable_game():
    pos = Position(5, komi=4, flats=(20, 21))
    for text in ["a1", "e5", "Cc3", "d4", "c3+", "c3"]:
        pos.play(text)
    game = Game.from_position(pos, tags={"Player1": "ann", "Site": "kitchen"})
    text = ptn.write_game(game)
    assert '[Komi "2"]' in text and '[Flats1 "20"]' in text and '[Player1 "ann"]' in text
    back = ptn.parse_game(text)
    assert back.replay().tps() == pos.tps()


def test_game_from_a_tps_position_carries_the_tps_tag():
    pos = Position.from_tps("x3/x,1,x/2,x2 2 2")
    pos.play("c3")
    game = Game.from_position(pos)
    assert game.tag("tps") == "x3/x,1,x/2,x2 2 2"
    assert ptn.write_game(game).splitlines()[-1] == "2... c3"


def test_comments_before_a_second_players_ply_round_trip():
    game = Game()
    game.tags["Size"] = "3"
    game.moves = [
        PlyRecord(ptn.Ply.from_ptn("a1")),
        PlyRecord(ptn.Ply.from_ptn("c3"), comments_before=["why c3?"]),
    ]
    text = ptn.write_game(game)
    assert "1. a1 1... {why c3?} c3" in text
    back = ptn.parse_game(text)
    assert back.moves[1].comments_before == ["why c3?"]


def test_tags_are_case_insensitive_and_keep_their_spelling():
    game = ptn.parse_game('[sIzE "3"]\n[player1 "x"]\n\n1. a1')
    assert game.size == 3 and game.tag("PLAYER1") == "x"
    assert ptn.write_game(game).startswith('[sIzE "3"]\n[player1 "x"]')


def test_perft_still_runs_from_a_game_start_position():
    game = ptn.parse_game('[Size "3"]\n\n1. a1 c3')
    assert perft(game.replay(), 2) == perft(game.replay().copy(), 2)


def test_windows_line_endings_and_a_byte_order_mark_are_fine():
    text = '\ufeff[Size "3"]\r\n[Result "R-0"]\r\n\r\n1. a1 c3 {ok}\r\n2. c2 a2\r\n'
    game = ptn.read_games(text)[0]
    assert game.errors == [] and len(game.moves) == 4 and game.moves[1].comments_after == ["ok"]

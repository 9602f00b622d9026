"""`takboard hint`: the command as a user runs it (a real process), human and JSON output."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from controller.commands.hint import parse_duration_ms, parse_komi
from controller.engine.board import from_tps

ROAD_IN_ONE = "x4,1/x2,1,x2/221,x,1,x2/x2,1,x,2C/x,22,2221C,12,2 1 16"
MIDGAME = "x,2,x2,1/x,221,x2,2/x,1,x2,2/1,1,x2,2/1,x3,2 1 9"


def hint(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", "hint", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_json_is_exactly_one_object_with_the_documented_keys():
    done = hint(MIDGAME, "--depth", "2", "--json")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    answer = json.loads(lines[0])
    assert set(answer) == {"best", "score", "pv", "depth", "nodes"}
    assert answer["depth"] == 2 and answer["nodes"] > 0
    assert isinstance(answer["score"], int)
    board = from_tps(MIDGAME)
    assert board.parse_ply(answer["best"]) in board.generate()
    assert answer["pv"][0] == answer["best"]


def test_road_in_one_is_the_hint_and_the_text_says_it_wins():
    done = hint(ROAD_IN_ONE, "--time", "1s", "--komi", "1")
    assert done.returncode == 0, done.stderr
    assert "best:  c5" in done.stdout
    assert "wins by force in 1 plies" in done.stdout


def test_tps_may_be_given_unquoted_as_three_words():
    done = hint(*MIDGAME.split(), "--depth", "1", "--json")
    assert done.returncode == 0, done.stderr


def test_bad_tps_is_an_error_that_quotes_it():
    done = hint("x5/x5/x5 1", "--json")
    assert done.returncode == 2
    assert "x5/x5/x5 1" in done.stderr and done.stdout == ""


def test_a_finished_game_has_no_hint():
    done = hint("x5/x5/x5/x5/1,1,1,1,1 2 6")
    assert done.returncode == 2
    assert "game is over" in done.stderr


@pytest.mark.parametrize(
    ("text", "ms"), [("2s", 2000), ("1.5s", 1500), ("500ms", 500), ("3", 3000)]
)
def test_durations(text, ms):
    assert parse_duration_ms(text) == ms


@pytest.mark.parametrize(("text", "halves"), [("2", 4), ("1.5", 3), ("0", 0), ("-0.5", -1)])
def test_komi_in_flats_becomes_half_flats(text, halves):
    assert parse_komi(text) == halves


def test_bad_duration_and_komi_are_refused():
    done = hint(MIDGAME, "--time", "soon")
    assert done.returncode == 2 and "bad duration 'soon'" in done.stderr
    done = hint(MIDGAME, "--komi", "1.25")
    assert done.returncode == 2 and "not a whole or half flat" in done.stderr


def test_hint_for_the_position_after_a_ptn_game(tmp_path):
    game = tmp_path / "game.ptn"
    game.write_text('[Size "5"]\n[Komi "2"]\n\n1. e5 a1 2. a3 e4 3. b3 d5 4. c3 c5 5. d3\n')
    done = hint("--ptn", str(game), "--depth", "2", "--json")
    assert done.returncode == 0, done.stderr
    # black must stop a3-d3 at e3: place there, or drop e4's flat on it
    assert json.loads(done.stdout)["best"] in {"e3", "Se3", "Ce3", "e4-"}


def test_missing_ptn_file_is_a_clear_error(tmp_path):
    done = hint("--ptn", str(tmp_path / "nope.ptn"))
    assert done.returncode == 2
    assert "cannot read" in done.stderr and "nope.ptn" in done.stderr

"""Filming the LEDs: what the real firmware latched, cut into moments a player would see, drawn.

The counted flashes of a hint are the part a player must read off the board alone, so they are
checked on the frames the emulated data pin really carried, not on the frames that were sent.
"""

from __future__ import annotations

import cv2
import pytest

from controller import cli
from controller.leds import scenes
from controller.leds.film import film, flash_counts
from controller.leds.layout import LedConfig
from controller.leds.link import LedLink
from controller.leds.picture import CELL, MARGIN, TITLE, film_strip
from controller.tak import Ply

CONFIG = LedConfig(size=5)


@pytest.fixture
def link(board):
    with LedLink(board.port, config=CONFIG) as link:
        assert link.wait_ready(10.0)
        yield link


def test_a_spread_hint_flashes_each_drop_square_once_per_piece(board, link):
    hint = scenes.hint(5, Ply.from_ptn("3c2>21"))
    moments = film(board, link, CONFIG, hint, hint.cycle_seconds)
    assert flash_counts(moments) == {"d2": 2, "e2": 1}
    # the origin pulses (the firmware animates it), drawn at its brightest: blue in every moment
    for moment in moments:
        r, _, b = moment.colours["c2"]
        assert b > 200 and r == 0
    # the flashes are the hint's rhythm: 1.2 s rest, then 0.35 s on / 0.35 s off
    assert moments[0].seconds == pytest.approx(1.2, abs=0.1)
    assert len(moments) == 7
    assert all(0.25 <= m.seconds <= 0.45 for m in moments[1:]), [m.seconds for m in moments]


@pytest.mark.parametrize(("ptn", "flashes"), [("c3", 1), ("Sc3", 2), ("Cc3", 3)])
def test_a_placement_hint_flashes_once_per_kind_flat_wall_capstone(board, link, ptn, flashes):
    hint = scenes.hint(5, Ply.from_ptn(ptn))
    moments = film(board, link, CONFIG, hint, hint.cycle_seconds)
    assert flash_counts(moments) == {"c3": flashes}


def test_the_strip_draws_each_moment_with_the_led_colour_under_its_square(board, link):
    hint = scenes.hint(5, Ply.from_ptn("2a1>11"))
    moments = film(board, link, CONFIG, hint, hint.cycle_seconds)
    sheet = film_strip("hint", 5, moments)
    side = 2 * MARGIN + 5 * CELL
    assert sheet.shape[1] == 4 * side  # four moments a row

    def pixel(moment: int, x: int, y: int):
        column, row = moment % 4, moment // 4
        return sheet[TITLE + row * (side + 44) + y, column * side + x].astype(int)

    b1 = (MARGIN + CELL + CELL // 2, MARGIN + 4 * CELL + CELL // 2)  # centre of b1 on a 5x5
    resting, flashing = pixel(0, *b1), pixel(1, *b1)
    assert flashing[2] > resting[2] + 60  # red channel (BGR): bright orange over dim orange
    empty = pixel(1, MARGIN + 4 * CELL + CELL // 2, MARGIN + CELL // 2)  # e5: no light
    assert flashing[2] > empty[2] + 100


def test_pictures_command_writes_one_png_per_scene(firmware_built, tmp_path, capsys):
    assert cli.main(["leds", "pictures", "-o", str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.glob("leds-*.png"))
    assert written == [
        "leds-hint-spread.png", "leds-hint-wall.png", "leds-illegal.png",
        "leds-last-move.png", "leds-resync.png", "leds-road.png",
    ]  # fmt: skip
    assert "7 moment(s)" in capsys.readouterr().out  # rest + 2 + 1 flashes, each then dim
    assert cv2.imread(str(tmp_path / "leds-hint-spread.png")).shape[0] > 300


def test_pictures_refuses_a_board_too_small_for_the_example_game(capsys):
    assert cli.main(["leds", "pictures", "--size", "4", "-o", "/tmp/unused"]) == 2
    assert "--size must be 5..8" in capsys.readouterr().err

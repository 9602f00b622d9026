"""The LED frame model and the square -> LED mapping from the layout file."""

from __future__ import annotations

import pytest

from controller.leds.frame import BLACK, Colour, Effect, LedFrame, Light, Speed
from controller.leds.layout import Layout, LayoutError, load_layout

BLUE = Colour(0, 0, 255)


def test_frames_with_the_same_picture_are_equal_whatever_the_order_given():
    a = LedFrame(5, {"c3": Light.solid(BLUE), "a1": Light.pulse(BLUE), "b2": Light()})
    b = LedFrame(5, [("a1", Light.pulse(BLUE)), ("c3", Light.solid(BLUE))])
    assert a == b and hash(a) == hash(b)
    assert list(a.lit()) == ["a1", "c3"]


def test_unlit_squares_read_as_off_and_iteration_covers_the_board():
    frame = LedFrame(4, {"d4": Light.blink(BLUE, Speed.FAST, 3)})
    assert frame["a1"].is_off
    squares = [sq for sq, _ in frame]
    assert squares[:5] == ["a1", "b1", "c1", "d1", "a2"] and len(squares) == 16


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: LedFrame(5, {"f1": Light.solid(BLUE)}), "'f1' is not a square of a 5x5 board"),
        (lambda: LedFrame(9), "board size must be 3..8"),
        (lambda: Colour(0, 256, 0), "Colour.g must be an int 0..255"),
        (lambda: Light(BLUE, Effect.SOLID, count=2), "only makes sense with BLINK"),
        (lambda: Light.blink(BLUE, count=9), "count must be 1..8"),
        (lambda: LedFrame(5, [("a1", Light()), ("a1", Light())]), "given twice"),
    ],
)
def test_bad_values_get_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_frames_are_immutable():
    frame = LedFrame.off(5)
    with pytest.raises(AttributeError):
        frame.size = 6  # type: ignore[misc]
    assert frame.with_lights({"a1": Light.solid(BLUE)}) != frame
    assert Light(BLACK, Effect.SOLID).is_off


def test_serpentine_from_a1_reverses_every_other_rank():
    layout = Layout(board_size=3, wiring="serpentine", start_corner="a1")
    assert layout.square_order() == ["a1", "b1", "c1", "c2", "b2", "a2", "a3", "b3", "c3"]


def test_row_major_from_the_far_corner_runs_backwards():
    layout = Layout(board_size=3, wiring="row-major", start_corner="c3")
    assert layout.square_order() == ["c3", "b3", "a3", "c2", "b2", "a2", "c1", "b1", "a1"]


def test_runs_along_files_from_the_lower_right_corner():
    layout = Layout(board_size=3, wiring="serpentine", start_corner="c1", runs="files")
    assert layout.square_order() == ["c1", "c2", "c3", "b3", "b2", "b1", "a1", "a2", "a3"]


def test_several_leds_per_square_are_consecutive():
    layout = Layout(board_size=8, leds_per_square=2)
    assert list(layout.leds("a1")) == [0, 1]
    assert list(layout.leds("a2")) == [30, 31]  # a2 is the 16th square of a serpentine chain
    assert layout.led_count == 128


@pytest.mark.parametrize("size", range(3, 9))
@pytest.mark.parametrize("wiring", ["serpentine", "row-major"])
@pytest.mark.parametrize("runs", ["ranks", "files"])
def test_every_layout_is_a_bijection(size, wiring, runs):
    for corner in Layout(board_size=size).corners():
        layout = Layout(board_size=size, wiring=wiring, start_corner=corner, runs=runs)
        positions = sorted(layout.chain_position(sq) for sq in layout.square_order())
        assert positions == list(range(size * size))
        assert layout.square_order()[0] == corner


def test_layout_file_is_read_and_checked(tmp_path):
    good = tmp_path / "leds.toml"
    good.write_text('[layout]\nboard_size = 6\nwiring = "row-major"\nstart_corner = "f6"\n')
    assert load_layout(good) == Layout(board_size=6, wiring="row-major", start_corner="f6")

    bad = tmp_path / "bad.toml"
    bad.write_text('[layout]\nboard_size = 6\nstart_corner = "h8"\n')
    with pytest.raises(LayoutError, match=r"bad.toml: \[layout\] start_corner must be a corner"):
        load_layout(bad)
    bad.write_text('[layout]\nboard_sise = 6\n')
    with pytest.raises(LayoutError, match="unknown keys \\['board_sise'\\]"):
        load_layout(bad)
    bad.write_text("[layout\n")
    with pytest.raises(LayoutError, match="not valid TOML"):
        load_layout(bad)
    with pytest.raises(LayoutError, match="cannot read"):
        load_layout(tmp_path / "missing.toml")

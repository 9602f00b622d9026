"""The LED frame model and the square -> LED mapping from the layout file."""

from __future__ import annotations

import pytest

from controller.leds.frame import BLACK, Animation, Colour, Effect, LedFrame, Light
from controller.leds.layout import DEFAULT_CONFIG_PATH, LayoutError, LedConfig, load_config

BLUE = Colour(0, 0, 255)


def test_frames_with_the_same_picture_are_equal_whatever_the_order_given():
    a = LedFrame(5, {"c3": Light.solid(BLUE), "a1": Light.pulse(BLUE), "b2": Light()})
    b = LedFrame(5, [("a1", Light.pulse(BLUE)), ("c3", Light.solid(BLUE))])
    assert a == b and hash(a) == hash(b)
    assert list(a.lit()) == ["a1", "c3"]


def test_unlit_squares_read_as_off_and_iteration_covers_the_board():
    frame = LedFrame(4, {"d4": Light.blink(BLUE, 200)})
    assert frame["a1"].is_off
    squares = [sq for sq, _ in frame]
    assert squares[:5] == ["a1", "b1", "c1", "d1", "a2"] and len(squares) == 16


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: LedFrame(5, {"f1": Light.solid(BLUE)}), "f1 is off a 5x5 board"),
        (lambda: LedFrame(9), "board size must be 3..8"),
        (lambda: Colour(0, 256, 0), "Colour.g must be an int 0..255"),
        (lambda: Light.blink(BLUE, 30), "multiple of 20 in 20..5100, got 30"),
        (lambda: Light.pulse(BLUE, 6000), "multiple of 20 in 20..5100, got 6000"),
        (lambda: Animation(()), "at least one step"),
        (lambda: Animation(((LedFrame(5), 1.0), (LedFrame(6), 1.0))), "step 1: expected"),
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


def test_animation_steps_follow_the_clock_and_loop():
    a, b = LedFrame(4), LedFrame(4, {"a1": Light.solid(BLUE)})
    animation = Animation(((a, 0.5), (b, 1.0)))
    assert animation.step_at(0.0) == (0, 0.5)
    assert animation.step_at(0.7)[0] == 1
    assert animation.step_at(1.6)[0] == 0  # second cycle
    assert animation.cycle_seconds == 1.5


def test_serpentine_from_a1_reverses_every_other_rank():
    config = LedConfig(size=3, wiring="serpentine", start_corner="bottom-left")
    assert config.square_order() == ["a1", "b1", "c1", "c2", "b2", "a2", "a3", "b3", "c3"]


def test_row_major_from_the_far_corner_runs_backwards():
    config = LedConfig(size=3, wiring="row-major", start_corner="top-right")
    assert config.square_order() == ["c3", "b3", "a3", "c2", "b2", "a2", "c1", "b1", "a1"]


def test_runs_along_files_from_the_lower_right_corner():
    config = LedConfig(size=3, wiring="serpentine", start_corner="bottom-right", axis="files")
    assert config.square_order() == ["c1", "c2", "c3", "b3", "b2", "b1", "a1", "a2", "a3"]


def test_the_hardware_readme_example_holds():
    # hardware/README.md: LED k sits under rank k // 8, file k % 8 on even ranks, 7 - k % 8 on odd.
    config = LedConfig()
    for k, square in enumerate(config.square_order()):
        rank = k // 8
        file = k % 8 if rank % 2 == 0 else 7 - k % 8
        assert square == "abcdefgh"[file] + str(rank + 1)


def test_several_leds_per_square_are_consecutive():
    config = LedConfig(size=8, leds_per_square=2)
    assert list(config.leds("a1")) == [0, 1]
    assert list(config.leds("a2")) == [30, 31]  # a2 is the 16th square of a serpentine chain
    assert config.led_count == 128


@pytest.mark.parametrize("size", range(3, 9))
@pytest.mark.parametrize("wiring", ["serpentine", "row-major"])
@pytest.mark.parametrize("axis", ["ranks", "files"])
def test_every_layout_is_a_bijection_starting_in_its_corner(size, wiring, axis):
    last = "abcdefgh"[size - 1]
    corner_square = {
        "bottom-left": "a1",
        "bottom-right": f"{last}1",
        "top-left": f"a{size}",
        "top-right": f"{last}{size}",
    }
    for corner, square in corner_square.items():
        config = LedConfig(size=size, wiring=wiring, start_corner=corner, axis=axis)
        positions = sorted(config.chain_position(sq) for sq in config.square_order())
        assert positions == list(range(size * size))
        assert config.square_order()[0] == square


def test_the_shipped_config_file_reads_as_the_defaults():
    assert load_config(DEFAULT_CONFIG_PATH) == LedConfig()


def test_config_file_is_read_and_checked(tmp_path):
    good = tmp_path / "leds.toml"
    good.write_text(
        '[board]\nsize = 6\n[chain]\nwiring = "row-major"\nstart_corner = "top-right"\n'
    )
    assert load_config(good) == LedConfig(size=6, wiring="row-major", start_corner="top-right")

    bad = tmp_path / "bad.toml"
    bad.write_text('[chain]\nstart_corner = "h8"\n')
    with pytest.raises(LayoutError, match=r"bad.toml: chain.start_corner must be one of"):
        load_config(bad)
    bad.write_text("[board]\nsise = 6\n")
    with pytest.raises(LayoutError, match=r"unknown key board\.sise"):
        load_config(bad)
    bad.write_text("[power]\nbudget_ma = 20000\n")
    with pytest.raises(
        LayoutError, match=r"power\.budget_ma must be an integer 114\.\.10000, got 20000"
    ):
        load_config(bad)
    bad.write_text("[chain]\nleds_per_square = 3\n")
    with pytest.raises(LayoutError, match="192 LEDs, more than the firmware's 128"):
        load_config(bad)
    bad.write_text("[board\n")
    with pytest.raises(LayoutError, match="not valid TOML"):
        load_config(bad)
    with pytest.raises(LayoutError, match="cannot read"):
        load_config(tmp_path / "missing.toml")

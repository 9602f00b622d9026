"""How far the light pieces stand out from the board, measured on rendered installations whose
light flats are nearly the board's colour and far from it."""

from __future__ import annotations

import pytest

from vision.contrast import LOW_CONTRAST, contrast_advice, light_flat_contrast
from vision.locate import BoardLocator
from vision.sim import Scene, random_setup, render_frame


def _contrast(seed: int, square: str = "c3") -> float:
    camera, look = random_setup(seed, 5, tilt_deg=30.0)
    empty = render_frame(Scene(5), camera, look, seed=seed).image
    frame = render_frame(Scene(5, {square: [("light", "flat")]}), camera, look, seed=seed + 1).image
    return light_flat_contrast(frame, empty, BoardLocator(5).locate(empty), square)


def test_light_flats_on_wood_of_their_colour_are_told_apart_from_ones_that_stand_out():
    close, far = _contrast(1477), _contrast(1462)  # (benchmark installations)
    assert close < LOW_CONTRAST < far
    check = contrast_advice("c3", close)
    assert not check.ok and "close to the board's colour" in check.advice[0]
    assert contrast_advice("c3", far).ok


def test_a_bare_square_against_itself_has_no_contrast():
    camera, look = random_setup(3, 5, tilt_deg=20.0)
    empty = render_frame(Scene(5), camera, look, seed=3).image
    again = render_frame(Scene(5), camera, look, seed=4).image  # other sensor noise
    pose = BoardLocator(5).locate(empty)
    assert light_flat_contrast(again, empty, pose, "b2") < 3.0
    with pytest.raises(ValueError, match="j9"):
        light_flat_contrast(again, empty, pose, "j9")

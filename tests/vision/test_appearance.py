"""Appearance signatures on rendered frames: an untouched square keeps its look, a placed piece
changes it by far more (what tracking judges plies by); a flat taken off a stack of its colour,
which its strip barely sees from above, changes its footprint."""

from __future__ import annotations

import numpy as np
import pytest

from controller.tracking.change import FOOTPRINT_FAINT_FROM, FOOTPRINT_FAINT_SPAN, footprint_changes
from vision import appearance
from vision.reader import BoardReader
from vision.sim import Scene, random_setup, render


@pytest.mark.parametrize(("seed", "size", "tilt"), [(11, 5, 5.0), (12, 6, 30.0)])
def test_a_placed_piece_changes_its_square_and_noise_changes_nothing(seed, size, tilt):
    camera, look = random_setup(seed, size, tilt_deg=tilt)
    reader = BoardReader(size)
    before = Scene(size, {"a1": [("dark", "flat")]})
    after = Scene(size, {"a1": [("dark", "flat")], "c3": [("light", "flat")]})
    for k in range(4):  # the reader learns the empty board, then sees a1 placed
        reader.read(render(Scene(size) if k < 3 else before, camera, look, seed=k, t=k / 5))
    then = reader.read(render(before, camera, look, seed=10, t=1.0))
    again = reader.read(render(before, camera, look, seed=11, t=1.2))  # same board, new noise
    now = reader.read(render(after, camera, look, seed=12, t=3.0))
    names = list(then.appearance)
    assert then.appearance["a1"].shape == (appearance.BINS + appearance.FOOTPRINT**2, 3)

    def change(a, b):
        return dict(zip(names, appearance.changes(
            np.stack([a.appearance[n] for n in names]),
            np.stack([b.appearance[n] for n in names])), strict=True))  # fmt: skip

    still = change(again, then)
    assert max(still.values()) < 0.7  # tracking's "surely not changed"
    placed = change(now, then)
    assert placed["c3"] > 1.7  # tracking's "surely changed"
    far = [n for n in names if abs(ord(n[0]) - ord("c")) > 1 or abs(int(n[1:]) - 3) > 1]
    assert max(placed[n] for n in far) < 0.7


@pytest.mark.parametrize(("seed", "size", "tilt"), [(21, 5, 3.0), (23, 6, 12.0)])
def test_a_flat_taken_off_a_stack_of_its_colour_changes_the_footprint(seed, size, tilt):
    # the played ply of fresh bench seed 2827 (tilt 5): a light flat moved from c3's stack of light
    # flats onto b3; a placement on b3 explains the strips as well
    camera, look = random_setup(seed, size, tilt_deg=tilt)
    reader = BoardReader(size)
    light, dark = ("light", "flat"), ("dark", "flat")
    stacks = {"c3": [dark, light, light], "d4": [dark], "a1": [light], "c2": [dark]}
    before = Scene(size, stacks)
    after = Scene(size, {**stacks, "c3": [dark, light], "b3": [light]})
    for k in range(3):
        reader.read(render(Scene(size), camera, look, seed=k, t=k / 5))
    for k in range(3, 6):  # the pieces come, then the board stays still
        then = reader.read(render(before, camera, look, seed=k, t=k / 5))
    again = reader.read(render(before, camera, look, seed=7, t=1.6))  # same board, new noise
    now = reader.read(render(after, camera, look, seed=8, t=3.0))

    sure = FOOTPRINT_FAINT_FROM + FOOTPRINT_FAINT_SPAN
    still = footprint_changes(again.appearance, then.appearance)
    assert max(still.values()) < FOOTPRINT_FAINT_FROM
    moved = footprint_changes(now.appearance, then.appearance)
    assert moved["c3"] > sure
    untouched = [n for n in moved if n not in ("b3", "c3")]
    assert max(moved[n] for n in untouched) < FOOTPRINT_FAINT_FROM, moved

"""Appearance signatures on rendered frames: an untouched square keeps its look, a placed piece
changes it by far more (what tracking judges plies by)."""

from __future__ import annotations

import numpy as np
import pytest

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
    assert then.appearance["a1"].shape == (appearance.BINS, 3)

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

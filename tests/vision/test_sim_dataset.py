"""The benchmark set: fixed per seed, and spread evenly over sizes, tilts and lighting."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from vision.sim.dataset import cases


def test_cases_cover_sizes_tilts_and_lighting_evenly():
    batch = list(cases(40, seed=3, hand_share=0.25))
    assert Counter(c.size for c in batch) == {4: 8, 5: 8, 6: 8, 7: 8, 8: 8}
    assert Counter(c.look.lighting for c in batch) == {
        "overhead": 10, "lamp": 10, "window": 10, "dim": 10,
    }  # fmt: skip
    tilts = np.sort([c.camera.tilt_deg for c in batch])
    assert tilts[0] < 2 and tilts[-1] > 38 and np.diff(tilts).max() < 5
    assert 4 <= sum(c.has_hand for c in batch) <= 18
    assert all(c.scene.stacks for c in batch)


def test_cases_are_the_same_every_time_and_differ_between_seeds():
    a = [(c.scene.stacks, c.camera, c.look, c.frame_seed) for c in cases(6, seed=1)]
    b = [(c.scene.stacks, c.camera, c.look, c.frame_seed) for c in cases(6, seed=1)]
    assert a == b
    other = [c.scene.stacks for c in cases(6, seed=2)]
    assert other != [s for s, *_ in a]


def test_a_case_renders_with_its_truth():
    case = next(cases(1, seed=5, sizes=(6,)))
    frame = case.render()
    assert frame.image.shape == (720, 1280, 3)
    assert sum(sq.height for sq in frame.truth.squares.values()) == sum(
        len(st) for st in case.scene.stacks.values()
    )


def test_bad_requests_are_refused():
    with pytest.raises(ValueError, match="at least one"):
        next(cases(0))
    with pytest.raises(ValueError, match="disco"):
        next(cases(3, lighting=("disco",)))

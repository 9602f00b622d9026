"""A ply as the camera sees it: the board changes only while a hand is over it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.sim import (
    Hand,
    Scene,
    SimCameraSource,
    changed_squares,
    random_setup,
    reach_and_change,
    render_frame,
)


def test_changed_squares_of_a_spread():
    before = Scene(5, {"c3": [("light", "flat"), ("dark", "flat"), ("light", "flat")]})
    after = Scene(
        5, {"c3": [("light", "flat")], "c4": [("dark", "flat")], "c5": [("light", "flat")]}
    )
    assert changed_squares(before, after) == ["c3", "c4", "c5"]


@pytest.mark.parametrize("side", ["south", "north", "east", "west"])
def test_board_changes_under_the_hand_and_is_clean_after_it_leaves(side):
    before = Scene(5, {"c3": [("light", "flat")]})
    after = before.copy()
    after.stacks["d4"] = [("dark", "flat")]
    scenes = reach_and_change(before, after, seed=7, side=side, approach=5, hold=4, leave=5)
    assert len(scenes) == 5 + 4 + 5 + 1
    camera, look = random_setup(3, 5, tilt_deg=20)
    source = SimCameraSource(Scene(5), camera.with_resolution(640, 360), look)  # quicker
    source.queue(scenes)
    seen = []
    while source.queued:
        assert source.read()[0]
        truth = source.last_truth
        seen.append(
            (truth.hand_over_board, truth.squares["d4"].empty, truth.squares["d4"].occluded)
        )
    assert not seen[0][0] and seen[0][1]  # the hand starts off the board
    switch = next(i for i, (_, empty, _) in enumerate(seen) if not empty)
    assert seen[switch][0] and seen[switch][2]  # the piece appears under the hand
    assert all(not empty for _, empty, _ in seen[switch:])
    assert seen[-1] == (False, False, False)  # the hand has gone, the new board is in view
    assert source.scene.hands == []


def test_nothing_to_reach_for_is_an_error():
    board = Scene(4, {"a1": [("dark", "flat")]})
    with pytest.raises(ValueError, match="same board"):
        reach_and_change(board, board.copy())
    with pytest.raises(ValueError, match="size"):
        reach_and_change(board, Scene(5))


def test_queue_refuses_scenes_of_another_size():
    camera, look = random_setup(0, 4)
    source = SimCameraSource(Scene(4), camera, look)
    with pytest.raises(ValueError, match="5x5"):
        source.queue([Scene(5)])


def test_a_moving_hand_is_smeared_along_its_motion():
    camera, look = random_setup(6, 5, tilt_deg=15)
    still = Hand(tip=(2.5, 2.5), from_side="east", height=1.0)
    moving = Hand(tip=(2.5, 2.5), from_side="east", height=1.0, motion=(0.0, 0.6))
    a = render_frame(Scene(5, hands=[still]), camera, look, seed=0)
    b = render_frame(Scene(5, hands=[moving]), camera, look, seed=0)

    # the streak runs along y (ranks): the blurred hand covers more rows, not more columns
    def extent(mask, axis):
        return len(np.flatnonzero(mask.any(axis=axis)))

    assert extent(b.truth.hand_mask, 1) > extent(a.truth.hand_mask, 1) + 5
    assert abs(extent(b.truth.hand_mask, 0) - extent(a.truth.hand_mask, 0)) <= 3

    # and the smear softens the hand's edges: less high-frequency energy inside it
    def sharpness(image, mask):
        lap = cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_32F)
        return float(np.abs(lap[mask]).mean())

    assert sharpness(b.image, a.truth.hand_mask) < sharpness(a.image, a.truth.hand_mask)

"""A ply as the camera sees it: the board changes only while a hand is over it."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.sim import (
    Hand,
    Scene,
    SimCameraSource,
    changed_squares,
    ground_truth,
    random_hand,
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


def test_a_carried_piece_is_part_of_the_hand_not_of_the_board():
    camera, look = random_setup(12, 6, tilt_deg=25)
    empty = render_frame(Scene(6), camera, look, seed=0)
    carried = Hand(tip=(3.0, 3.0), from_side="south", height=1.0, holding=("dark", "flat"))
    bare = replace(carried, holding=None)
    with_piece = render_frame(Scene(6, hands=[carried]), camera, look, seed=0)
    without = render_frame(Scene(6, hands=[bare]), camera, look, seed=0)
    piece_pixels = (with_piece.truth.hand_mask & ~without.truth.hand_mask).sum()
    assert piece_pixels > 200  # the piece shows beyond the fingertips, and counts as hand
    extra = with_piece.truth.hand_mask & ~without.truth.hand_mask
    shown = cv2.absdiff(empty.image, with_piece.image).max(axis=2) > 25
    assert shown[extra].mean() > 0.5  # and those pixels really show something
    under = with_piece.truth.squares["d4"]
    assert under.empty and under.occluded
    with pytest.raises(ValueError, match="holding"):
        Hand(tip=(1.0, 1.0), holding=("dark", "pawn"))


def test_a_placing_hand_carries_the_new_piece_until_it_puts_it_down():
    before = Scene(5)
    after = Scene(5, {"b2": [("light", "cap")]})
    scenes = reach_and_change(before, after, seed=1, approach=4, hold=4, leave=4)
    held = [s.hands[0].holding if s.hands else None for s in scenes]
    assert held[:6] == [("light", "cap")] * 6  # approach, then the first half of the hold
    assert all(h is None for h in held[6:])
    for scene, h in zip(scenes, held, strict=True):
        assert (h is None) == bool(scene.stacks)  # in the hand or on the board, never both


def test_resting_hands_are_in_view_but_mostly_off_the_grid():
    present = over = 0
    for seed in range(12):
        camera, _ = random_setup(seed, 6)
        scene = Scene(6)
        scene.hands.append(random_hand(np.random.default_rng(seed), scene, resting=1.0))
        truth = ground_truth(scene, camera)
        present += truth.hand_present
        over += truth.hand_over_board
        if not truth.hand_over_board:
            assert not any(sq.occluded for sq in truth.squares.values())
    assert present == 12 and over <= 3

"""Is the bare board overexposed? Measured on rendered installations and on a drawn one."""

from __future__ import annotations

import numpy as np

from vision.exposure import check_exposure, clipped_share
from vision.locate import BoardLocator
from vision.sim import Scene, random_setup, render_frame


def _empty_board(seed: int, size: int, tilt: float) -> tuple[np.ndarray, object]:
    camera, look = random_setup(seed, size, tilt_deg=tilt)
    empty = render_frame(Scene(size), camera, look, seed=seed).image
    return empty, BoardLocator(size).locate(empty)


def test_a_board_under_a_strong_glare_is_said_to_be_overexposed():
    # bench seed 1, installation 34 (6x6, tilt 4): a lamp's glare clips the wood over e1-e2,
    # where a dark flat was read light on frame after frame: nothing left there to fit
    empty, pose = _empty_board(1073517566, 6, 4.306467830495411)
    check = check_exposure(empty, pose)
    assert not check.ok and check.clipped_share > 0.05
    assert "overexposed" in check.advice[0] and "exposure down" in check.advice[0]
    assert check.as_dict()["clipped_share"] == round(check.clipped_share, 4)


def test_a_board_without_glare_is_fine():
    # installation 20 of the same set: a lamp, no clipped wood
    empty, pose = _empty_board(249968375, 6, 11.864136027990266)
    check = check_exposure(empty, pose)
    assert check.ok and check.clipped_share < 0.01
    assert check.summary().endswith("(good)")


def test_only_pixels_clipped_in_two_channels_inside_the_grid_count():
    empty, pose = _empty_board(249968375, 6, 11.864136027990266)
    before = clipped_share(empty, pose)
    x0, y0 = np.round(pose.grid_corners_img().min(axis=0)).astype(int)
    x1, y1 = np.round(pose.grid_corners_img().max(axis=0)).astype(int)
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    spot = empty.copy()
    spot[cy - 40 : cy + 40, cx - 40 : cx + 40] = (120, 250, 250)  # two channels clipped
    assert clipped_share(spot, pose) > before + 0.02
    one = empty.copy()
    one[cy - 40 : cy + 40, cx - 40 : cx + 40] = (120, 130, 250)  # one: the fit still has two
    assert clipped_share(one, pose) == before
    outside = empty.copy()
    outside[: max(y0 - 5, 1), :] = 255  # the table beyond the grid
    assert clipped_share(outside, pose) == before

"""`bench/height_patches.py` samples each square's board plane in the square's own frame, along
the line of sight away from the camera: a stack shows there where it stands, and a taller one
reaches further away from the camera by its layers' smear (the signal the experiment's net is
given; docs/vision.md, session 45)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.height_patches import ACROSS, RADIAL, board_patches, patch_maps
from vision.locate import BoardLocator
from vision.sim.look import random_setup
from vision.sim.renderer import render_frame
from vision.sim.scene import Scene
from vision.views import SquareViews

SQUARE = "c4"  # far from a 5x5 board's camera foot: a long smear


def far_end(patch: np.ndarray) -> float:
    """Where, along the line of sight, the change on the patch's middle rows ends (pitches)."""
    middle = slice(len(ACROSS) // 2 - 3, len(ACROSS) // 2 + 4)
    changed = np.abs(patch[0, middle]).mean(axis=0) > 0.15
    return float(RADIAL[np.flatnonzero(changed).max()])


def test_a_taller_stack_reaches_further_along_the_line_of_sight_by_its_layers():
    camera, look = random_setup(7, 5, tilt_deg=32.0)
    empty = render_frame(Scene(5), camera, look, seed=7).image
    pose = BoardLocator(5).locate(empty)
    views = SquareViews(pose)
    square = views.names.index(SQUARE)
    maps = patch_maps(pose, views.centres, views.radial)
    ends = {}
    for height in (1, 3):
        scene = Scene(5, {SQUARE: [("light", "flat")] * height})
        frame = render_frame(scene, camera, look, seed=8).image
        patches = board_patches(frame, empty, maps)
        assert patches.shape == (25, 3, len(ACROSS), len(RADIAL))
        piece = patches[square, 0, len(ACROSS) // 2 - 3 : len(ACROSS) // 2 + 4]
        on_piece = np.abs(piece[:, np.abs(RADIAL) < 0.2]).mean()
        bare = np.abs(patches[views.names.index("a1"), 0]).mean()  # an empty square
        assert on_piece > 5 * bare, (height, on_piece, bare)
        ends[height] = far_end(patches[square])
    cam = pose.camera_in_board
    tan_view = np.linalg.norm(views.centres[square] - cam[:2]) / cam[2]
    assert views.tan_view[square] == pytest.approx(tan_view, rel=1e-5)  # (what the bench feeds)
    two_layers = 2 * 0.15 * tan_view  # pitches on the board plane
    assert abs((ends[3] - ends[1]) - two_layers) < 0.06, (ends, two_layers)

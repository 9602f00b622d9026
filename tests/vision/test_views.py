"""What the square classifier is given (`vision.views`): sampling only the part of the frame it
needs, and the empty model's samples kept from frame to frame, must change nothing it sees."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.locate import BoardLocator
from vision.sim import Scene, random_scene, random_setup, render_frame
from vision.views import PLANE_SHAPE, SquareViews, _remap, warp_to_board


@pytest.mark.parametrize(("seed", "size", "tilt"), [(3, 5, 30.0), (8, 7, 5.0)])
def test_blurring_only_the_grid_s_box_samples_as_the_whole_blurred_frame(seed, size, tilt):
    camera, look = random_setup(seed, size, tilt_deg=tilt)
    frame = render_frame(random_scene(seed, size), camera, look, seed=seed).image
    pose = BoardLocator(size).locate(frame)
    views = SquareViews(pose)
    empty = warp_to_board(render_frame(Scene(size), camera, look, seed=seed).image, pose)
    (x0, y0), (x1, y1) = views._blur_origin, views._blur_end
    assert (x1 - x0) * (y1 - y0) < frame.shape[0] * frame.shape[1]  # a part of the frame only
    pf, _, _, _ = views.sample(frame, empty)
    fx, fy, _, _ = views._plane_maps
    whole = _remap(cv2.blur(frame, (views.blur, views.blur)), fx, fy)
    assert np.array_equal(pf, whole.reshape(pf.shape))


def test_the_empty_model_s_samples_are_taken_again_only_when_the_model_changes():
    camera, look = random_setup(4, 6, tilt_deg=20.0)
    frame = render_frame(random_scene(4, 6), camera, look, seed=4).image
    pose = BoardLocator(6).locate(frame)
    views = SquareViews(pose)
    empty = warp_to_board(render_frame(Scene(6), camera, look, seed=4).image, pose)
    _, pe, _, ve = views.sample(frame, empty)
    _, pe_again, _, ve_again = views.sample(frame, empty)
    assert pe_again is pe and ve_again is ve  # kept: the same model
    brighter = empty * np.float32(1.2)  # a new model (start-up frames averaged in, a bump)
    _, pe_new, _, _ = views.sample(frame, brighter)
    assert pe_new.shape == (len(views.names), *PLANE_SHAPE)
    assert np.allclose(pe_new, pe * 1.2, rtol=1e-4, atol=0.01)  # sampled from the new one

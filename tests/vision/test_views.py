"""What the square classifier is given (`vision.views`): sampling only the part of the frame it
needs, and the empty model's samples kept from frame to frame, must change nothing it sees."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.geometry import FLAT_THICKNESS
from vision.locate import BoardLocator
from vision.sim import Scene, random_scene, random_setup, render_frame
from vision.sim.renderer import piece_offset
from vision.squares import radial_frames
from vision.views import GRID, PLANE_HEIGHTS, PLANE_SHAPE, SquareViews, _remap, warp_to_board


@pytest.mark.parametrize(("seed", "size", "tilt"), [(3, 5, 30.0), (8, 7, 5.0)])
def test_blurring_only_the_grid_s_box_samples_as_the_whole_blurred_frame(seed, size, tilt):
    camera, look = random_setup(seed, size, tilt_deg=tilt)
    frame = render_frame(random_scene(seed, size), camera, look, seed=seed).image
    pose = BoardLocator(size).locate(frame)
    views = SquareViews(pose)
    empty = warp_to_board(render_frame(Scene(size), camera, look, seed=seed).image, pose)
    (x0, y0), (x1, y1) = views._blur_origin, views._blur_end
    assert (x1 - x0) * (y1 - y0) < frame.shape[0] * frame.shape[1]  # a part of the frame only
    pf, _, _, _, _ = views.sample(frame, empty)
    fx, fy, _, _ = views._plane_maps
    whole = _remap(cv2.blur(frame, (views.blur, views.blur)), fx, fy)
    assert np.array_equal(pf, whole.reshape(pf.shape))


def test_the_empty_model_s_samples_are_taken_again_only_when_the_model_changes():
    camera, look = random_setup(4, 6, tilt_deg=20.0)
    frame = render_frame(random_scene(4, 6), camera, look, seed=4).image
    pose = BoardLocator(6).locate(frame)
    views = SquareViews(pose)
    empty = warp_to_board(render_frame(Scene(6), camera, look, seed=4).image, pose)
    _, pe, _, ve, _ = views.sample(frame, empty)
    _, pe_again, _, ve_again, _ = views.sample(frame, empty)
    assert pe_again is pe and ve_again is ve  # kept: the same model
    brighter = empty * np.float32(1.2)  # a new model (start-up frames averaged in, a bump)
    _, pe_new, _, _, _ = views.sample(frame, brighter)
    assert pe_new.shape == (len(views.names), *PLANE_SHAPE)
    assert np.allclose(pe_new, pe * 1.2, rtol=1e-4, atol=0.01)  # sampled from the new one


def test_the_edge_channel_weighs_an_edge_the_same_whichever_way_it_runs():
    """A square's mirror image must give the mirrored samples (the classifier is trained with that
    symmetry), so an edge across the line of sight at an angle must weigh what a straight one
    does: a step edge at 0-135 degrees, its strength read on the edge."""
    camera, look = random_setup(3, 5, tilt_deg=30.0)
    pose = BoardLocator(5).locate(render_frame(Scene(5), camera, look, seed=3).image)
    views = SquareViews(pose)
    yy, xx = np.mgrid[0:241, 0:241].astype(np.float32) - 120
    at = np.array([[120.0]], np.float32)
    strengths = []
    for angle in np.radians([0, 20, 30, 45, 60, 90, 135]):
        across = xx * np.cos(angle) + yy * np.sin(angle)
        grey = np.where(across > 0, 160, 60).astype(np.uint8)
        strengths.append(float(views._edges(cv2.merge([grey] * 3), at, at)[0, 0]))
    assert min(strengths) > 0.88 * max(strengths), strengths
    flat = np.full((241, 241, 3), 110, np.uint8)
    assert float(views._edges(flat, at, at)[0, 0]) == 0.0  # no edge, no strength


def test_a_view_moved_onto_an_off_centre_piece_shows_the_piece_centred():
    """`SquareViews(pose, shifts)` moves each square's frame (bench/vision_centring.py reads views
    centred on the piece): lone light flats pushed well off their squares' centres, where
    `piece_offset` says the renderer put them, sit about the middle of the top face's plane in
    the moved views, and off it in the squares' own."""
    camera, look = random_setup(11, 5, tilt_deg=30.0)
    look = dataclasses.replace(look, jitter=0.1)
    pose = BoardLocator(5).locate(render_frame(Scene(5), camera, look, seed=11).image)
    names = radial_frames(pose)[0]
    offsets = np.array([piece_offset(look, name, 0) for name in names])
    far_off = [names[i] for i in np.argsort(-np.hypot(*offsets.T))[:4]]  # the four farthest
    scene = Scene(5, {name: [("light", "flat")] for name in far_off})
    frame = render_frame(scene, camera, look, seed=11).image
    empty = warp_to_board(render_frame(Scene(5), camera, look, seed=11).image, pose)
    top = int(np.argmin(np.abs(PLANE_HEIGHTS - FLAT_THICKNESS)))  # the plane of a flat's top

    def off_middle(views: SquareViews, name: str) -> float:
        """How far (pitches) the middle of the bright top face is from the view's middle."""
        features = views.features(views.sample(frame, empty))[views.names.index(name)]
        brighter = features[: int(np.prod(PLANE_SHAPE))].reshape(PLANE_SHAPE)[top, :, :, 0]
        face = brighter > 0.5 * brighter.max()
        rows, cols = np.nonzero(face)
        return float(np.hypot(GRID[rows].mean(), GRID[cols].mean()))

    plain = SquareViews(pose)
    moved = SquareViews(pose, offsets * np.isin(names, far_off)[:, None])
    for name in far_off:
        assert np.hypot(*offsets[names.index(name)]) > 0.08  # well off centre
        assert off_middle(moved, name) < 0.6 * off_middle(plain, name), name

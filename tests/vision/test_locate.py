"""Board localisation on rendered frames: markers across tilts, given corners, bumps, bad frames."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision import geometry
from vision.locate import BoardLocator, BoardNotFoundError, parse_corners
from vision.reader import BoardReader
from vision.sim import Scene, random_scene, random_setup, render_frame


def _frame(seed: int, size: int, tilt: float, scene: Scene | None = None):
    camera, look = random_setup(seed, size, tilt_deg=tilt)
    frame = render_frame(scene or Scene(size), camera, look, seed=seed)
    return camera, look, frame


@pytest.mark.parametrize(("size", "tilt"), [(4, 0.0), (5, 20.0), (6, 33.0), (8, 40.0)])
def test_markers_locate_the_grid_within_two_pixels_at_any_tilt(size, tilt):
    camera, _, frame = _frame(11 + size, size, tilt)
    pose = BoardLocator(size).locate(frame.image)
    err = np.abs(pose.grid_corners_img() - frame.truth.grid_corners_img).max()
    assert err < 2.0
    assert pose.source == "markers"
    assert abs(pose.tilt_deg - camera.tilt_deg) < 2.0
    # The camera position is what the 3D reading rests on. Straight down, a plane cannot tell
    # the focal length and a typical field of view stands in: looser there.
    tolerance = 0.05 if tilt >= 15 else 0.2
    assert pose.focal_estimated == (tilt >= 15)
    assert np.linalg.norm(pose.camera_in_board - camera.centre) < tolerance * camera.centre[2]


def test_given_corners_locate_a_board_without_markers():
    size = 6
    _, _, frame = _frame(5, size, 25.0)
    nudge = np.array([[0.6, -0.4], [-0.5, 0.3], [0.2, 0.5], [-0.3, -0.6]])
    corners = frame.truth.grid_corners_img + nudge
    pose = BoardLocator(size, corners=corners).locate(frame.image)
    assert pose.source == "corners"
    assert np.abs(pose.grid_corners_img() - frame.truth.grid_corners_img).max() < 1.5


def test_parse_corners_reads_four_pairs_and_quotes_bad_input():
    pts = parse_corners("10,20 300,20 300,200 10,200")
    assert pts.shape == (4, 2)
    with pytest.raises(ValueError, match="four 'x,y' pairs"):
        parse_corners("1,2 3,4")
    with pytest.raises(ValueError, match="'3,x' is not numeric"):
        parse_corners("1,2 3,x 5,6 7,8")
    with pytest.raises(ValueError, match="convex"):
        parse_corners("0,0 100,100 100,0 0,100")


def test_blank_frame_raises_with_a_reason():
    with pytest.raises(BoardNotFoundError, match="blank or too dark"):
        BoardLocator(5).locate(np.zeros((720, 1280, 3), np.uint8))


def test_covered_markers_are_reported_by_count():
    size = 5
    _, _, frame = _frame(3, size, 20.0)
    image = frame.image.copy()
    for marker_id in (0, 1):
        quad = np.round(frame.truth.marker_corners_img[marker_id]).astype(np.int32)
        cv2.fillConvexPoly(image, quad, (90, 120, 160))
    with pytest.raises(BoardNotFoundError, match="2 of 4 markers"):
        BoardLocator(size).locate(image)


def test_reader_relocalises_after_a_bump_and_says_so_once():
    size = 6
    camera, look = random_setup(21, size, tilt_deg=30.0)
    scene = random_scene(4, size)
    reader = BoardReader(size)
    first = reader.read(render_frame(Scene(size), camera, look, seed=1).image)
    assert first.board_found and not first.relocalised
    steady = reader.read(render_frame(scene, camera, look, seed=2).image)
    assert steady.board_found and not steady.relocalised

    knocked = dataclasses.replace(camera, yaw_deg=camera.yaw_deg + 2.0, target=(3.1, 2.9))
    frame = render_frame(scene, knocked, look, seed=3)
    after = reader.read(frame.image)
    assert after.board_found and after.relocalised and after.squares
    err = np.abs(reader.pose.grid_corners_img() - frame.truth.grid_corners_img).max()
    assert err < 2.0
    again = reader.read(render_frame(scene, knocked, look, seed=4).image)
    assert again.board_found and not again.relocalised


def test_dark_and_blurred_frames_give_flagged_readings_not_crashes():
    size = 5
    camera, look = random_setup(8, size, tilt_deg=15.0)
    reader = BoardReader(size)
    reader.read(render_frame(Scene(size), camera, look, seed=1).image)
    dark = reader.read(np.full((720, 1280, 3), 3, np.uint8))
    assert not dark.board_found and dark.reason and not dark.squares
    sharp = render_frame(random_scene(2, size), camera, look, seed=2).image
    smeared = cv2.GaussianBlur(sharp, (0, 0), 25)
    blurred = BoardReader(size).read(smeared)
    assert not blurred.board_found and "markers" in blurred.reason
    assert blurred.to_json()["squares"] == {}


def test_marker_geometry_matches_the_contract():
    # the locator's model must be the contract's, not a copy of it
    assert geometry.marker_corners(5, 0)[3].tolist() == [-0.7, -0.7]

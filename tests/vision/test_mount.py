"""The camera mount check: the angle and square size measured from rendered frames, the advice."""

from __future__ import annotations

import json

import cv2
import pytest

from controller.cli import main as takboard
from vision.locate import BoardLocator
from vision.mount import check_mount, smallest_square_px, view_angle_deg
from vision.sim import Scene, random_setup, render_frame


def _pose(seed: int, size: int, tilt: float, width: int = 1280, height: int = 720):
    camera, look = random_setup(seed, size, tilt_deg=tilt)
    camera = camera.with_resolution(width, height)
    frame = render_frame(Scene(size), camera, look, seed=seed).image
    return BoardLocator(size).locate(frame), frame


@pytest.mark.parametrize("tilt", [3.0, 17.0, 33.0])
def test_the_angle_is_measured_from_the_markers_within_a_few_degrees(tilt):
    pose, _ = _pose(31, 6, tilt)
    assert view_angle_deg(pose) == pytest.approx(tilt, abs=2.0)


def test_a_camera_looking_straight_down_is_told_to_lean_back():
    check = check_mount(_pose(5, 5, 3.0)[0])
    assert not check.ok
    assert "straight down" in check.advice[0] and "20-30 deg" in check.advice[0]


def test_a_camera_at_the_advised_angle_is_fine():
    check = check_mount(_pose(5, 5, 25.0)[0])
    assert check.ok, check.advice
    assert check.summary().endswith("(good)")
    assert 20 <= check.as_dict()["view_angle_deg"] <= 30


def test_a_board_far_too_small_in_the_frame_is_told_to_come_closer():
    """An 8x8 board at 640x360 leaves its far squares about 25 px across."""
    pose, _ = _pose(5, 8, 25.0, width=640, height=360)
    assert smallest_square_px(pose) < 36
    check = check_mount(pose)
    assert [a for a in check.advice if "bring the camera closer" in a]


def test_the_square_size_is_that_of_the_farthest_square():
    pose, _ = _pose(8, 4, 35.0)
    near = pose.project([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]])  # a1: nearest the camera
    width = abs(near[1][0] - near[0][0])
    assert smallest_square_px(pose) < 0.95 * width


def test_vision_read_says_where_the_camera_is(tmp_path, capsys):
    _, frame = _pose(7, 5, 4.0)
    image = tmp_path / "steep.png"
    cv2.imwrite(str(image), frame)
    assert takboard(["vision", "read", str(image), "--size", "5"]) == 0
    out = capsys.readouterr().out
    assert "camera 4 deg from vertical" in out and "lean it 20-30 deg" in out
    assert takboard(["vision", "read", str(image), "--size", "5", "--json"]) == 0
    camera = json.loads(capsys.readouterr().out)["camera"]
    assert camera["view_angle_deg"] == pytest.approx(4.0, abs=2.0)
    assert camera["square_px"] > 40 and len(camera["advice"]) == 1

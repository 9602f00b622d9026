"""Frame sources: folders, video files, the simulator, and clear errors for what is not there."""

from __future__ import annotations

import builtins

import cv2
import numpy as np
import pytest

from vision.sim import Scene, SimCameraSource, random_setup
from vision.sources import (
    FrameSource,
    FrameSourceError,
    ImageFolderSource,
    open_source,
)


def numbered_frame(k: int, shape=(48, 64)) -> np.ndarray:
    """A frame whose identity survives lossy compression: its grey level is 20 * k."""
    return np.full((*shape, 3), 20 * k, np.uint8)


def test_folder_is_read_in_file_name_order_with_numbers_as_numbers(tmp_path):
    for k in (1, 2, 10, 3):
        cv2.imwrite(str(tmp_path / f"frame{k}.png"), numbered_frame(k))
    (tmp_path / "notes.txt").write_text("not an image")
    source = open_source(str(tmp_path))
    assert isinstance(source, ImageFolderSource) and isinstance(source, FrameSource)
    levels = [int(frame[0, 0, 0]) // 20 for frame in source.frames()]
    assert levels == [1, 2, 3, 10]
    assert source.ended and "end of folder" in source.error
    assert source.read() == (False, None)


def test_folder_with_a_broken_image_names_it(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), numbered_frame(1))
    (tmp_path / "b.png").write_bytes(b"\x89PNG but not really")
    source = open_source(str(tmp_path))
    assert source.read()[0]
    ok, frame = source.read()
    assert not ok and frame is None
    assert "b.png" in source.error and not source.ended


def test_empty_folder_is_an_error(tmp_path):
    with pytest.raises(FrameSourceError, match="no image files"):
        open_source(str(tmp_path))


def test_video_file_gives_its_frames_then_ends(tmp_path):
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened()
    for k in range(1, 6):
        writer.write(numbered_frame(k))
    writer.release()
    source = open_source(str(path))
    frames = list(source.frames())
    assert len(frames) == 5
    assert [round(f.mean() / 20) for f in frames] == [1, 2, 3, 4, 5]
    assert source.ended and "after 5 frames" in source.error
    source.release()


def test_a_file_that_is_not_a_video_is_refused(tmp_path):
    path = tmp_path / "game.mp4"
    path.write_text("this is not a video")
    with pytest.raises(FrameSourceError, match="cannot decode"):
        open_source(str(path))


def test_single_image_is_one_frame(tmp_path):
    path = tmp_path / "board.jpg"
    cv2.imwrite(str(path), numbered_frame(4))
    source = open_source(str(path))
    assert source.read()[0]
    assert source.read() == (False, None) and source.ended


def test_missing_camera_and_paths_raise_naming_them():
    with pytest.raises(FrameSourceError, match="/dev/video97: no such device"):
        open_source("/dev/video97")
    with pytest.raises(FrameSourceError, match=r"nowhere\.mp4"):
        open_source("/tmp/takboard-test/nowhere.mp4")
    with pytest.raises(FrameSourceError, match="empty"):
        open_source("  ")


def test_missing_picamera2_is_an_error_not_a_fallback(monkeypatch):
    real_import = builtins.__import__

    def no_picamera(name, *args, **kwargs):
        if name == "picamera2":
            raise ImportError("No module named 'picamera2'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_picamera)
    with pytest.raises(FrameSourceError, match="picamera2 package is not installed"):
        open_source("picamera")
    with pytest.raises(FrameSourceError, match="WIDTHxHEIGHT"):
        open_source("picamera:big")


def test_sim_source_string_renders_frames_with_truth():
    source = open_source("sim:size=5:seed=3:tilt=20:pieces=12")
    ok, frame = source.read()
    assert ok and frame.shape == (720, 1280, 3) and frame.dtype == np.uint8
    truth = source.last_truth
    assert truth.size == 5 and truth.squares
    assert sum(sq.height for sq in truth.squares.values()) == 12
    assert abs(source.camera.tilt_deg - 20) < 1e-9


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("sim:size=12", "size 12 is outside 3..8"),
        ("sim:colour=red", "unknown option"),
        ("sim:size", "not key=value"),
        ("sim:seed=abc", "abc"),
        ("sim:tilt=75", "tilt 75"),
    ],
)
def test_bad_sim_strings_say_what_is_wrong(spec, message):
    with pytest.raises(FrameSourceError, match=message):
        open_source(spec)


def test_sim_source_follows_scene_changes_and_drifts_with_its_clock():
    camera, look = random_setup(4, 4, tilt_deg=15)
    now = [0.0]
    source = SimCameraSource(Scene(4), camera, look, clock=lambda: now[0])
    ok, empty = source.read()
    source.scene = Scene(4, {"b2": [("dark", "flat")]})
    ok, placed = source.read()
    assert ok and source.last_truth.squares["b2"].color == "dark"
    centre = np.round(camera.project(np.array([1.5, 1.5, 0.15]))).astype(int)
    assert np.abs(placed.astype(int) - empty.astype(int))[centre[1], centre[0]].max() > 30
    source.scene = Scene(4)
    now[0] = look.drift_period_s / 4
    ok, later = source.read()
    assert abs(later.mean() - empty.mean()) > 0.5  # the light moved
    source.release()
    assert source.read() == (False, None) and "closed" in source.error

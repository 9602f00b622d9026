"""`takboard doctor`: says what is fine and what to fix, against the real emulated LED firmware."""

from __future__ import annotations

import pytest

from controller.cli import main
from controller.leds.emulator import EmulatedBoard


def test_missing_camera_and_serial_port_are_named_with_a_fix(tmp_path, capsys):
    status = main(["doctor", "--data", str(tmp_path), "--camera", "/dev/video77",
                   "--serial", "/dev/ttyUSB77"])
    out = capsys.readouterr().out
    assert status == 1
    assert "FIX  camera" in out and "/dev/video77: no such device" in out
    assert "/dev/ttyUSB77: no such device" in out and "ls /dev/ttyUSB*" in out
    assert "ok   disk" in out
    assert "2 thing(s) to fix" in out


@pytest.mark.slow
def test_firmware_version_is_read_from_the_board(tmp_path, capsys):
    with EmulatedBoard() as board:
        status = main(["doctor", "--data", str(tmp_path), "--camera", "none",
                       "--serial", board.port, "--timeout", "10"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "ok   firmware" in out and "protocol" in out


def test_a_port_with_no_firmware_behind_it_says_how_to_flash(tmp_path, capsys):
    status = main(["doctor", "--data", str(tmp_path), "--camera", "none",
                   "--serial", "loop://", "--timeout", "1"])
    out = capsys.readouterr().out
    assert status == 1
    assert "FIX  firmware" in out and "avrdude" in out


def test_the_camera_mount_is_judged_from_a_frame_it_gives(tmp_path, capsys):
    """A camera straight above the board: found, and told to lean back (advice, not a failure);
    a frame with no board in it says how to put it in view."""
    import cv2
    import numpy as np

    from vision.sim import Scene, random_setup, render_frame

    camera, look = random_setup(4, 5, tilt_deg=3.0)
    steep = tmp_path / "steep.png"
    cv2.imwrite(str(steep), render_frame(Scene(5), camera, look, seed=4).image)
    status = main(["doctor", "--data", str(tmp_path), "--camera", str(steep), "--size", "5",
                   "--serial", "none"])
    out = capsys.readouterr().out
    assert status == 0, out  # nothing needed is wrong
    assert "FIX  camera mount  camera 3 deg from vertical" in out
    assert "-> the camera looks almost straight down" in out and "lean it 20-30 deg" in out

    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 90, np.uint8))
    assert main(["doctor", "--data", str(tmp_path), "--camera", str(blank), "--size", "5",
                 "--serial", "none"]) == 0
    out = capsys.readouterr().out
    assert "FIX  camera mount  5x5 board not found in the frame" in out and "markers" in out

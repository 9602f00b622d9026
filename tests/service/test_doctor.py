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

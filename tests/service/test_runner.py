"""Choosing the hardware: "auto" finds it, and with nothing attached the board simulates itself."""

from __future__ import annotations

import json
import logging

from controller.service.config import Settings
from controller.service.logs import JsonFormatter
from controller.service.runner import resolve_hardware


def test_nothing_attached_means_the_simulated_board(caplog):
    s = resolve_hardware(Settings(), cameras=[], ports=[])
    assert (s.sim, s.camera, s.serial) == (True, "sim", "sim")
    assert "running the simulated board" in caplog.text


def test_found_hardware_is_used_and_a_missing_half_is_left_out():
    s = resolve_hardware(Settings(), cameras=["/dev/video0"], ports=[])
    assert (s.sim, s.camera, s.serial) == (False, "/dev/video0", "none")
    s = resolve_hardware(Settings(), cameras=[], ports=["/dev/takboard-leds"])
    assert (s.sim, s.camera, s.serial) == (False, "none", "/dev/takboard-leds")


def test_sim_simulates_only_what_was_not_named():
    s = resolve_hardware(Settings(sim=True, serial="/dev/ttyUSB0"), cameras=[], ports=[])
    assert (s.camera, s.serial) == ("sim", "/dev/ttyUSB0")


def test_named_devices_are_never_replaced_by_the_simulator():
    s = resolve_hardware(Settings(camera="/dev/video3", serial="none"), cameras=[], ports=[])
    assert (s.sim, s.camera, s.serial) == (False, "/dev/video3", "none")


def test_logs_are_one_json_object_per_line_with_extra_fields():
    record = logging.LogRecord("controller.service.board", logging.WARNING, __file__, 1,
                               "desync on %s", ("c3",), None)
    record.game_id = 7
    line = JsonFormatter().format(record)
    data = json.loads(line)
    assert data["level"] == "warning" and data["msg"] == "desync on c3"
    assert data["logger"] == "controller.service.board" and data["game_id"] == 7

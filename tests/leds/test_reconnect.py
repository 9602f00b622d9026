"""Reconnect policy: backoff steps and log levels, checked without sleeping."""

from __future__ import annotations

import logging

from controller.leds.reconnect import Backoff, ReconnectLog


def test_backoff_doubles_up_to_its_cap_and_resets_after_success():
    backoff = Backoff(initial=0.05, factor=2, cap=0.5)
    assert [backoff.next_delay() for _ in range(6)] == [0.05, 0.1, 0.2, 0.4, 0.5, 0.5]
    backoff.reset()
    assert backoff.next_delay() == 0.05


def test_first_failure_warns_then_repeats_are_debug_and_recovery_is_info(caplog):
    caplog.set_level(logging.DEBUG, logger="controller.leds.link")
    reconnect = ReconnectLog("/dev/ttyUSB0")
    for _ in range(3):
        reconnect.failed(OSError("no such file"))
    reconnect.connected("firmware 1.0.0")
    levels = [r.levelno for r in caplog.records]
    assert levels == [logging.WARNING, logging.DEBUG, logging.DEBUG, logging.INFO]
    assert "/dev/ttyUSB0" in caplog.records[0].getMessage()
    assert "back after 3 failed attempts" in caplog.records[-1].getMessage()
    reconnect.failed(OSError("gone again"))
    assert caplog.records[-1].levelno == logging.WARNING

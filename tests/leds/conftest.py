"""Fixtures: the real firmware on an emulated board (simavr by default), one per test module."""

from __future__ import annotations

import os

import pytest

from controller.leds.emulator import EmulatedBoard, build, simavr_available

# TAKBOARD_LED_BOARD=host runs the same tests on the host build of the firmware core (no simavr)
KIND = os.environ.get("TAKBOARD_LED_BOARD", "sim" if simavr_available() else "host")


@pytest.fixture(scope="session")
def firmware_built():
    build(KIND, 250000)
    return KIND


@pytest.fixture
def board(firmware_built, tmp_path):
    emulated = EmulatedBoard(kind=firmware_built, workdir=tmp_path, build_first=False)
    emulated.start()
    try:
        yield emulated
    finally:
        emulated.close()

"""Fixtures: the real firmware on an emulated board (simavr by default), one per test module."""

from __future__ import annotations

import pytest
from board_kind import KIND

from controller.leds.emulator import EmulatedBoard, build


@pytest.fixture(scope="session")
def firmware_built():
    build(KIND, 500000)
    return KIND


@pytest.fixture
def board(firmware_built, tmp_path):
    emulated = EmulatedBoard(kind=firmware_built, workdir=tmp_path, build_first=False)
    emulated.start()
    try:
        yield emulated
    finally:
        emulated.close()

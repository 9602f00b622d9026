"""Builds the firmware once per session (make is incremental) and hands out the host twin."""

from __future__ import annotations

import shutil

import fw_harness as fw
import pytest


@pytest.fixture(scope="session")
def host_build() -> None:
    fw.make("host", "build/unit-tests")


@pytest.fixture(scope="session")
def sim_build() -> None:
    if shutil.which("avr-gcc") is None:
        pytest.fail("avr-gcc is missing: install gcc-avr avr-libc (bootstrap.sh lists them)")
    fw.make("sim")


@pytest.fixture
def host(host_build):
    script = fw.HostScript()
    yield script
    script.close()

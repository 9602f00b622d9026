"""Which emulated board the LED tests run on (imported by conftest.py and the tests)."""

from __future__ import annotations

import os

from controller.leds.emulator import simavr_available

# TAKBOARD_LED_BOARD=host runs the same tests on the host build of the firmware core (no simavr)
KIND = os.environ.get("TAKBOARD_LED_BOARD", "sim" if simavr_available() else "host")

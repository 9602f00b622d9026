"""The push button on the board's edge: the real link against the real firmware on the emulated
board, the button pressed through the emulator (the bridge drives the AVR's PD2 pin, or the host
build's button input).
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from board_kind import KIND

from controller.leds.emulator import EmulatedBoard
from controller.leds.frame import Colour, LedFrame, Light
from controller.leds.layout import LedConfig
from controller.leds.link import ButtonPress, LedLink, LinkState
from controller.leds.protocol import InputState

REPO = Path(__file__).resolve().parents[2]
CONFIG5 = LedConfig(size=5)
# The last commit whose firmware is 1.0.0 (before GET_INPUT): what a board flashed earlier runs.
FIRMWARE_1_0 = "ccc200cb1dc756f95b036d0a4e1daf09c362addc"


class Presses:
    """Collects on_button calls (made from the link's worker thread)."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, ButtonPress]] = []
        self._cond = threading.Condition()

    def __call__(self, press: ButtonPress) -> None:
        with self._cond:
            self.calls.append((time.monotonic(), press))
            self._cond.notify_all()

    def wait(self, count: int, timeout: float = 5.0) -> list[ButtonPress]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.calls) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{len(self.calls)} presses reported, wanted {count}")
                self._cond.wait(left)
            return [press for _, press in self.calls]

    def still(self, seconds: float) -> int:
        """How many calls there are after `seconds` more (to show that none arrives)."""
        time.sleep(seconds)
        with self._cond:
            return len(self.calls)


def press_and_release(board: EmulatedBoard, hold: float = 0.1) -> None:
    board.press_button()
    time.sleep(hold)
    board.release_button()


# For the tests that count the link's errors: the emulated board falls behind wall time on a busy
# machine (simavr runs no faster than real time and does not catch up), and a reply later than the
# link's 250 ms counts as an error that has nothing to do with the button (seen once: "while
# sending HELLO: no reply within 250 ms" with two recordings running beside the suite)
PATIENT = {"reply_timeout": 2.0}


def ready_link(board: EmulatedBoard, presses: Presses, **kw) -> LedLink:
    link = LedLink(board.port, config=CONFIG5, on_button=presses, **kw).start()
    assert link.wait_ready(10)
    return link


def test_one_press_is_one_callback_and_a_held_button_counts_once(board):
    presses = Presses()
    with ready_link(board, presses, **PATIENT) as link:
        assert link.health().button == "present"
        press_and_release(board)
        (first,) = presses.wait(1)
        assert first.number == 1
        board.press_button()  # held for 1.5 s: several polls see it down
        time.sleep(1.5)
        assert link.health().button_down is True
        board.release_button()
        time.sleep(0.6)
        health = link.health()
    assert [p.number for p in presses.wait(2)] == [1, 2]
    assert presses.still(0) == 2
    assert (health.button_presses, health.button_down, health.errors) == (2, False, 0)
    assert health.as_dict()["button"] == "present"


@pytest.mark.skipif(KIND != "sim", reason="bounce needs simulated time (simavr)")
def test_a_bouncing_contact_is_one_press(board):
    presses = Presses()
    with ready_link(board, presses):
        # 9 edges 1.5 ms apart on make (the last one closed, and it stays), then on break 7 edges
        board.bounce_button("101010101", every_us=1500)
        time.sleep(0.4)
        board.bounce_button("0101010", every_us=2000)
        presses.wait(1)
        assert presses.still(0.8) == 1


def test_a_press_before_the_link_listened_is_not_reported(board):
    press_and_release(board)  # nobody connected yet
    time.sleep(0.2)
    presses = Presses()
    with ready_link(board, presses) as link:
        assert presses.still(0.8) == 0
        assert link.health().button_presses == 0
        press_and_release(board)
        presses.wait(1)


@pytest.mark.skipif(KIND != "sim", reason="only simavr can reset the AVR in place")
def test_a_firmware_reset_restarts_its_counter_without_a_phantom_press(board):
    presses = Presses()
    with ready_link(board, presses, keepalive=0.3) as link:
        link.show_blocking(LedFrame(5, {"a1": Light.solid(Colour(0, 0, 200))}), timeout=5)
        for _ in range(3):
            press_and_release(board)
            time.sleep(0.35)
        presses.wait(3)
        mark = board.mark()
        board.reset()  # counter 3 -> 0 behind the link's back, the port stays open
        board.wait_for_leds(lambda lt: lt.led_count == 25 and lt.rgb(0) == (0, 0, 200),
                            timeout=5, after=mark)  # the link noticed and restored the frame
        assert presses.still(0.6) == 3
        press_and_release(board)
        assert [p.number for p in presses.wait(4)] == [1, 2, 3, 4]
        assert presses.still(0.6) == 4
        assert link.state is LinkState.READY


def test_a_restarted_board_process_reconnects_without_a_phantom_press(board):
    presses = Presses()
    with ready_link(board, presses) as link:
        for _ in range(2):
            press_and_release(board)
            time.sleep(0.35)
        presses.wait(2)
        board.kill()  # the cable pulled and plugged back: a fresh firmware, counter 0
        board.start()
        deadline = time.monotonic() + 10
        while link.health().reconnects < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert link.health().reconnects == 1
        assert presses.still(0.6) == 2
        press_and_release(board)
        assert [p.number for p in presses.wait(3)] == [1, 2, 3]


def test_restart_arithmetic_never_invents_presses():
    """The cases a poll can meet, with the link's own rule (clock and counter both wrap)."""
    new = LedLink._new_presses

    def state(presses: int, uptime: int) -> InputState:
        return InputState(presses, False, False, uptime)

    assert new(state(5, 10_000), 0.0, state(6, 10_250), 0.25) == 1  # a press
    assert new(state(65535, 10_000), 0.0, state(0, 10_250), 0.25) == 1  # the counter wraps
    assert new(state(7, 2**32 - 100), 0.0, state(8, 150), 0.25) == 1  # the clock wraps
    assert new(state(9, 600_000), 0.0, state(0, 120), 0.25) == 0  # reset, no press since
    assert new(state(9, 600_000), 0.0, state(1, 120), 0.25) == 1  # reset, one press since
    assert new(state(3, 100), 0.0, state(0, 300), 0.5) == 0  # reset right after boot
    assert new(state(3, 100), 0.0, state(2, 300), 0.5) == 2  # ... and two presses since
    assert new(state(0, 100), 0.0, state(500, 350), 0.25) <= 7  # never more than can happen


@pytest.fixture(scope="module")
def firmware_1_0(tmp_path_factory) -> Path:
    """The 1.0.0 firmware (no GET_INPUT), built from the repository's history."""
    if shutil.which("git") is None:
        pytest.skip("git is needed to rebuild firmware 1.0.0 from history")
    have = subprocess.run(
        ["git", "-C", str(REPO), "cat-file", "-e", f"{FIRMWARE_1_0}^{{commit}}"],
        capture_output=True,
    )
    if have.returncode != 0:
        pytest.skip(f"commit {FIRMWARE_1_0[:8]} (firmware 1.0.0) is not in this clone")
    root = tmp_path_factory.mktemp("firmware-1.0")
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", FIRMWARE_1_0, "firmware"],
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
    target = "host" if KIND == "host" else "all"
    subprocess.run(["make", "-s", "-C", str(root / "firmware"), target], check=True,
                   capture_output=True, timeout=300)
    build = root / "firmware" / "build"
    return build / "takboard-host" if KIND == "host" else build / "avr-500000" / "takboard.elf"


def test_firmware_1_0_has_no_button_and_costs_no_errors(firmware_built, firmware_1_0, tmp_path,
                                                         caplog):
    caplog.set_level(logging.DEBUG, logger="controller.leds.link")
    presses = Presses()
    with EmulatedBoard(kind=KIND, workdir=tmp_path, build_first=False,
                       firmware=firmware_1_0) as old, ready_link(old, presses, **PATIENT) as link:
        assert link.health().firmware.firmware_version == "1.0.0"
        link.show_blocking(LedFrame(5, {"c3": Light.solid(Colour(0, 200, 0))}), timeout=5)
        old.press_button()  # nothing reads that pin in 1.0
        time.sleep(1.5)
        old.release_button()
        health = link.health()
        stats = link.request_stats().result(3)
    assert (health.button, health.button_presses, health.button_down) == ("absent", 0, None)
    assert health.errors == 0 and health.last_error is None
    assert stats.naks_sent == 1, "asked once per connection, not at every poll"
    assert presses.calls == []
    said = [r for r in caplog.records if "no button" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.INFO
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_listener_set_later_hears_only_presses_after_it_was_set(board):
    link = LedLink(board.port, config=CONFIG5).start()  # nobody listens: only the handshake asks
    try:
        assert link.wait_ready(10)
        press_and_release(board)
        time.sleep(0.3)
        presses = Presses()
        link.on_button = presses
        assert presses.still(0.6) == 0
        press_and_release(board)
        assert [p.number for p in presses.wait(1)] == [1]
    finally:
        link.stop()

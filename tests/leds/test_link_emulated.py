"""The real link client against the real firmware on the emulated board, through a pty.

What the LEDs show is read back from the data pin (the bridge decodes the WS2812 waveform), never
from the firmware's or the link's own account of it.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time

import pytest
import serial
from board_kind import KIND
from faulty_line import FaultyLine

from controller.leds import scenes
from controller.leds.frame import Colour, LedFrame, Light, square_names
from controller.leds.framing import StreamDecoder
from controller.leds.layout import LedConfig
from controller.leds.link import LedLink, LinkError, LinkState
from controller.tak import Ply

BLUE, ORANGE, WHITE = Colour(0, 90, 255), Colour(255, 110, 0), Colour(200, 200, 200)
CONFIG5 = LedConfig(size=5)


def frame_a() -> LedFrame:
    return LedFrame(
        5, {"a1": Light.solid(BLUE), "e5": Light.solid(ORANGE), "b2": Light.solid(Colour(1, 2, 3))}
    )


def frame_b() -> LedFrame:
    return LedFrame(5, {"c3": Light.solid(WHITE), "d1": Light.solid(BLUE)})


def rgb_of(frame: LedFrame) -> dict[str, tuple[int, int, int]]:
    """What solid lights look like on the pin at full brightness, under the current budget."""
    return {
        sq: (light.colour.r, light.colour.g, light.colour.b) for sq, light in frame.lit().items()
    }


def shows(frame: LedFrame, config: LedConfig = CONFIG5):
    want = rgb_of(frame)
    return lambda latch: latch.led_count == config.led_count and latch.lit(config) == want


def test_frame_appears_on_the_data_pin_byte_for_byte(board):
    with LedLink(board.port, config=CONFIG5) as link:
        link.show_blocking(frame_a(), timeout=5)
        latch = board.wait_for_leds(shows(frame_a()), timeout=3)
        assert link.health().frames_acked == 1
        health = json.loads(json.dumps(link.health().as_dict()))
        assert health["connected"] and health["firmware"]["board_size"] == 5
    # a1 is LED 0 of the serpentine chain; the wire order is green, red, blue.
    assert latch.grb[:3] == bytes([90, 0, 255])
    assert config_led(CONFIG5, "e5") == 24  # rank 5 runs left to right again: a5 = 20
    assert latch.grb[3 * 24 : 3 * 25] == bytes([110, 255, 0])
    if KIND == "sim":
        # WS2812B timing at 16 MHz (62.5 ns a cycle): T0H 0.2-0.5 us, T1H 0.55-1.0 us, bit ~1.25 us
        assert latch.t0h[0] >= 3 and latch.t0h[1] <= 8
        assert latch.t1h[0] >= 9 and latch.t1h[1] <= 16
        assert latch.bit[0] >= 16 and latch.bit[1] <= 30


def config_led(config: LedConfig, square: str) -> int:
    return config.leds(square)[0]


def test_full_white_is_scaled_under_the_current_budget(board):
    config = LedConfig()  # 64 LEDs, 1500 mA
    white = LedFrame(8, {sq: Light.solid(Colour(255, 255, 255)) for sq in square_names(8)})
    with LedLink(board.port, config=config) as link:
        link.show_blocking(white, timeout=5)
        latch = board.wait_for_leds(lambda lt: lt.led_count == 64 and lt.grb[0] > 0, timeout=3)
        stats = link.request_stats().result(3)
    values = set(latch.grb)
    assert len(values) == 1, "every channel is scaled by the same factor"
    value = values.pop()
    estimate_ma = 64 + 64 * 3 * value * 20 // 255  # PROTOCOL.md section 5
    assert estimate_ma <= 1500
    assert value >= 90, f"scaled further than needed: {value}"
    assert stats.last_request_ma > 3800 and stats.last_estimate_ma <= 1500


def waiting_for_host(config: LedConfig):
    def check(latch) -> bool:
        if latch.led_count != config.led_count:
            return False
        colours = [latch.rgb(i) for i in range(latch.led_count)]
        return all(r == 0 and g == 0 and b <= 24 for r, g, b in colours) and any(
            b > 0 for _, _, b in colours
        )

    return check


def test_host_silence_brings_the_waiting_pattern_never_the_stale_frame(board):
    config = LedConfig(size=5, watchdog_ms=500)
    with LedLink(board.port, config=config) as link:
        link.show_blocking(frame_a(), timeout=5)
        board.wait_for_leds(shows(frame_a(), config), timeout=3)
        mark = board.mark()
    silent_since = time.monotonic()
    latch = board.wait_for_leds(waiting_for_host(config), timeout=5, after=mark)
    # nothing of frame_a survives, and it took about the configured 0.5 s (paced to wall time)
    assert latch.lit(config) and all(rgb[2] <= 24 for rgb in latch.lit(config).values())
    assert time.monotonic() - silent_since >= 0.3


def test_board_restarted_mid_game_shows_the_current_state_again_by_itself(board):
    with LedLink(board.port, config=CONFIG5) as link:  # keepalive 1 s: idle most of the time
        link.show_blocking(frame_a(), timeout=5)
        board.kill()  # the cable is pulled while the link is idle ...
        pulled = time.monotonic()
        deadline = pulled + 5
        while link.state is LinkState.READY and time.monotonic() < deadline:
            time.sleep(0.005)
        noticed_s = time.monotonic() - pulled
        link.set_frame(frame_b())  # ... and the game goes on meanwhile
        board.start()  # plugged back: a fresh board with default config and dark LEDs
        plugged = time.monotonic()
        board.wait_for_leds(shows(frame_b()), timeout=5)
        reconnect_s = time.monotonic() - plugged
        health = link.health()
    assert noticed_s < 0.3, "an idle link sees the hangup at once, not at the next keepalive"
    assert reconnect_s < 2.0
    assert health.reconnects >= 1 and health.firmware.board_size == 5
    assert health.last_error


@pytest.mark.skipif(KIND != "sim", reason="only simavr can reset the AVR in place")
def test_board_reset_behind_the_links_back_is_restored_by_the_keepalive(board):
    with LedLink(board.port, config=CONFIG5, keepalive=0.3) as link:
        link.show_blocking(frame_a(), timeout=5)
        mark = board.mark()
        board.reset()
        # First the firmware's boot state (default 8x8 config), then our frame on 5x5 again.
        board.wait_for_leds(lambda lt: lt.led_count == 64, timeout=3, after=mark)
        board.wait_for_leds(shows(frame_a()), timeout=3, after=mark)
        assert link.state is LinkState.READY


def test_latest_frame_wins_and_every_caller_hears_when_it_is_superseded(board):
    frames = [LedFrame(5, {sq: Light.solid(BLUE)}) for sq in square_names(5)]
    with LedLink(board.port, config=CONFIG5) as link:
        assert link.wait_ready(5)
        futures = [link.set_frame(frame) for frame in frames]
        for future in futures:
            future.result(5)  # none is left hanging, none raises
        board.wait_for_leds(shows(frames[-1]), timeout=3)
        assert link.health().frames_acked < len(frames)  # the middle ones were skipped


def test_show_never_blocks_the_event_loop(board):
    async def scenario() -> float:
        link = LedLink(board.port, config=CONFIG5).start()
        worst = 0.0
        ticking = True

        async def ticker() -> None:
            nonlocal worst
            last = time.monotonic()
            while ticking:
                await asyncio.sleep(0.005)
                now = time.monotonic()
                worst = max(worst, now - last)
                last = now

        tick = asyncio.create_task(ticker())
        try:
            for i in range(10):
                await link.show(frame_a() if i % 2 else frame_b(), timeout=5)
        finally:
            ticking = False
            await tick
            await link.aclose()
        return worst

    assert asyncio.run(scenario()) < 0.05


BLINKING_64 = LedFrame(8, {sq: Light.blink(BLUE, 40) for sq in square_names(8)})
# The firmware animates every 20 ms, counted from its last LED write, and it writes right before
# each reply: a request sent 16-24 ms after a reply often meets the next animation write.
AROUND_NEXT_WRITE = (0.016, 0.024)


class SpyPort:
    """The real pyserial port, with every write and read noted with its time: what the link itself
    hands to the OS and gets back, independent of how the pty or the bridge schedule bytes."""

    def __init__(self, port, log: list) -> None:
        self._port, self._log = port, log

    def write(self, data: bytes) -> int:
        self._log.append(("w", time.monotonic(), bytes(data)))
        return self._port.write(data)

    def read(self, size: int = 1) -> bytes:
        data = self._port.read(size)
        if data:
            self._log.append(("r", time.monotonic(), data))
        return data

    def __getattr__(self, name):
        return getattr(self._port, name)


def test_link_sends_a_lone_wake_byte_a_guard_pause_before_each_frame_and_waits_for_replies(board):
    """The host side of PROTOCOL.md section 3, checked on what the link writes and reads."""
    log: list = []
    rng = random.Random(11)
    link = LedLink(
        board.port,
        config=LedConfig(),
        open_port=lambda *a, **k: SpyPort(serial.serial_for_url(*a, **k), log),
    )
    with link:
        assert link.wait_ready(5)
        for i in range(40):
            time.sleep(rng.uniform(*AROUND_NEXT_WRITE))
            link.show_blocking(BLINKING_64.with_lights({"a1": Light.solid(Colour(i + 1, 0, 0))}), 5)
        board.wait_for_leds(lambda lt: lt.led_count == 64 and lt.rgb(0) == (40, 0, 0), timeout=3)
        guard_s = link.health().firmware.wake_guard_us / 1e6
        reply_timeout = link.reply_timeout
    decoder = StreamDecoder()
    wake_at = sent_at = None  # a wake byte written / a request outstanding since
    requests = 0
    for kind, at, data in log:
        if kind == "r":
            if any(item.body is not None for item in decoder.feed(data)):
                sent_at = None  # a reply (the link matches its seq; any reply ends this wait)
            continue
        if sent_at is not None:
            assert at - sent_at >= reply_timeout, "wrote while a reply was still due"
            sent_at = None
        if data == b"\x00":
            assert wake_at is None, "two wake bytes with no frame between"
            wake_at = at
            continue
        assert wake_at is not None, f"a frame without its wake byte: {data[:8].hex()}"
        assert at - wake_at >= guard_s, f"guard pause {1e6 * (at - wake_at):.0f} us too short"
        assert data.count(0) == 1 and data.endswith(b"\x00"), "one whole frame per write"
        wake_at, sent_at = None, at
        requests += 1
    assert requests >= 40


def test_every_frame_lands_while_the_firmware_animates(board):
    rng = random.Random(12)
    with LedLink(board.port, config=LedConfig()) as link:
        for i in range(40):
            time.sleep(rng.uniform(*AROUND_NEXT_WRITE))
            frame = BLINKING_64.with_lights({"a1": Light.solid(Colour(i + 1, 0, 0))})
            mark = board.mark()
            link.show_blocking(frame, 5)
            board.wait_for_leds(lambda lt, i=i: lt.rgb(0) == (i + 1, 0, 0), timeout=3, after=mark)
        stats = link.request_stats().result(3)
    assert stats.led_writes > 80  # the firmware animated in between, at 50 frames a second


def corrupting(rate: float, seed: int):
    rng = random.Random(seed)

    def fault(data: bytes) -> bytes:
        out = bytearray(data)
        for i in range(len(out)):
            if rng.random() < rate:
                out[i] ^= 1 << rng.randrange(8)
        return bytes(out)

    return fault


def dropping(rate: float, seed: int):
    rng = random.Random(seed)
    return lambda data: bytes(b for b in data if rng.random() >= rate)


@pytest.mark.parametrize(
    ("to_board", "to_host"),
    [
        (corrupting(0.01, 1), None),
        (dropping(0.01, 2), None),
        (None, corrupting(0.02, 3)),
        (dropping(0.005, 4), dropping(0.01, 5)),
    ],
    ids=["corrupt-to-board", "drop-to-board", "corrupt-to-host", "drop-both-ways"],
)
def test_damaged_line_costs_retries_not_wrong_leds(board, to_board, to_host):
    faults = {k: v for k, v in (("to_board", to_board), ("to_host", to_host)) if v}
    rng = random.Random(9)
    with (
        FaultyLine(os.path.realpath(board.port), **faults) as line,
        LedLink(line.path, config=CONFIG5, reply_timeout=0.15, retries=6) as link,
    ):
        for _ in range(12):
            squares = rng.sample(square_names(5), 4)
            frame = LedFrame(
                5, {sq: Light.solid(Colour(rng.randrange(1, 256), 0, 9)) for sq in squares}
            )
            link.show_blocking(frame, timeout=10)
            board.wait_for_leds(shows(frame), timeout=3)
        health = link.health()
    assert health.retries > 0 or health.reconnects > 0, (
        "the faults never hit: the test proves nothing"
    )


def test_a_port_that_never_answers_is_a_clear_error(tmp_path):
    master, slave = os.openpty()
    try:
        link = LedLink(os.ttyname(slave), handshake_timeout=0.3, reply_timeout=0.05).start()
        deadline = time.monotonic() + 5
        while link.health().last_error is None and time.monotonic() < deadline:
            time.sleep(0.02)
        link.stop()
        assert "no PONG within 0.3 s" in link.health().last_error
        assert os.ttyname(slave) in link.health().last_error
    finally:
        os.close(master)
        os.close(slave)


def test_a_missing_port_is_retried_and_named(tmp_path):
    missing = str(tmp_path / "no-such-port")
    link = LedLink(missing).start()
    deadline = time.monotonic() + 3
    while link.health().errors < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    health = link.health()
    link.stop()
    assert (
        health.errors >= 2 and missing in health.last_error and "cannot open" in health.last_error
    )


def test_brightness_scales_what_the_pin_shows(board):
    frame = LedFrame(5, {"a1": Light.solid(Colour(200, 100, 50))})
    with LedLink(board.port, config=CONFIG5) as link:
        link.show_blocking(frame, timeout=5)
        mark = board.mark()
        link.set_brightness(128)
        latch = board.wait_for_leds(lambda lt: lt.rgb(0) != (200, 100, 50), timeout=3, after=mark)
    assert latch.rgb(0) == (200 * 128 // 255, 100 * 128 // 255, 50 * 128 // 255)


def test_a_frame_too_big_for_the_board_fails_its_caller_and_names_port_and_frame(board):
    with LedLink(board.port, config=CONFIG5) as configured:
        assert configured.wait_ready(5)
    # a second host without a config finds the board configured 5x5 and is asked for 6x6
    with LedLink(board.port) as link:
        assert link.wait_ready(5)
        future = link.set_frame(LedFrame(6, {"f6": Light.solid(BLUE)}))
        with pytest.raises(LinkError) as failure:
            future.result(5)
        link.show_blocking(frame_a(), timeout=5)  # the link is still up for the next frame
    assert board.port in str(failure.value)
    assert "a 6x6 frame with 1 lit squares" in str(failure.value)
    assert "does not fit the 5x5 LED board" in str(failure.value)


def test_stop_returns_at_once_even_while_a_reply_is_awaited():
    master, slave = os.openpty()
    try:
        link = LedLink(os.ttyname(slave), reply_timeout=2.0, handshake_timeout=10).start()
        time.sleep(0.2)  # in the handshake, waiting for a PONG that never comes
        began = time.monotonic()
        link.stop()
        assert time.monotonic() - began < 0.5
        assert link.state is LinkState.STOPPED
    finally:
        os.close(master)
        os.close(slave)


def test_hint_drop_counts_can_be_read_off_the_data_pin(board):
    """3a1>21 on the pin: b1 flashes bright orange twice, c1 once, per cycle; a1 pulses blue."""
    hint = scenes.hint(5, Ply.from_ptn("3a1>21"))
    with LedLink(board.port, config=CONFIG5) as link:
        link.show_blocking(hint, timeout=5)  # acked: the first step, the pause, is on the pin
        start, began = board.mark(), time.monotonic()
        time.sleep(hint.cycle_seconds - 0.1)  # one cycle, minus the time the ack took to arrive
        latches = [board.wait_for_leds(lambda lt: True, timeout=1, after=start)]
        latches += list(board.latches)[-(board.latch_count - start) :][1:]
    assert time.monotonic() - began < hint.cycle_seconds + 0.5
    bright = (scenes.ORANGE.r, scenes.ORANGE.g, scenes.ORANGE.b)
    flashes = {"b1": 0, "c1": 0}
    was_lit = {"b1": False, "c1": False}
    blue_levels = set()
    for latch in latches:
        seen = latch.squares(CONFIG5)
        for square in flashes:
            lit = seen[square] == bright
            flashes[square] += lit and not was_lit[square]
            was_lit[square] = lit
        r, g, b = seen["a1"]
        assert r == 0 and g <= b  # blue (0, 90, 255) scaled by the pulse
        blue_levels.add(b)
    assert flashes == {"b1": 2, "c1": 1}
    assert len(blue_levels) > 10  # a pulse, not a solid light

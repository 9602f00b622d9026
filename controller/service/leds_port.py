"""The LED side of the board: scenes chosen by the board, sent over the serial link, acks watched.

`LedBoard` wraps `controller.leds.LedLink` (the link owns reconnecting: a pulled cable or a reset
board comes back by itself) and, for `--sim`, starts the real firmware under emulation first
(`controller.leds.emulator.EmulatedBoard`: simavr, or the host build when simavr is missing).

Sending never blocks the board: `show` hands the newest picture to the link (latest wins) and
returns;
the link's ack arrives later on a future, which updates the health and the "leds" event. So a dead
link costs the game nothing but the lights.

A press of the button on the board's edge (firmware 1.1) comes from the link's worker thread; it is
handed to the service's loop and to `on_button` (BoardService sets it: a hint).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from controller.leds import scenes
from controller.leds.frame import Animation, Effect, LedFrame
from controller.leds.layout import DEFAULT_CONFIG_PATH, LedConfig, load_config
from controller.leds.link import ButtonPress, LedLink
from controller.leds.reconnect import LinkState
from controller.service.config import Settings

log = logging.getLogger(__name__)


def led_config(settings: Settings) -> LedConfig:
    if settings.layout:
        return load_config(settings.layout)
    if settings.serial == "sim":
        # the emulated board is as big as the biggest game, so every size fits on it
        return LedConfig(size=8, brightness=settings.brightness)
    if Path(DEFAULT_CONFIG_PATH).exists():
        return load_config(DEFAULT_CONFIG_PATH)
    return LedConfig(brightness=settings.brightness)


def emulated_board_class():
    """`EmulatedBoard` whose process dies with the service, even on kill -9 (no orphaned simavr
    holding a pty after the service is gone).

    The firmware process is started through util-linux's `setpriv --pdeathsig TERM`: Linux sends
    it SIGTERM when the thread that started it ends. That is set by `setpriv` before it execs the
    firmware, so no Python code runs between fork and exec in this many-threaded process (which a
    `preexec_fn` would do). Without `setpriv` the board works as before, only without the guard.
    """
    from controller.leds.emulator import EmulatedBoard

    setpriv = shutil.which("setpriv")

    class ServiceEmulatedBoard(EmulatedBoard):
        def command(self) -> list[str]:
            command = super().command()
            return [setpriv, "--pdeathsig", "TERM", *command] if setpriv else command

    return ServiceEmulatedBoard


def describe_light(light) -> dict[str, Any]:
    return {"colour": light.colour.hex(), "effect": light.effect.value,
            "period_ms": light.period_ms}


class LedBoard:
    def __init__(self, settings: Settings, *, clock=None,
                 emulator_factory: Callable[..., Any] | None = None) -> None:
        self.settings = settings
        self.config = led_config(settings)
        self.brightness = settings.brightness
        self.emulator = None
        self._emulator_factory = emulator_factory
        self.link: LedLink | None = None
        self.health = None  # BoardService.health.link, set by attach()
        self.scene = "none"
        self.picture: LedFrame | Animation | None = None
        self.size = settings.size
        self._acked_generation = 0
        self._sent_generation = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_change: Callable[[], None] | None = None
        # the benchmark and tests watch acks: (generation, monotonic time)
        self.ack_observers: list[Callable[[int, float], None]] = []
        # the button on the board's edge: called on the loop once per press
        self.on_button: Callable[[], Awaitable[Any] | None] | None = None
        self.button_presses = 0
        self._button_tasks: set[asyncio.Future] = set()

    def attach(self, link_health, on_change: Callable[[], None]) -> None:
        self.health = link_health
        self._on_change = on_change

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        port = self.settings.serial
        if port == "sim":
            from controller.leds.emulator import build, simavr_available

            factory = self._emulator_factory or emulated_board_class()
            kind = "sim" if simavr_available() else "host"
            await asyncio.to_thread(build, kind, self.config.baud)  # make: may take a while
            # its pty link lives in the data dir: one stable name, nothing left in /tmp by a kill
            workdir = self.settings.data_path / "sim-leds"
            workdir.mkdir(parents=True, exist_ok=True)
            self.emulator = factory(baud=self.config.baud, kind=kind, build_first=False,
                                    workdir=workdir)
            # Started from the loop's own thread, not a worker: the death signal is tied to the
            # thread that forks (see emulated_board_class), and this one lives as long as the
            # service. It only waits for the board's pty line (well under a second).
            self.emulator.start()
            port = self.emulator.port
            log.info("emulated LED board (%s) on %s", self.emulator.kind, port)
        self.link = LedLink(None if port == "auto" else port, config=self.config,
                            on_button=self._button_pressed)
        self.link.set_brightness(self.brightness)
        self.link.start()
        if self.health is not None:
            self.health.port = self.settings.serial if port == self.settings.serial else \
                f"{self.settings.serial} ({port})"

    async def stop(self) -> None:
        if self.link is not None:
            await asyncio.to_thread(self.link.stop)
        if self.emulator is not None:
            await asyncio.to_thread(self.emulator.close)

    # --- the button ------------------------------------------------------------------------------
    def _button_pressed(self, press: ButtonPress) -> None:
        """The link's worker thread: hand the press to the service's loop."""
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # a closed loop: the service is going down
            loop.call_soon_threadsafe(self._dispatch_button, press)

    def _dispatch_button(self, press: ButtonPress) -> None:
        self.button_presses += 1
        log.info("button pressed on the LED board (press %d)", press.number)
        result = self.on_button() if self.on_button is not None else None
        if inspect.isawaitable(result):
            task = asyncio.ensure_future(result)
            self._button_tasks.add(task)  # a reference, so the task is not collected mid-way
            task.add_done_callback(self._button_done)

    def _button_done(self, task: asyncio.Future) -> None:
        self._button_tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("the button's action failed: %s", task.exception())

    # --- pictures ------------------------------------------------------------------------------
    async def show(self, scene: str, **kw: Any) -> None:
        position = kw.get("position")
        size = position.size if position is not None else self.size
        self.size = size
        picture = self._picture(scene, size, kw)
        self.scene, self.picture = scene, picture
        if self.link is None:
            return
        self._sent_generation += 1
        generation = self._sent_generation
        future = self.link.set_frame(picture)
        loop = self._loop
        future.add_done_callback(
            lambda f: loop.call_soon_threadsafe(self._settled, generation, f))

    def _picture(self, scene: str, size: int, kw: dict[str, Any]) -> LedFrame | Animation:
        position = kw.get("position")
        match scene:
            case "last_move":
                return scenes.last_move(size, kw["ply"])
            case "hint":
                return scenes.hint(size, kw["ply"])
            case "illegal":
                last = position.last_ply if position is not None else None
                return scenes.illegal(size, kw.get("squares", []), last)
            case "desync":
                return scenes.resync(size, kw.get("squares", []))
            case "ambiguity":
                # the squares any candidate touches pulse: "look here, then tell the page"
                return scenes.resync(size, kw.get("squares", []))
            case "road":
                return scenes.road_win(size, kw.get("road", []), kw.get("winner", 0))
            case _:
                return scenes.idle(size)

    def _settled(self, generation: int, future) -> None:
        error = future.exception()
        now = time.monotonic()
        if error is None:
            self._acked_generation = max(self._acked_generation, generation)
            for observer in self.ack_observers:
                observer(generation, now)
        self.refresh_health(error)
        if self._on_change is not None:
            self._on_change()

    def refresh_health(self, error: BaseException | None = None) -> None:
        if self.health is None or self.link is None:
            return
        h = self.link.health()
        self.health.state = {LinkState.READY: "ready", LinkState.STOPPED: "absent",
                             LinkState.DISCONNECTED: "lost"}.get(h.state, "connecting")
        self.health.frames_acked = h.frames_acked
        if h.firmware is not None:
            self.health.firmware = h.firmware.firmware_version
        self.health.error = h.last_error or (str(error) if error else "")

    async def set_brightness(self, brightness: int) -> None:
        self.brightness = brightness
        if self.link is not None:
            self.link.set_brightness(brightness)

    def lit(self) -> dict[str, Any]:
        """The picture as the firmware shows it (for an animation: its resting frame)."""
        self.refresh_health()
        picture = self.picture
        frame = picture.steps[0][0] if isinstance(picture, Animation) else picture
        squares = {}
        if frame is not None:
            squares = {sq: describe_light(light) for sq, light in frame.lit().items()
                       if light.effect is not Effect.OFF}
        return {"scene": self.scene, "brightness": self.brightness, "size": self.size,
                "acked": self._acked_generation == self._sent_generation and self.link is not None,
                "generation": self._sent_generation, "squares": squares}


def probe_firmware(port: str, timeout: float) -> str:
    """For `takboard doctor`: connect, handshake, and return the firmware's version text."""
    link = LedLink(port)
    link.start()
    try:
        if not link.wait_ready(timeout):
            health = link.health()
            raise RuntimeError(health.last_error or f"no handshake within {timeout} s")
        info = link.health().firmware
        return f"{info.firmware_version} (protocol {info.protocol_version}, {info.led_count} LEDs)"
    finally:
        link.stop()

"""The serial link to the LED board: handshake, stop-and-wait frames, reconnect, health.

One worker thread owns the port and does all serial I/O, so the caller's asyncio loop never waits on
a serial read. The caller only states what the board should show:

    link = LedLink("/dev/ttyUSB0", config=load_config(path))   # or a pty path, or loop://
    link.start()
    link.set_frame(frame)          # returns at once; the newest frame wins
    await link.show(frame)         # the same, then waits for the ack of it (or of a newer one)
    link.health()                  # connected?, last ack, retries, errors, firmware INFO

Why the worker does what it does (firmware/PROTOCOL.md):
- The Nano resets when the port opens and pyserial drops what arrived before, so every connection
  starts with PING until PONG, then HELLO -> INFO, then SET_CONFIG when the board's configuration
  differs from ours (a reset forgets it).
- Stop-and-wait with a wake byte: 0x00, a pause of `wake_guard_us`, then the frame, then nothing
  until the reply or the reply timeout. The AVR drops serial bytes while it writes the LEDs.
- SET_FRAME carries the whole picture, so a retry or a reconnect simply sends the current one again.
- A keepalive HELLO every second feeds the firmware's host-loss watchdog and notices a board that
  reset behind our back (INFO says "waiting for host"): then the current frame goes out again.
- The push button on the board's edge (firmware 1.1): with an `on_button` callback the idle worker
  asks GET_INPUT every `input_poll` seconds (0.25) instead of a bare keepalive, still stop-and-wait,
  and calls back once per new press. The firmware counts presses since its boot; a fresh connection
  takes the count as it finds it (a press from before we were listening is no hint request), and
  a firmware restart (its uptime goes back) restarts the count, so neither invents a press.
  Firmware 1.0 answers NAK UNKNOWN_TYPE: that means "no button" (said in the connected line).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import logging
import os
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import serial

from controller.leds.frame import Animation, LedFrame
from controller.leds.framing import StreamDecoder, encode_frame
from controller.leds.layout import LedConfig
from controller.leds.ports import NoBoardFoundError, find_board_port
from controller.leds.protocol import (
    DEFAULT_WAKE_GUARD_US,
    PROTOCOL_VERSION,
    RETRYABLE_NAKS,
    WAKE_BYTE,
    FirmwareInfo,
    InputState,
    MsgType,
    NakCode,
    ProtocolError,
    Reply,
    Stats,
    parse_reply,
    request_payload,
    set_brightness_body,
    set_config_body,
    set_frame_body,
)
from controller.leds.reconnect import Backoff, LinkState, ReconnectLog

log = logging.getLogger("controller.leds.link")

DEFAULT_BAUD = 500000
# A press and a release each last at least the firmware's 20 ms debounce: no more than one press in
# 40 ms can be real. A count that moved further between two polls is a restarted firmware.
MIN_PRESS_PERIOD_S = 0.040


class LinkError(Exception):
    """Anything that went wrong on the LED link; the message names the port and, where there is
    one, the frame."""

    def __init__(self, message: str, *, port: str, frame: str | None = None) -> None:
        self.port = port
        self.frame = frame
        self.reason = message
        where = f" while sending {frame}" if frame else ""
        super().__init__(f"LED link {port}{where}: {message}")


class LinkTimeout(LinkError):
    """No (matching) reply in time, or a frame not shown in time."""


class LinkNak(LinkError):
    """The firmware refused a request for a reason a retry cannot fix (BAD_VALUE, ...)."""

    def __init__(self, message: str, *, port: str, frame: str | None, code: int) -> None:
        super().__init__(message, port=port, frame=frame)
        self.code = code


class LinkLost(LinkError):
    """The port went away or stopped answering; the link reconnects by itself."""


class LinkProtocolError(LinkError):
    """The other end does not speak this protocol version."""


class LinkClosed(LinkError):
    """The link was stopped."""


@dataclass(frozen=True)
class LinkHealth:
    port: str
    state: LinkState
    last_ack_age_s: float | None  # seconds since the last reply of any kind, None before the first
    frames_sent: int  # SET_FRAME requests written (retries included)
    frames_acked: int
    retries: int  # requests sent again after a timeout or a retryable NAK
    errors: int  # bad frames received, timeouts, NAKs, lost ports
    reconnects: int  # successful handshakes after the first
    firmware: FirmwareInfo | None
    last_error: str | None
    button: str = "unknown"  # "present" (firmware answers GET_INPUT), "absent" (1.0), "unknown"
    button_presses: int = 0  # presses reported to on_button since the link started
    button_down: bool | None = None  # held at the last poll (None: not polled)

    @property
    def connected(self) -> bool:
        return self.state is LinkState.READY

    def as_dict(self) -> dict:
        """Plain JSON-ready values, for the web page and logs."""
        info = self.firmware
        return {
            "port": self.port,
            "state": self.state.value,
            "connected": self.connected,
            "last_ack_age_s": self.last_ack_age_s,
            "frames_sent": self.frames_sent,
            "frames_acked": self.frames_acked,
            "retries": self.retries,
            "errors": self.errors,
            "reconnects": self.reconnects,
            "firmware": None if info is None else dataclasses.asdict(info),
            "last_error": self.last_error,
            "button": self.button,
            "button_presses": self.button_presses,
            "button_down": self.button_down,
        }


@dataclass(frozen=True)
class ButtonPress:
    """One press of the board's button, as the link found it."""

    number: int  # 1 for the first press the link reports, then 2, ...
    at: float  # link clock when the poll that found it was answered
    down: bool  # still held at that poll


Picture = LedFrame | Animation


def _describe(picture: Picture | None) -> str:
    if picture is None:
        return "nothing"
    if isinstance(picture, Animation):
        return f"an animation of {len(picture.steps)} steps"
    return f"a {picture.size}x{picture.size} frame with {len(picture.lit())} lit squares"


class LedLink:
    """Owns one serial port to the LED board; see the module docstring."""

    def __init__(
        self,
        port: str | None = None,
        *,
        config: LedConfig | None = None,
        baudrate: int | None = None,
        reply_timeout: float = 0.25,
        retries: int = 3,
        keepalive: float = 1.0,
        handshake_timeout: float = 3.0,
        backoff: Backoff | None = None,
        clock: Callable[[], float] = time.monotonic,
        open_port: Callable[..., serial.SerialBase] = serial.serial_for_url,
        on_button: Callable[[ButtonPress], None] | None = None,
        input_poll: float = 0.25,
    ) -> None:
        self._port_arg = port
        self.port = port or "(auto: USB VID:PID)"
        self.config = config
        self.baudrate = baudrate or (config.baud if config else DEFAULT_BAUD)
        self.reply_timeout = reply_timeout
        self.retries = retries
        self.keepalive = keepalive
        self.handshake_timeout = handshake_timeout
        self._backoff = backoff or Backoff()
        self._clock = clock
        self._open_port = open_port
        self._reconnect_log = ReconnectLog(self.port)
        # Called from the worker thread, once per press; keep it short (hand it to a loop).
        self._on_button = on_button
        self._listener_changed = False  # on_button was set: the idle worker re-plans its wait
        self._input_rebase = False  # the next INPUT is a new baseline (a listener arrived)
        self.input_poll = input_poll

        self._cond = threading.Condition()
        # The idle worker waits on the port (to see an unplugged cable at once) and on this pipe
        # (to see a new frame at once); see _idle_wait.
        self._wake_r = self._wake_w = -1  # opened by start(), closed by stop()
        self._thread: threading.Thread | None = None
        self._stopping = False
        # What the caller wants (guarded by _cond).
        self._desired: Picture | None = None
        self._desired_since = 0.0
        self._generation = 0
        self._brightness: int | None = config.brightness if config else None
        self._waiters: list[tuple[int, concurrent.futures.Future]] = []
        self._jobs: deque[tuple[MsgType, bytes, concurrent.futures.Future]] = deque()
        # Health (written by the worker, read under _cond).
        self._state = LinkState.STOPPED
        self._last_reply_at: float | None = None
        self._frames_sent = self._frames_acked = self._retries = self._errors = 0
        self._handshakes = 0
        self._info: FirmwareInfo | None = None
        self._last_error: str | None = None
        self._button = "unknown"
        self._button_presses = 0
        self._button_down: bool | None = None
        # Worker-only state.
        self._serial: serial.SerialBase | None = None
        self._decoder = StreamDecoder()
        self._seq = 0
        self._guard_s = DEFAULT_WAKE_GUARD_US / 1e6
        self._shown: LedFrame | None = None  # what the firmware acked last on this connection
        self._shown_brightness: int | None = None
        self._input: InputState | None = None  # the last INPUT on this connection
        self._input_at = 0.0  # link clock when it was answered
        self._input_supported: bool | None = None  # None: not asked on this connection yet

    # ----------------------------------------------------------------- caller side (any thread)

    def start(self) -> LedLink:
        """Start the worker (idempotent). Connecting happens in the background."""
        with self._cond:
            if self._thread is not None:
                return self
            self._stopping = False
            if self._wake_r < 0:
                self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
            self._thread = threading.Thread(target=self._run, name="led-link", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 3.0) -> None:
        """Stop the worker and close the port (idempotent). Pending waiters get LinkClosed."""
        with self._cond:
            thread, self._thread = self._thread, None
            self._stopping = True
            self._wake_worker()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        with self._cond:
            self._fail_pending(LinkClosed("the link was stopped", port=self.port))
            self._state = LinkState.STOPPED
            if (thread is None or not thread.is_alive()) and self._wake_r >= 0:
                os.close(self._wake_r)
                os.close(self._wake_w)
                self._wake_r = self._wake_w = -1

    def _wake_worker(self) -> None:
        """Called with _cond held: wake the worker whether it waits on _cond or on the port."""
        self._cond.notify_all()
        if self._wake_w >= 0:
            with contextlib.suppress(BlockingIOError):
                os.write(self._wake_w, b"!")

    async def aclose(self) -> None:
        """`stop()` for asyncio code (e.g. a FastAPI lifespan): joins the worker off the loop."""
        await asyncio.to_thread(self.stop)

    def __enter__(self) -> LedLink:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def set_frame(self, picture: Picture) -> concurrent.futures.Future:
        """Make `picture` the board's desired state; returns at once (latest wins).

        The returned future completes when the firmware has acked this picture or a newer one,
        and fails with LinkNak if the firmware refused it, or LinkClosed on stop().
        """
        if not isinstance(picture, LedFrame | Animation):
            raise TypeError(
                f"set_frame wants an LedFrame or Animation, got {type(picture).__name__}"
            )
        size = picture.size
        if self.config is not None and size > self.config.size:
            raise ValueError(
                f"a {size}x{size} picture does not fit the {self.config.size}x{self.config.size} "
                f"LED board of the configuration"
            )
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._cond:
            self._generation += 1
            self._desired = picture
            self._desired_since = self._clock()
            self._waiters.append((self._generation, future))
            self._wake_worker()
        return future

    async def show(self, picture: Picture, timeout: float | None = 2.0) -> None:
        """Set the picture and wait (without blocking the event loop) until the board shows it."""
        future = self.set_frame(picture)
        try:
            await asyncio.wait_for(asyncio.wrap_future(future), timeout)
        except TimeoutError:
            raise LinkTimeout(
                f"not shown within {timeout} s (link {self._state.value})",
                port=self.port,
                frame=_describe(picture),
            ) from None

    def show_blocking(self, picture: Picture, timeout: float | None = 2.0) -> None:
        """The same as `show` for plain (non-async) callers such as the CLI."""
        try:
            self.set_frame(picture).result(timeout)
        except concurrent.futures.TimeoutError:
            raise LinkTimeout(
                f"not shown within {timeout} s (link {self._state.value})",
                port=self.port,
                frame=_describe(picture),
            ) from None

    def set_brightness(self, brightness: int) -> None:
        set_brightness_body(brightness)  # checks the range here, in the caller's thread
        with self._cond:
            self._brightness = brightness
            self._wake_worker()

    def request_stats(self) -> concurrent.futures.Future:
        """GET_STATS through the worker (it owns the port); the future gives a `Stats`."""
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._cond:
            self._jobs.append((MsgType.GET_STATS, b"", future))
            self._wake_worker()
        return future

    def wait_ready(self, timeout: float) -> bool:
        """Block until the link is READY (for scripts and tests); False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._state is not LinkState.READY:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
        return True

    @property
    def on_button(self) -> Callable[[ButtonPress], None] | None:
        return self._on_button

    @on_button.setter
    def on_button(self, callback: Callable[[ButtonPress], None] | None) -> None:
        """Set (or clear) the press callback; polling starts (or stops) at once."""
        with self._cond:
            if self._on_button is None:
                self._input_rebase = True  # presses before anyone listened are not reported
            self._on_button = callback
            self._listener_changed = True
            self._wake_worker()

    @property
    def state(self) -> LinkState:
        return self._state

    def health(self) -> LinkHealth:
        with self._cond:
            age = None if self._last_reply_at is None else self._clock() - self._last_reply_at
            return LinkHealth(
                port=self.port,
                state=self._state,
                last_ack_age_s=age,
                frames_sent=self._frames_sent,
                frames_acked=self._frames_acked,
                retries=self._retries,
                errors=self._errors,
                reconnects=max(0, self._handshakes - 1),
                firmware=self._info,
                last_error=self._last_error,
                button=self._button,
                button_presses=self._button_presses,
                button_down=self._button_down,
            )

    # ----------------------------------------------------------------- worker thread

    def _set_state(self, state: LinkState) -> None:
        with self._cond:
            self._state = state
            self._cond.notify_all()

    def _run(self) -> None:
        while not self._stopping:
            self._set_state(LinkState.CONNECTING)
            try:
                self._connect()
                self._set_state(LinkState.HANDSHAKING)
                description = self._handshake()
                with self._cond:
                    self._handshakes += 1
                self._backoff.reset()
                self._reconnect_log.connected(description)
                self._set_state(LinkState.READY)
                self._serve()
            except (LinkError, NoBoardFoundError) as error:
                if self._stopping:
                    break
                self._note_error(error)
                self._reconnect_log.failed(error)
            finally:
                self._close()
            if self._stopping:
                break
            self._set_state(LinkState.DISCONNECTED)
            delay = self._backoff.next_delay()
            with self._cond:
                if not self._stopping:
                    self._cond.wait(delay)
        self._set_state(LinkState.STOPPED)

    def _note_error(self, error: BaseException) -> None:
        with self._cond:
            self._errors += 1
            self._last_error = str(error)

    def _connect(self) -> None:
        port = self._port_arg or find_board_port()
        if self._port_arg is None and port != self.port:
            self.port = port
            self._reconnect_log.port = port
        try:
            ser = self._open_port(port, baudrate=self.baudrate, timeout=0.02, write_timeout=1.0)
        except (serial.SerialException, OSError, ValueError) as error:
            raise LinkLost(f"cannot open: {error}", port=port) from None
        with contextlib.suppress(serial.SerialException, OSError):
            ser.reset_input_buffer()
        self._serial = ser
        self._decoder.reset()
        self._shown = None
        self._shown_brightness = None
        self._guard_s = DEFAULT_WAKE_GUARD_US / 1e6
        self._input = None
        self._input_supported = None

    def _close(self) -> None:
        ser, self._serial = self._serial, None
        if ser is not None:
            with contextlib.suppress(Exception):
                ser.close()

    def _handshake(self) -> str:
        token = os.urandom(4)
        deadline = time.monotonic() + self.handshake_timeout
        while True:
            if self._stopping:
                raise LinkClosed("the link was stopped", port=self.port)
            try:
                reply = self._exchange(MsgType.PING, token, "PING", self.reply_timeout)
            except LinkTimeout:
                if time.monotonic() > deadline:
                    raise LinkTimeout(
                        f"no PONG within {self.handshake_timeout} s: is this the LED board with "
                        f"takboard firmware, built for {self.baudrate} baud?",
                        port=self.port,
                    ) from None
                continue
            if reply.type is MsgType.PONG and reply.body == token:
                break
        info = self._hello()
        if info.protocol_version != PROTOCOL_VERSION:
            raise LinkProtocolError(
                f"firmware speaks protocol {info.protocol_version}, this host {PROTOCOL_VERSION}",
                port=self.port,
            )
        if self.config is not None and not info.matches(self.config):
            self._request(MsgType.SET_CONFIG, set_config_body(self.config), "SET_CONFIG")
            info = self._hello()
        self._poll_input()  # the count as we find it: the baseline, never a press
        button = {True: "a button", False: "no button"}.get(self._input_supported, "")
        return (
            f"firmware {info.firmware_version}, {info.board_size}x{info.board_size} squares, "
            f"{info.led_count} LEDs, budget {info.budget_ma} mA, baud {info.baud or 'n/a'}"
            + (f", {button}" if button else "")
        )

    def _hello(self) -> FirmwareInfo:
        reply = self._request(MsgType.HELLO, b"", "HELLO")
        try:
            info = FirmwareInfo.parse(reply.body)
        except ProtocolError as error:
            raise LinkProtocolError(str(error), port=self.port) from None
        # The firmware's guard already allows for USB: an adapter moves bytes in 1 ms USB frames
        # and may send the wake byte up to a frame late, the request on time.
        self._guard_s = info.wake_guard_us / 1e6
        self._shown_brightness = info.brightness  # what the board has, so a change is sent
        with self._cond:
            self._info = info
        return info

    def _serve(self) -> None:
        shown_key: tuple[int, int] | None = None
        while True:
            with self._cond:
                if self._stopping:
                    return
                job = self._jobs.popleft() if self._jobs else None
                generation, picture, since = self._generation, self._desired, self._desired_since
                brightness = self._brightness
            if job is not None:
                self._run_job(*job)
                continue
            if brightness is not None and brightness != self._shown_brightness:
                self._request(
                    MsgType.SET_BRIGHTNESS, set_brightness_body(brightness), "SET_BRIGHTNESS"
                )
                self._shown_brightness = brightness
                continue
            step_left = None
            if picture is not None:
                frame, step, step_left = self._current_step(picture, since)
                if (generation, step) != shown_key:
                    self._show(frame, generation)
                    shown_key = (generation, step)
                    continue
            input_left = self._input_left()
            if input_left is not None and input_left <= 0:
                self._poll_input()
                continue
            idle = self._clock() - (self._last_reply_at or 0.0)
            if idle >= self.keepalive:
                self._keepalive()
                continue
            timeout = self.keepalive - idle
            if step_left is not None:
                timeout = min(timeout, step_left)
            if input_left is not None:
                timeout = min(timeout, input_left)
            self._idle_wait(max(timeout, 0.001), generation, brightness)

    def _idle_wait(self, timeout: float, generation: int, brightness: int | None) -> None:
        """Sleep until the caller wants something, the timeout, or the port has news: the
        firmware never talks unasked, so a readable port while idle means a hangup (cable pulled)
        or line noise, and reading it tells which."""
        with self._cond:
            if (
                self._stopping
                or self._jobs
                or self._generation != generation
                or self._brightness != brightness
                or self._listener_changed
            ):
                self._listener_changed = False
                return
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_r, 64)  # wakes that the check above has already covered
        try:
            port_fd = self._serial.fileno() if self._serial is not None else None
        except (AttributeError, OSError, serial.SerialException):
            port_fd = None  # e.g. loop://: no file descriptor to watch
        if port_fd is None:
            with self._cond:
                if self._generation == generation and not self._stopping and not self._jobs:
                    self._cond.wait(timeout)
            return
        ready, _, _ = select.select([port_fd, self._wake_r], [], [], timeout)
        if port_fd in ready:
            try:
                data = self._serial.read(max(1, self._serial.in_waiting))
            except (serial.SerialException, OSError) as error:
                raise LinkLost(f"port failed: {error}", port=self.port) from None
            for item in self._decoder.feed(data):
                log.debug("LED link %s: unasked bytes while idle: %s", self.port, item)

    def _current_step(self, picture: Picture, since: float) -> tuple[LedFrame, int, float | None]:
        if isinstance(picture, LedFrame):
            return picture, 0, None
        index, left = picture.step_at(self._clock() - since)
        return picture.steps[index][0], index, left

    def _show(self, frame: LedFrame, generation: int) -> None:
        if frame != self._shown:
            board_size = self._info.board_size if self._info else frame.size
            try:
                body = set_frame_body(frame, board_size)
                self._request(MsgType.SET_FRAME, body, _describe(frame))
            except LinkNak as error:
                # The firmware refuses this frame; sending it again cannot help. Tell the
                # waiters and keep the link up for the next frame.
                log.warning("%s", error)
                self._note_error(error)
                self._settle_waiters(generation, error)
                return
            except ValueError as error:  # does not fit the board that answered HELLO
                failure = LinkError(str(error), port=self.port, frame=_describe(frame))
                log.warning("%s", failure)
                self._note_error(failure)
                self._settle_waiters(generation, failure)
                return
            self._shown = frame
        self._settle_waiters(generation, None)

    def _keepalive(self) -> None:
        was_shown = self._shown
        info = self._hello()
        if info.waiting_for_host and was_shown is not None:
            # The board reset (or its watchdog fired) while the port stayed open: configure it
            # again if it forgot, and send the current picture again.
            log.info("LED board on %s shows 'waiting for host' again: restoring", self.port)
            if self.config is not None and not info.matches(self.config):
                self._request(MsgType.SET_CONFIG, set_config_body(self.config), "SET_CONFIG")
                self._hello()
            self._shown = None
            self._resend_current()

    # ----------------------------------------------------------------- the button

    def _input_left(self) -> float | None:
        """Seconds until the next GET_INPUT is due; None when there is nothing to poll for."""
        if self.on_button is None or not self._input_supported or self.input_poll <= 0:
            return None
        return self._input_at + self.input_poll - self._clock()

    def _poll_input(self) -> None:
        """GET_INPUT: report new presses, notice a restarted or abandoned board."""
        if self._input_supported is False:
            return
        try:
            reply = self._request(
                MsgType.GET_INPUT, b"", "GET_INPUT", quiet_naks=frozenset({NakCode.UNKNOWN_TYPE})
            )
        except LinkNak as error:
            if error.code != NakCode.UNKNOWN_TYPE:
                raise
            # firmware 1.0: the handshake's "connected" line says "no button"; nothing else to do
            self._input_supported = False
            with self._cond:
                self._button, self._button_down = "absent", None
            return
        try:
            state = InputState.parse(reply.body)
        except ProtocolError as error:
            raise LinkProtocolError(str(error), port=self.port) from None
        now = self._clock()
        previous, previous_at = self._input, self._input_at
        self._input, self._input_at, self._input_supported = state, now, True
        with self._cond:
            rebase, self._input_rebase = self._input_rebase, False
        if previous is None or rebase:
            new = 0
        else:
            new = self._new_presses(previous, previous_at, state, now)
        with self._cond:
            self._button, self._button_down = "present", state.down
            first = self._button_presses + 1
            self._button_presses += new
        callback = self.on_button
        for number in range(first, first + new):
            if callback is None:
                break
            try:
                callback(ButtonPress(number=number, at=now, down=state.down))
            except Exception:  # the caller's bug must not take the LED link down with it
                log.warning("LED link %s: on_button callback failed", self.port, exc_info=True)
        if state.waiting_for_host and self._shown is not None:
            # polls replace the keepalive HELLO while idle, so they must notice this too
            self._keepalive()

    @staticmethod
    def _new_presses(
        previous: InputState, previous_at: float, state: InputState, now: float
    ) -> int:
        """Presses between two INPUT replies of one connection.

        The firmware's clock runs no faster than ours (plus slack); if it moved further, or moved
        back, the firmware restarted in between, and its count started again from 0 after the
        previous reply. Likewise a count that moved more than presses can physically happen (or
        went back: u16 arithmetic makes that huge) means a restart. Uptime and count wrap; both
        checks allow for it.
        """
        elapsed_s = max(0.0, now - previous_at)
        fw_elapsed_ms = (state.uptime_ms - previous.uptime_ms) % (1 << 32)
        delta = (state.presses - previous.presses) % (1 << 16)
        possible = int(elapsed_s / MIN_PRESS_PERIOD_S) + 1
        restarted = fw_elapsed_ms > elapsed_s * 1000 * 1.05 + 500 or delta > possible
        if restarted:
            return min(state.presses, possible)
        return delta

    def _resend_current(self) -> None:
        with self._cond:
            picture, since, generation = self._desired, self._desired_since, self._generation
        if picture is not None:
            frame, _, _ = self._current_step(picture, since)
            self._show(frame, generation)

    def _run_job(self, kind: MsgType, body: bytes, future: concurrent.futures.Future) -> None:
        try:
            reply = self._request(kind, body, kind.name)
            result = Stats.parse(reply.body) if kind is MsgType.GET_STATS else reply
        except LinkLost as error:
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                future.set_exception(error)
            raise
        except (LinkError, ProtocolError) as error:
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                future.set_exception(error)
            return
        with contextlib.suppress(concurrent.futures.InvalidStateError):
            future.set_result(result)

    def _settle_waiters(self, generation: int, error: BaseException | None) -> None:
        with self._cond:
            keep = []
            for wanted, future in self._waiters:
                if wanted > generation:
                    keep.append((wanted, future))
                    continue
                with contextlib.suppress(concurrent.futures.InvalidStateError):
                    if error is None:
                        future.set_result(None)
                    else:
                        future.set_exception(error)
            self._waiters = keep

    def _fail_pending(self, error: LinkError) -> None:
        for _, future in self._waiters:
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                future.set_exception(error)
        self._waiters = []
        for _, _, future in self._jobs:
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                future.set_exception(error)
        self._jobs.clear()

    # ----------------------------------------------------------------- one request, stop-and-wait

    def _request(
        self, kind: MsgType, body: bytes, what: str, quiet_naks: frozenset[NakCode] = frozenset()
    ) -> Reply:
        """Send until a good reply: retries after a timeout or a retryable NAK, then LinkLost.
        A NAK in `quiet_naks` is an answer the caller expects (LinkNak, not counted as an error)."""
        expected = {
            MsgType.HELLO: MsgType.INFO,
            MsgType.PING: MsgType.PONG,
            MsgType.GET_STATS: MsgType.STATS,
            MsgType.GET_INPUT: MsgType.INPUT,
        }.get(kind, MsgType.ACK)
        last: str = ""
        for attempt in range(1 + self.retries):
            if attempt:
                with self._cond:
                    self._retries += 1
            try:
                reply = self._exchange(kind, body, what, self.reply_timeout)
            except LinkTimeout as error:
                last = error.reason
                self._note_error(error)
                continue
            if reply.type is MsgType.NAK:
                code = reply.nak_code
                if code not in quiet_naks:
                    self._note_error(LinkError(reply.describe(), port=self.port, frame=what))
                if code in RETRYABLE_NAKS:
                    last = reply.describe()
                    continue
                raise LinkNak(
                    f"firmware refused it: {reply.describe()}",
                    port=self.port,
                    frame=what,
                    code=int(code or 0),
                )
            if reply.type is not expected or (
                expected is MsgType.ACK and reply.request_type != kind
            ):
                last = f"unexpected reply {reply.describe()}"
                self._note_error(LinkError(last, port=self.port, frame=what))
                continue
            if kind is MsgType.SET_FRAME:
                with self._cond:
                    self._frames_acked += 1
            return reply
        raise LinkLost(
            f"no good reply after {1 + self.retries} tries (last: {last})",
            port=self.port,
            frame=what,
        )

    def _exchange(self, kind: MsgType, body: bytes, what: str, timeout: float) -> Reply:
        """One request and its reply: wake byte, guard pause, frame, then read until our seq."""
        ser = self._serial
        if ser is None:
            raise LinkLost("port not open", port=self.port, frame=what)
        self._seq = (self._seq + 1) & 0xFF
        seq = self._seq
        wire = encode_frame(request_payload(kind, seq, body))
        try:
            ser.write(WAKE_BYTE)
            ser.flush()
            time.sleep(self._guard_s)
            ser.write(wire)
            ser.flush()
            if kind is MsgType.SET_FRAME:
                with self._cond:
                    self._frames_sent += 1
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self._stopping:  # stop() should not wait out a reply that no one needs
                    raise LinkClosed("the link was stopped", port=self.port, frame=what)
                data = ser.read(max(1, ser.in_waiting))
                for item in self._decoder.feed(data):
                    if item.error is not None:
                        log.debug("LED link %s: bad frame received: %s", self.port, item.error)
                        self._note_error(item.error)
                        continue
                    try:
                        reply = parse_reply(item.body)
                    except ProtocolError as error:
                        log.debug("LED link %s: %s", self.port, error)
                        self._note_error(error)
                        continue
                    if reply.seq != seq:
                        log.debug("LED link %s: stale reply %s", self.port, reply.describe())
                        continue
                    with self._cond:
                        self._last_reply_at = self._clock()
                    return reply
        except (serial.SerialException, OSError) as error:
            raise LinkLost(f"port failed: {error}", port=self.port, frame=what) from None
        raise LinkTimeout(f"no reply within {timeout * 1000:.0f} ms", port=self.port, frame=what)


__all__ = [
    "ButtonPress",
    "LedLink",
    "LinkClosed",
    "LinkError",
    "LinkHealth",
    "LinkLost",
    "LinkNak",
    "LinkProtocolError",
    "LinkState",
    "LinkTimeout",
    "NakCode",
]

"""The emulated LED board: the real firmware under simavr (or its host build), behind a pty.

Used by the tests, `takboard leds ... --port sim` and `takboard serve --sim`. It builds the firmware
with make (firmware/PROTOCOL.md section 8), runs the bridge with `--link PATH` so the serial port
keeps one name across restarts (like a udev symlink for a re-plugged board), and collects what the
bridge reports on stdout: every LED frame latched on the data pin (the decoded GRB bytes and their
timing in simulated cycles), every 0x00 the AVR's UART received, every reset. The push button on the
board's edge is pressed and released through the process's stdin (`press_button()`).

    with EmulatedBoard(baud=500000) as board:
        link = LedLink(board.port, ...)
        latch = board.wait_for_leds(lambda latch: latch.rgb(0) == (0, 0, 255), timeout=5)
        board.kill(); board.start()          # the cable pulled and plugged back
        board.press_button(); board.release_button()
"""

from __future__ import annotations

import collections
import contextlib
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from controller.leds.layout import LedConfig

REPO = Path(__file__).resolve().parents[2]
FIRMWARE = REPO / "firmware"
BUILD = FIRMWARE / "build"
SIM_BINARY = BUILD / "takboard-sim"
HOST_BINARY = BUILD / "takboard-host"
CPU_HZ = 16_000_000


class EmulatorError(RuntimeError):
    """The emulated board could not be built or started; says which command and what it printed."""


@dataclass(frozen=True)
class LedLatch:
    """One LED frame as it left the data pin (a `LEDS` line of the bridge)."""

    grb: bytes  # G, R, B per LED in chain order
    cycle: int | None = None  # simulated cycle of the last bit's falling edge (sim)
    start_cycle: int | None = None  # of the first rising edge (sim)
    ms: int | None = None  # firmware clock (host build)
    t0h: tuple[int, int] | None = None  # min, max high time of 0-bits, in cycles
    t1h: tuple[int, int] | None = None
    bit: tuple[int, int] | None = None  # min, max bit period, in cycles
    seen_at: float = 0.0  # host monotonic time the line was read

    @property
    def led_count(self) -> int:
        return len(self.grb) // 3

    def rgb(self, led: int) -> tuple[int, int, int]:
        g, r, b = self.grb[3 * led : 3 * led + 3]
        return (r, g, b)

    def squares(self, config: LedConfig) -> dict[str, tuple[int, int, int]]:
        """Square -> the colour of its first LED, through the layout (what a player sees)."""
        return {sq: self.rgb(config.leds(sq)[0]) for sq in config.square_order()}

    def lit(self, config: LedConfig) -> dict[str, tuple[int, int, int]]:
        return {sq: rgb for sq, rgb in self.squares(config).items() if rgb != (0, 0, 0)}


@dataclass(frozen=True)
class Event:
    """A non-LED line of the bridge: RXEND (a 0x00 reached the UART), RESET, or BUTTON (the
    button pin changed level; `down` says which way), at a cycle."""

    kind: str
    cycle: int
    seen_at: float
    down: bool | None = None  # BUTTON only


def _fields(words: list[str]) -> dict[str, str]:
    return dict(word.split("=", 1) for word in words if "=" in word)


def _pair(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    low, high = text.split(",")
    return (int(low), int(high))


def parse_leds_line(line: str, seen_at: float = 0.0) -> LedLatch:
    """`LEDS cycle=C start=S n=N grb=HEX t0h=A,B t1h=A,B bit=A,B` (sim) or `LEDS ms=T n=N grb=HEX`
    (host build) -> LedLatch."""
    f = _fields(line.split()[1:])
    grb = bytes.fromhex(f.get("grb", ""))
    if len(grb) != 3 * int(f["n"]):
        raise EmulatorError(f"LEDS line with n={f['n']} but {len(grb)} GRB bytes: {line!r}")
    return LedLatch(
        grb=grb,
        cycle=int(f["cycle"]) if "cycle" in f else None,
        start_cycle=int(f["start"]) if "start" in f else None,
        ms=int(f["ms"]) if "ms" in f else None,
        t0h=_pair(f.get("t0h")),
        t1h=_pair(f.get("t1h")),
        bit=_pair(f.get("bit")),
        seen_at=seen_at,
    )


def build(kind: str = "sim", baud: int = 500000) -> list[Path]:
    """Build what `kind` needs with make; returns [binary] (host) or [bridge, elf] (sim)."""
    if kind == "host":
        targets, outputs = ["host"], [HOST_BINARY]
    else:
        elf = BUILD / f"avr-{baud}" / "takboard.elf"
        targets, outputs = ["sim", "all", f"BAUD={baud}"], [SIM_BINARY, elf]
    command = ["make", "-s", "-C", str(FIRMWARE), *targets]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise EmulatorError(
            f"building the emulated LED board failed: {' '.join(command)}\n"
            f"{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    for output in outputs:
        if not output.exists():
            raise EmulatorError(f"{' '.join(command)} did not produce {output}")
    return outputs


def simavr_available() -> bool:
    """True when the simavr library headers are installed (so the bridge can be built)."""
    return Path("/usr/include/simavr/sim_avr.h").exists()


class EmulatedBoard:
    """The firmware under simavr (`kind="sim"`) or as a host program (`kind="host"`) on a pty.

    `kind="auto"` uses simavr when it is installed and falls back to the host build otherwise.
    """

    def __init__(
        self,
        *,
        baud: int = 500000,
        kind: str = "auto",
        workdir: str | Path | None = None,
        build_first: bool = True,
        keep: int = 20000,
        firmware: str | Path | None = None,
    ) -> None:
        if kind == "auto":
            kind = "sim" if simavr_available() else "host"
        if kind not in ("sim", "host"):
            raise ValueError(f"kind must be 'sim', 'host' or 'auto', got {kind!r}")
        self.kind = kind
        self.baud = baud
        self._own_dir = workdir is None
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="takboard-leds-"))
        self.port = str(self.workdir / "ttyTAKBOARD")
        self._build_first = build_first
        # another firmware image (an ELF for sim, a host-build binary for host): e.g. an older
        # release, to check that the host copes with it; None = the one this tree builds
        self.firmware = Path(firmware) if firmware is not None else None
        self._process: subprocess.Popen | None = None
        self._reader: threading.Thread | None = None
        self._cond = threading.Condition()
        self.latches: collections.deque[LedLatch] = collections.deque(maxlen=keep)
        self.events: collections.deque[Event] = collections.deque(maxlen=keep)
        self.latch_count = 0  # latches ever seen (the deque keeps only the newest `keep`)
        self.event_count = 0
        self.pty: str | None = None
        self.starts = 0
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=40)

    # --------------------------------------------------------------------------- lifecycle

    def command(self) -> list[str]:
        if self.kind == "host":
            return [str(self.firmware or HOST_BINARY), "--link", self.port]
        elf = self.firmware or BUILD / f"avr-{self.baud}" / "takboard.elf"
        return [str(SIM_BINARY), "--link", self.port, str(elf)]

    def start(self, timeout: float = 20.0) -> EmulatedBoard:
        """Build (first time only) and start the board; returns once its pty can be opened."""
        if self._process is not None and self._process.poll() is None:
            return self
        if self._build_first and self.starts == 0:
            build(self.kind, self.baud)
        with self._cond:
            self.pty = None
        self._process = subprocess.Popen(
            self.command(),
            stdin=subprocess.PIPE,  # BUTTON lines (press_button)
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            start_new_session=True,  # a Ctrl-C in the terminal reaches us, not the board
        )
        self.starts += 1
        process = self._process
        self._reader = threading.Thread(
            target=self._read, args=(process,), daemon=True, name="led-emulator-stdout"
        )
        self._reader.start()
        threading.Thread(target=self._drain_stderr, args=(process,), daemon=True).start()
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.pty is None:
                if process.poll() is not None:
                    raise EmulatorError(
                        f"{' '.join(self.command())} exited with {process.returncode} before "
                        f"giving its pty: {''.join(self._stderr_tail)[-1500:]}"
                    )
                left = deadline - time.monotonic()
                if left <= 0:
                    raise EmulatorError(f"{self.command()[0]} gave no PTY line in {timeout} s")
                self._cond.wait(min(left, 0.1))
        return self

    def kill(self) -> None:
        """SIGTERM and wait: the cable is pulled. The --link symlink stays, dangling."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        if self._reader is not None:
            self._reader.join(2)

    def restart(self, timeout: float = 20.0) -> None:
        self.kill()
        self.start(timeout)

    def reset(self) -> None:
        """Reset the AVR (SIGUSR1, sim only): like the reset button; the pty stays."""
        if self.kind != "sim":
            raise EmulatorError("only the simavr board can be reset in place")
        if self._process is None or self._process.poll() is not None:
            raise EmulatorError("the emulated board is not running")
        self._process.send_signal(signal.SIGUSR1)

    # --------------------------------------------------------------------------- the button

    def press_button(self) -> float:
        """Close the button's contact (a finger on the button at the board's edge); returns the
        monotonic time the line went to the board, for latency measurements."""
        return self._control("BUTTON 1")

    def release_button(self) -> float:
        return self._control("BUTTON 0")

    def bounce_button(self, levels: str, every_us: int) -> float:
        """Play raw levels ("1" closed, "0" open) one every `every_us` microseconds of simulated
        time: a contact that bounces (sim only: the host build has no simulated time)."""
        if self.kind != "sim":
            raise EmulatorError("only the simavr board plays timed button patterns")
        if not levels or set(levels) - {"0", "1"} or len(levels) > 64 or every_us <= 0:
            raise ValueError(
                f"want 1..64 levels of 0/1 and every_us > 0, got {levels!r}, {every_us}"
            )
        return self._control(f"BUTTON {levels} every={every_us}")

    def _control(self, line: str) -> float:
        process = self._process
        if process is None or process.poll() is not None or process.stdin is None:
            raise EmulatorError("the emulated board is not running")
        try:
            process.stdin.write(line + "\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise EmulatorError(f"the emulated board stopped listening: {error}") from None
        return time.monotonic()

    def close(self) -> None:
        self.kill()
        if self._own_dir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> EmulatedBoard:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    # --------------------------------------------------------------------------- output

    def _read(self, process: subprocess.Popen) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            now = time.monotonic()
            words = line.split()
            if not words:
                continue
            with self._cond:
                if words[0] == "PTY" and len(words) > 1:
                    self.pty = words[1]
                elif words[0] == "LEDS":
                    self.latches.append(parse_leds_line(line, now))
                    self.latch_count += 1
                elif words[0] in ("RXEND", "RESET", "BUTTON"):
                    fields = _fields(words[1:])
                    down = fields["down"] == "1" if "down" in fields else None
                    self.events.append(Event(words[0], int(fields.get("cycle", "0")), now, down))
                    self.event_count += 1
                self._cond.notify_all()

    def _drain_stderr(self, process: subprocess.Popen) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            self._stderr_tail.append(line)

    def mark(self) -> int:
        """A bookmark: how many latches were seen so far (for `wait_for_leds(after=...)`)."""
        with self._cond:
            return self.latch_count

    def wait_for_leds(
        self,
        predicate: Callable[[LedLatch], bool],
        timeout: float,
        *,
        after: int = 0,
    ) -> LedLatch:
        """The first latch numbered `after` or later (see `mark()`) that satisfies `predicate`;
        EmulatorError naming the last latch seen on timeout."""
        deadline = time.monotonic() + timeout
        checked = after
        with self._cond:
            while True:
                new = min(self.latch_count - checked, len(self.latches))
                for latch in list(self.latches)[len(self.latches) - new :] if new > 0 else []:
                    if predicate(latch):
                        return latch
                checked = self.latch_count
                left = deadline - time.monotonic()
                if left <= 0:
                    last = self.latches[-1].grb.hex() if self.latches else "none"
                    raise EmulatorError(
                        f"no LED frame matched within {timeout} s ({self.latch_count} seen, "
                        f"last grb {last[:96]})"
                    )
                if not self.running:
                    raise EmulatorError("the emulated board is not running")
                self._cond.wait(min(left, 0.1))

    def latches_since(self, mark: int) -> list[LedLatch]:
        """Latches numbered `mark` or later (take `mark` from `mark()`), oldest first."""
        with self._cond:
            new = min(self.latch_count - mark, len(self.latches))
            return list(self.latches)[len(self.latches) - new :] if new > 0 else []

    def events_since(self, mark: int) -> list[Event]:
        """Events numbered `mark` or later (take `mark` from `event_count`)."""
        with self._cond:
            new = min(self.event_count - mark, len(self.events))
            return list(self.events)[len(self.events) - new :] if new > 0 else []

    def latest(self) -> LedLatch | None:
        with self._cond:
            return self.latches[-1] if self.latches else None

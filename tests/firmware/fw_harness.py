"""Test harness for the LED firmware: an independent codec for protocol v1 and launchers for the
host build (scripted, virtual clock) and the real AVR ELF under the simavr bridge.

The codec here is written from firmware/PROTOCOL.md on purpose, separately from controller/leds, so
the firmware tests check the firmware against the document and not against the host's own code.
"""

from __future__ import annotations

import queue
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import serial

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
BUILD = FIRMWARE / "build"
HOST_ASAN = BUILD / "takboard-host-asan"
SIM = BUILD / "takboard-sim"
F_CPU = 16_000_000

HELLO, PING, SET_FRAME, SET_BRIGHTNESS, SET_CONFIG, GET_STATS = 0x01, 0x02, 0x03, 0x04, 0x05, 0x06
GET_INPUT = 0x07
ACK, INFO, PONG, STATS, INPUT, NAK = 0x80, 0x81, 0x82, 0x86, 0x87, 0xFF
BAD_CRC, BAD_COBS, TOO_LONG, BAD_LENGTH, UNKNOWN_TYPE, BAD_VALUE, BUSY = range(1, 8)
OFF, SOLID, BLINK, PULSE = range(4)


def elf_path(baud: int = 500000) -> Path:
    return BUILD / f"avr-{baud}" / "takboard.elf"


_built: set[tuple[str, int]] = set()


def build_once(*targets: str, baud: int = 500000) -> None:
    """make, once per test session for the same targets (make itself is incremental anyway)."""
    key = (" ".join(targets), baud)
    if key not in _built:
        if "sim" in targets and shutil.which("avr-gcc") is None:
            raise RuntimeError("avr-gcc missing: install gcc-avr avr-libc (see bootstrap.sh)")
        make(*targets, baud=baud)
        _built.add(key)


def make(*targets: str, baud: int = 500000) -> None:
    """Builds firmware targets; raises with make's output on failure."""
    result = subprocess.run(
        ["make", "-s", "-C", str(FIRMWARE), *targets, f"BAUD={baud}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode != 0:
        raise RuntimeError(f"make {' '.join(targets)} failed:\n{result.stdout}\n{result.stderr}")


# ---- codec (PROTOCOL.md sections 1 and 7) ----
def crc16(data: bytes) -> int:
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def cobs_encode(data: bytes) -> bytes:
    out = bytearray()
    group = bytearray()
    for byte in data:
        if byte == 0:
            out += bytes([len(group) + 1]) + group
            group.clear()
            continue
        group.append(byte)
        if len(group) == 254:
            out += b"\xff" + group
            group.clear()
    out += bytes([len(group) + 1]) + group
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(data):
        code = data[i]
        if code == 0 or i + code > len(data):
            raise ValueError(f"bad COBS at {i}: {data.hex()}")
        out += data[i + 1 : i + code]
        i += code
        if code != 0xFF and i < len(data):
            out.append(0)
    return bytes(out)


def payload(msg_type: int, seq: int, body: bytes = b"") -> bytes:
    raw = bytes([msg_type, seq]) + body
    crc = crc16(raw)
    return raw + bytes([crc & 0xFF, crc >> 8])


def wire(msg_type: int, seq: int, body: bytes = b"") -> bytes:
    return cobs_encode(payload(msg_type, seq, body)) + b"\x00"


@dataclass(frozen=True)
class Reply:
    type: int
    seq: int
    body: bytes


def parse_reply(frame: bytes) -> Reply:
    """One wire frame (with or without its trailing 0x00) -> Reply; checks the CRC."""
    raw = cobs_decode(frame.rstrip(b"\x00"))
    assert len(raw) >= 4, f"reply too short: {frame.hex()}"
    assert crc16(raw[:-2]) == raw[-2] | (raw[-1] << 8), f"reply with a bad CRC: {frame.hex()}"
    return Reply(raw[0], raw[1], raw[2:-2])


def square_record(r: int, g: int, b: int, effect: int = SOLID, period: int = 0) -> bytes:
    return bytes([r, g, b, effect, period])


def frame_body(records: list[bytes]) -> bytes:
    return bytes([len(records)]) + b"".join(records)


def config_body(size=8, lps=1, wiring=1, corner=0, axis=0, budget=1500, watchdog=5000) -> bytes:
    return bytes([size, lps, wiring, corner, axis]) + budget.to_bytes(2, "little") + \
        watchdog.to_bytes(2, "little") + b"\x00"


def estimate_ma(grb: bytes) -> int:
    """PROTOCOL.md section 5."""
    return len(grb) // 3 + sum(grb) * 20 // 255


def u16(body: bytes, offset: int) -> int:
    return body[offset] | (body[offset + 1] << 8)


# ---- the host build, scripted ----
@dataclass
class LedWrite:
    grb: bytes
    ms: int | None = None
    cycle: int | None = None
    start: int | None = None
    t0h: tuple[int, int] | None = None
    t1h: tuple[int, int] | None = None
    bit: tuple[int, int] | None = None

    def rgb(self, led: int) -> tuple[int, int, int]:
        g, r, b = self.grb[3 * led : 3 * led + 3]
        return (r, g, b)


def parse_leds_line(line: str) -> LedWrite:
    fields = dict(word.split("=", 1) for word in line.split()[1:])

    def pair(name: str) -> tuple[int, int] | None:
        if name not in fields:
            return None
        low, high = fields[name].split(",")
        return (int(low), int(high))

    grb = bytes.fromhex(fields["grb"])
    assert len(grb) == 3 * int(fields["n"]), line
    return LedWrite(
        grb=grb,
        ms=int(fields["ms"]) if "ms" in fields else None,
        cycle=int(fields["cycle"]) if "cycle" in fields else None,
        start=int(fields["start"]) if "start" in fields else None,
        t0h=pair("t0h"),
        t1h=pair("t1h"),
        bit=pair("bit"),
    )


@dataclass
class Output:
    replies: list[Reply] = field(default_factory=list)
    leds: list[LedWrite] = field(default_factory=list)


class HostScript:
    """The core on the host (ASan/UBSan build) driven line by line, with a virtual clock."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [str(HOST_ASAN), "--script"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def _run(self, *lines: str) -> Output:
        assert self.proc.stdin and self.proc.stdout
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.write("sync\n")
        self.proc.stdin.flush()
        out = Output()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                err = self.proc.stderr.read() if self.proc.stderr else ""
                raise RuntimeError(f"host build died (exit {self.proc.wait()}):\n{err}")
            line = line.strip()
            if line == "SYNC":
                return out
            if line.startswith("TX "):
                out.replies.append(parse_reply(bytes.fromhex(line[3:])))
            elif line.startswith("LEDS "):
                out.leds.append(parse_leds_line(line))

    def rx(self, data: bytes) -> Output:
        return self._run(f"rx {data.hex()}") if data else Output()

    def request(self, msg_type: int, seq: int, body: bytes = b"") -> Output:
        """A conforming host: wake byte, then the frame."""
        return self._run("rx 00", f"rx {wire(msg_type, seq, body).hex()}")

    def during_next_write(self, data: bytes) -> None:
        self._run(f"during {data.hex()}")

    def tick(self, ms: int) -> Output:
        return self._run(f"tick {ms}")

    def button(self, down: bool) -> None:
        """The contact closes (True) or opens: the raw level, bounce included."""
        self._run(f"button {int(down)}")

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin
            self.proc.stdin.close()
            code = self.proc.wait(timeout=10)
            err = self.proc.stderr.read() if self.proc.stderr else ""
            assert code == 0, f"host build exited {code}:\n{err}"


# ---- the real ELF under simavr ----
class SimBoard:
    """takboard-sim running the AVR ELF, a pyserial port on its pty, its report lines parsed."""

    def __init__(self, elf: Path, link: Path | None = None, speed: float = 1.0) -> None:
        command = [str(SIM), "--speed", str(speed)]
        if link is not None:
            command += ["--link", str(link)]
        command.append(str(elf))
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        assert self.proc.stdout
        first = self.proc.stdout.readline().split()
        assert first and first[0] == "PTY", f"bridge did not report a pty: {first}"
        self.pty = first[1]
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.leds: list[LedWrite] = []
        self.rxend: list[int] = []
        self.resets: list[int] = []
        self.leds_at_reset: list[int] = []  # len(self.leds) when each RESET line was read
        self.button_edges: list[tuple[int, bool]] = []  # (cycle, down) as the bridge applied them
        self.port = serial.Serial(self.pty, timeout=0.05)
        self.seq = 0
        # Like a Nano after reset, the board hears nothing until its firmware has started: wait
        # for the first LED frame it writes (the waiting-for-host pattern) before talking to it.
        self.wait_leds(lambda _write: True, timeout=20, since=0)

    def _read(self) -> None:
        assert self.proc.stdout
        for line in self.proc.stdout:
            self.lines.put(line.strip())

    def pump(self) -> None:
        """Moves the bridge's report lines into leds/rxend/resets."""
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return
            if line.startswith("LEDS "):
                self.leds.append(parse_leds_line(line))
            elif line.startswith("RXEND "):
                self.rxend.append(int(line.split("=")[1]))
            elif line.startswith("RESET "):
                self.resets.append(int(line.split("=")[1]))
                self.leds_at_reset.append(len(self.leds))
            elif line.startswith("BUTTON "):
                fields = dict(word.split("=", 1) for word in line.split()[1:])
                self.button_edges.append((int(fields["cycle"]), fields["down"] == "1"))

    def read_reply(self, timeout: float = 2.0) -> Reply | None:
        buf = bytearray()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            chunk = self.port.read(1)
            if not chunk:
                continue
            if chunk == b"\x00":
                if buf:
                    return parse_reply(bytes(buf))
                continue
            buf += chunk
        return None

    def request(self, msg_type: int, body: bytes = b"", timeout: float = 5.0) -> Reply:
        """A conforming host: wake byte, guard, frame, then wait for the reply."""
        self.seq = (self.seq + 1) & 0xFF
        self.port.write(b"\x00")
        self.port.flush()
        time.sleep(0.006)
        self.port.write(wire(msg_type, self.seq, body))
        self.port.flush()
        deadline = time.monotonic() + timeout
        while True:
            reply = self.read_reply(max(0.0, deadline - time.monotonic()))
            assert reply is not None, f"no reply to type {msg_type:#x} seq {self.seq}"
            if reply.seq == self.seq:  # others are stale replies to earlier requests
                return reply

    def wait_leds(self, predicate, timeout: float = 5.0, since: int | None = None) -> LedWrite:
        """The first LED frame reported after this call starts (or after frame number `since`)
        that satisfies `predicate`."""
        deadline = time.monotonic() + timeout
        seen = len(self.leds) if since is None else since
        while time.monotonic() < deadline:
            self.pump()
            for write in self.leds[seen:]:
                if predicate(write):
                    return write
            seen = len(self.leds)
            time.sleep(0.01)
        raise AssertionError(f"no matching LED frame within {timeout} s ({len(self.leds)} seen)")

    def reset(self) -> None:
        self.proc.send_signal(signal.SIGUSR1)

    def reset_and_boot(self, timeout: float = 10.0) -> LedWrite:
        """Reset the AVR and wait for the first LED frame the rebooted firmware writes (only then
        does it hear the line again, like a Nano after reset)."""
        self.pump()
        before = len(self.resets)
        self.reset()
        deadline = time.monotonic() + timeout
        while len(self.resets) == before:
            assert time.monotonic() < deadline, "the bridge reported no RESET"
            time.sleep(0.01)
            self.pump()
        return self.wait_leds(lambda _w: True, timeout, since=self.leds_at_reset[before])

    def button(self, levels: str, every_us: int | None = None) -> None:
        """Drive the button pin through the bridge: "1" pressed, "0" released, or a string of
        levels played one every `every_us` of simulated time (a bouncing contact)."""
        assert self.proc.stdin
        suffix = f" every={every_us}" if every_us is not None else ""
        self.proc.stdin.write(f"BUTTON {levels}{suffix}\n")
        self.proc.stdin.flush()

    def wait_button_edges(self, count: int, timeout: float = 5.0) -> list[tuple[int, bool]]:
        """Waits until the bridge has reported `count` applied button levels in all."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pump()
            if len(self.button_edges) >= count:
                return self.button_edges
            time.sleep(0.01)
        raise AssertionError(f"bridge applied {len(self.button_edges)} button levels, not {count}")

    def close(self) -> None:
        self.port.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            code = self.proc.wait(timeout=10)
            assert code == 0, f"bridge exited {code} on SIGTERM"


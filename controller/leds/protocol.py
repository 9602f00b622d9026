"""Messages of the LED link, protocol version 1 (firmware/PROTOCOL.md): requests out, replies in.

Pure functions and values; `link.py` does the I/O. Integers are little-endian on the wire.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from controller.leds.frame import PERIOD_STEP_MS, Effect, LedFrame
from controller.leds.layout import AXES, CORNERS, WIRINGS, LedConfig
from controller.tak import parse_square

PROTOCOL_VERSION = 1
WAKE_BYTE = b"\x00"
DEFAULT_WAKE_GUARD_US = 5000  # before INFO tells the real one (PROTOCOL.md section 3)


class MsgType(IntEnum):
    HELLO = 0x01
    PING = 0x02
    SET_FRAME = 0x03
    SET_BRIGHTNESS = 0x04
    SET_CONFIG = 0x05
    GET_STATS = 0x06
    GET_INPUT = 0x07  # firmware 1.1 and later; 1.0 NAKs it UNKNOWN_TYPE
    ACK = 0x80
    INFO = 0x81
    PONG = 0x82
    STATS = 0x86
    INPUT = 0x87
    NAK = 0xFF


class NakCode(IntEnum):
    BAD_CRC = 1
    BAD_COBS = 2
    TOO_LONG = 3
    BAD_LENGTH = 4
    UNKNOWN_TYPE = 5
    BAD_VALUE = 6
    BUSY = 7


# Line damage: sending the same request again may well work. The others mean the request itself
# is wrong for this firmware, and repeating it cannot help.
RETRYABLE_NAKS = frozenset({NakCode.BAD_CRC, NakCode.BAD_COBS, NakCode.TOO_LONG, NakCode.BUSY})

EFFECT_CODES = {Effect.OFF: 0, Effect.SOLID: 1, Effect.BLINK: 2, Effect.PULSE: 3}


class ProtocolError(ValueError):
    """A reply that does not follow PROTOCOL.md: says which message and what was wrong."""


@dataclass(frozen=True)
class FirmwareInfo:
    """The INFO reply (PROTOCOL.md 4.1)."""

    protocol_version: int
    firmware_version: str
    board_size: int
    squares: int
    leds_per_square: int
    led_count: int
    wiring: str
    start_corner: str
    axis: str
    budget_ma: int
    watchdog_ms: int
    brightness: int
    max_leds: int
    wake_guard_us: int
    waiting_for_host: bool
    reset_cause: int
    baud: int | None  # None: another speed, or the host build

    FORMAT = "<BBBBBBBHBBBHHBHHBBB"
    SIZE = struct.calcsize(FORMAT)

    @classmethod
    def parse(cls, body: bytes) -> FirmwareInfo:
        if len(body) != cls.SIZE:
            raise ProtocolError(f"INFO body is {len(body)} bytes, expected {cls.SIZE}")
        (
            version,
            major,
            minor,
            patch,
            size,
            squares,
            per_square,
            led_count,
            wiring,
            corner,
            axis,
            budget,
            watchdog,
            brightness,
            max_leds,
            guard,
            state,
            reset_cause,
            baud_code,
        ) = struct.unpack(cls.FORMAT, body)
        try:
            return cls(
                protocol_version=version,
                firmware_version=f"{major}.{minor}.{patch}",
                board_size=size,
                squares=squares,
                leds_per_square=per_square,
                led_count=led_count,
                wiring=WIRINGS[wiring],
                start_corner=CORNERS[corner],
                axis=AXES[axis],
                budget_ma=budget,
                watchdog_ms=watchdog,
                brightness=brightness,
                max_leds=max_leds,
                wake_guard_us=guard,
                waiting_for_host=bool(state),
                reset_cause=reset_cause,
                baud={0: 115200, 1: 250000, 2: 500000}.get(baud_code),
            )
        except IndexError:
            raise ProtocolError(
                f"INFO has an unknown wiring/corner/axis code ({wiring}, {corner}, {axis})"
            ) from None

    def matches(self, config: LedConfig) -> bool:
        """True when the firmware already runs with this configuration (no SET_CONFIG needed)."""
        return (
            self.board_size == config.size
            and self.leds_per_square == config.leds_per_square
            and (self.wiring, self.start_corner, self.axis)
            == (config.wiring, config.start_corner, config.axis)
            and self.budget_ma == config.budget_ma
            and self.watchdog_ms == config.watchdog_ms
        )


@dataclass(frozen=True)
class Stats:
    """The STATS reply (PROTOCOL.md 4.6): counters since the board booted."""

    frames_ok: int
    crc_errors: int
    cobs_errors: int
    too_long: int
    busy: int
    watchdog_trips: int
    led_writes: int
    last_estimate_ma: int
    last_request_ma: int
    uptime_ms: int
    naks_sent: int

    FORMAT = "<HHHHHHHHHIH"
    SIZE = struct.calcsize(FORMAT)

    @classmethod
    def parse(cls, body: bytes) -> Stats:
        if len(body) != cls.SIZE:
            raise ProtocolError(f"STATS body is {len(body)} bytes, expected {cls.SIZE}")
        return cls(*struct.unpack(cls.FORMAT, body))


@dataclass(frozen=True)
class InputState:
    """The INPUT reply (PROTOCOL.md 4.8): the board's push button, debounced by the firmware."""

    presses: int  # released -> pressed transitions since the firmware booted, u16, wraps
    down: bool  # the button is held now
    waiting_for_host: bool  # the same as INFO's state
    uptime_ms: int  # firmware clock (wraps at 2^32): going back means the firmware restarted

    FORMAT = "<HBBI"
    SIZE = struct.calcsize(FORMAT)

    @classmethod
    def parse(cls, body: bytes) -> InputState:
        if len(body) != cls.SIZE:
            raise ProtocolError(f"INPUT body is {len(body)} bytes, expected {cls.SIZE}")
        presses, down, state, uptime = struct.unpack(cls.FORMAT, body)
        if down > 1 or state > 1:
            raise ProtocolError(f"INPUT has down={down}, state={state}; both must be 0 or 1")
        return cls(presses, bool(down), bool(state), uptime)


@dataclass(frozen=True)
class Reply:
    """One reply from the firmware, checked against the length its type requires."""

    type: MsgType
    seq: int
    body: bytes

    @property
    def nak_code(self) -> NakCode | int | None:
        if self.type is not MsgType.NAK:
            return None
        try:
            return NakCode(self.body[1])
        except ValueError:
            return self.body[1]

    @property
    def request_type(self) -> int | None:
        """The request an ACK or NAK answers."""
        return self.body[0] if self.type in (MsgType.ACK, MsgType.NAK) else None

    def describe(self) -> str:
        if self.type is MsgType.NAK:
            code = self.nak_code
            name = code.name if isinstance(code, NakCode) else f"code {code}"
            return f"NAK {name} (seq {self.seq}, request type 0x{self.body[0]:02x})"
        return f"{self.type.name} (seq {self.seq})"


_REPLY_LENGTHS = {
    MsgType.ACK: (1, 1),
    MsgType.INFO: (FirmwareInfo.SIZE, FirmwareInfo.SIZE),
    MsgType.PONG: (0, 16),
    MsgType.STATS: (Stats.SIZE, Stats.SIZE),
    MsgType.INPUT: (InputState.SIZE, InputState.SIZE),
    MsgType.NAK: (2, 2),
}


def parse_reply(payload: bytes) -> Reply:
    """A CRC-checked payload (type, seq, body) -> Reply; ProtocolError for anything else."""
    if len(payload) < 2:
        raise ProtocolError(f"reply of {len(payload)} bytes has no type and seq")
    try:
        kind = MsgType(payload[0])
    except ValueError:
        raise ProtocolError(f"unknown reply type 0x{payload[0]:02x}") from None
    if kind not in _REPLY_LENGTHS:
        raise ProtocolError(f"{kind.name} is a request; the firmware never sends it")
    low, high = _REPLY_LENGTHS[kind]
    body = payload[2:]
    if not low <= len(body) <= high:
        raise ProtocolError(f"{kind.name} body is {len(body)} bytes, expected {low}..{high}")
    return Reply(kind, payload[1], body)


def request_payload(kind: MsgType, seq: int, body: bytes = b"") -> bytes:
    """type, seq, body: what `framing.encode_frame` wraps."""
    return bytes([int(kind), seq & 0xFF]) + body


def set_frame_body(frame: LedFrame, board_size: int) -> bytes:
    """SET_FRAME body for a board whose firmware is configured `board_size` squares wide.

    A smaller game (a 5x5 frame on an 8x8 LED grid) sits in the a1 corner. Only squares up to the
    last lit one are sent: the firmware turns the rest off, and a short frame is a fast frame.
    """
    if frame.size > board_size:
        raise ValueError(
            f"a {frame.size}x{frame.size} frame does not fit the "
            f"{board_size}x{board_size} LED board"
        )
    records: dict[int, bytes] = {}
    for square, light in frame.lit().items():
        file, rank = parse_square(square, frame.size)
        c = light.colour
        # The period only means something for blink and pulse; 0 otherwise, as in PROTOCOL.md 7.
        animated = light.effect in (Effect.BLINK, Effect.PULSE)
        period = light.period_ms // PERIOD_STEP_MS if animated else 0
        records[rank * board_size + file] = bytes(
            [c.r, c.g, c.b, EFFECT_CODES[light.effect], period]
        )
    count = max(records, default=-1) + 1
    off = bytes(5)
    return bytes([count]) + b"".join(records.get(i, off) for i in range(count))


def set_config_body(config: LedConfig) -> bytes:
    wiring, corner, axis = config.config_codes()
    return struct.pack(
        "<BBBBBHHB",
        config.size,
        config.leds_per_square,
        wiring,
        corner,
        axis,
        config.budget_ma,
        config.watchdog_ms,
        0,
    )


def set_brightness_body(brightness: int) -> bytes:
    if not 0 <= brightness <= 255:
        raise ValueError(f"brightness must be 0..255, got {brightness!r}")
    return bytes([brightness])

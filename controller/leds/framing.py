"""Byte-level framing of the LED link: COBS, CRC-16/CCITT-FALSE and a resyncing stream decoder.

On the wire (firmware/PROTOCOL.md section 1) every frame is `COBS(body + crc16(body) little-endian)`
then 0x00. COBS removes every zero byte from the encoded data, so 0x00 only ever means "end of
frame": a receiver that lost its place (garbage, a dropped byte, a board reset mid-frame) waits for
the next 0x00 and starts afresh. Here "body" is everything the CRC covers (type, seq and the
message body); `protocol.py` gives it its meaning.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

DELIMITER = 0x00

# The firmware's receive buffer (PROTOCOL.md section 1); nothing valid is longer. A longer run of
# bytes without a delimiter is noise, and the decoder drops it instead of growing without bound.
MAX_ENCODED_FRAME = 330
MIN_BODY = 2  # type and seq


class FramingError(ValueError):
    """A received frame that cannot be decoded: says what was wrong and shows its first bytes."""

    def __init__(self, why: str, raw: bytes) -> None:
        shown = raw[:16].hex(" ") + (" ..." if len(raw) > 16 else "")
        super().__init__(f"{why} (frame of {len(raw)} bytes: {shown})")
        self.why = why
        self.raw = raw


def crc16_ccitt_false(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final xor.

    >>> hex(crc16_ccitt_false(b"123456789"))
    '0x29b1'
    """
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result contains no 0x00 and is at most
    len(data) + len(data) // 254 + 1 bytes long.

    >>> cobs_encode(bytes([0x11, 0x00, 0x22])).hex(" ")
    '02 11 02 22'
    """
    out = bytearray([0])  # placeholder for the first block's code byte
    code_at, code = 0, 1
    for i, byte in enumerate(data):
        if byte != 0:
            out.append(byte)
            code += 1
        if byte == 0 or code == 0xFF:
            out[code_at] = code
            # A full block (254 data bytes) carries no implied zero; start a new block only when
            # data follows it, so 254 non-zero bytes encode to exactly 255.
            if byte == 0 or i + 1 < len(data):
                code_at, code = len(out), 1
                out.append(0)
            else:
                return bytes(out)
    out[code_at] = code
    return bytes(out)


def cobs_decode(encoded: bytes) -> bytes:
    """Inverse of `cobs_encode`; FramingError on a zero byte or a block running past the end."""
    out = bytearray()
    i = 0
    n = len(encoded)
    while i < n:
        code = encoded[i]
        if code == 0:
            raise FramingError(f"COBS: zero byte at offset {i}", encoded)
        end = i + code
        if end > n:
            raise FramingError(
                f"COBS: block at offset {i} claims {code - 1} bytes, only {n - i - 1} left", encoded
            )
        block = encoded[i + 1 : end]
        if 0 in block:
            raise FramingError(f"COBS: zero byte inside block at offset {i}", encoded)
        out += block
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(body: bytes) -> bytes:
    """body -> bytes for the wire: COBS(body + CRC little-endian) followed by the 0x00 delimiter."""
    crc = crc16_ccitt_false(body)
    return cobs_encode(body + bytes([crc & 0xFF, crc >> 8])) + bytes([DELIMITER])


def decode_frame(encoded: bytes) -> bytes:
    """One frame's bytes between delimiters (no 0x00) -> its body, CRC checked."""
    if not encoded:
        raise FramingError("empty frame", encoded)
    raw = cobs_decode(encoded)
    if len(raw) < MIN_BODY + 2:
        raise FramingError(f"too short: {len(raw)} bytes after COBS, need type, seq, CRC", encoded)
    body, got = raw[:-2], raw[-2] | (raw[-1] << 8)
    want = crc16_ccitt_false(body)
    if got != want:
        raise FramingError(f"bad CRC: got 0x{got:04x}, body gives 0x{want:04x}", encoded)
    return body


@dataclass(frozen=True)
class Decoded:
    """One item out of the stream decoder: a good body, or the error that made a frame unusable."""

    body: bytes | None
    error: FramingError | None = None


class StreamDecoder:
    """Feed it bytes as they arrive; it yields one `Decoded` per delimiter-terminated frame.

    Empty frames (two delimiters in a row, which a sender may use to flush a receiver) are skipped
    silently. An overlong run of bytes is reported once and dropped up to the next delimiter.
    """

    def __init__(self, max_frame: int = MAX_ENCODED_FRAME) -> None:
        self._buffer = bytearray()
        self._max = max_frame
        self._overflowed = False

    def feed(self, data: bytes) -> Iterator[Decoded]:
        for byte in data:
            if byte != DELIMITER:
                if self._overflowed:
                    continue
                self._buffer.append(byte)
                if len(self._buffer) > self._max:
                    raw = bytes(self._buffer)
                    self._buffer.clear()
                    self._overflowed = True
                    yield Decoded(None, FramingError(f"no delimiter within {self._max} bytes", raw))
                continue
            if self._overflowed:
                self._overflowed = False
                continue
            if not self._buffer:
                continue
            raw = bytes(self._buffer)
            self._buffer.clear()
            try:
                yield Decoded(decode_frame(raw))
            except FramingError as error:
                yield Decoded(None, error)

    def reset(self) -> None:
        """Forget a partial frame (after reopening the port)."""
        self._buffer.clear()
        self._overflowed = False

"""COBS + CRC framing: round trips, known vectors, and garbage that must never crash the decoder."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.leds.framing import (
    FramingError,
    StreamDecoder,
    cobs_decode,
    cobs_encode,
    crc16_ccitt_false,
    decode_frame,
    encode_frame,
)


def test_crc_matches_the_published_check_value():
    assert crc16_ccitt_false(b"123456789") == 0x29B1
    assert crc16_ccitt_false(b"") == 0xFFFF


@pytest.mark.parametrize(
    ("raw", "encoded"),
    [
        (b"", b"\x01"),
        (b"\x00", b"\x01\x01"),
        (b"\x00\x00", b"\x01\x01\x01"),
        (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
        (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
        (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255))),
        (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff"),
    ],
)
def test_cobs_matches_known_vectors(raw, encoded):
    assert cobs_encode(raw) == encoded
    assert cobs_decode(encoded) == raw


@given(st.binary(max_size=700))
def test_cobs_round_trips_and_never_contains_zero(data):
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert cobs_decode(encoded) == data


@given(st.binary(min_size=2, max_size=300))
def test_frame_round_trips_through_the_stream_decoder(body):
    decoder = StreamDecoder()
    out = list(decoder.feed(encode_frame(body)))
    assert [d.body for d in out] == [body]


@given(st.binary(max_size=400))
def test_garbage_never_raises_and_only_yields_crc_checked_bodies(garbage):
    decoder = StreamDecoder()
    for item in decoder.feed(garbage):
        if item.body is not None:
            # Anything accepted from noise must still carry a matching CRC (1 in 65536 chance).
            assert item.error is None
        else:
            assert isinstance(item.error, FramingError)


@settings(max_examples=300)
@given(st.binary(max_size=200), st.binary(min_size=2, max_size=100))
def test_decoder_resyncs_at_the_next_delimiter_after_garbage(garbage, body):
    decoder = StreamDecoder()
    # Garbage, then a delimiter (what a sender does to flush), then a good frame.
    items = list(decoder.feed(garbage + b"\x00" + encode_frame(body)))
    assert items[-1].body == body


def test_single_flipped_bit_is_caught_by_the_crc():
    rng = random.Random(7)
    body = bytes(rng.randrange(256) for _ in range(200))
    wire = bytearray(encode_frame(body))
    caught = 0
    for _ in range(200):
        corrupted = bytearray(wire)
        i = rng.randrange(len(corrupted) - 1)
        corrupted[i] ^= 1 << rng.randrange(8)
        if corrupted[i] == 0:
            continue  # became a delimiter: then it is two broken frames, also never a good one
        with pytest.raises(FramingError):
            decode_frame(bytes(corrupted[:-1]))
        caught += 1
    assert caught > 150


def test_frame_split_across_many_reads_decodes_once():
    body = bytes(range(256)) + bytes(range(40))
    decoder = StreamDecoder()
    bodies = []
    for byte in encode_frame(body):
        bodies += [d.body for d in decoder.feed(bytes([byte]))]
    assert bodies == [body]


def test_overlong_run_is_reported_once_and_then_resyncs():
    decoder = StreamDecoder(max_frame=64)
    items = list(decoder.feed(b"\x55" * 500 + b"\x00" + encode_frame(b"ok")))
    errors = [i.error for i in items if i.error]
    assert len(errors) == 1
    assert "no delimiter within 64 bytes" in str(errors[0])
    assert items[-1].body == b"ok"


def test_errors_say_what_was_wrong():
    with pytest.raises(FramingError, match="bad CRC"):
        decode_frame(cobs_encode(b"abc\x00\x00"))
    with pytest.raises(FramingError, match="too short"):
        decode_frame(cobs_encode(b"ab\x01"))
    with pytest.raises(FramingError, match="claims"):
        cobs_decode(b"\x09\x01")


def test_worked_examples_of_the_protocol_document_encode_byte_for_byte():
    # firmware/PROTOCOL.md section 7: HELLO seq 7, SET_FRAME seq 0x2a, and the ACK.
    assert encode_frame(bytes.fromhex("0107")) == bytes.fromhex("050107d95e00")
    set_frame = bytes.fromhex("032a02ff000001000000ff020a")
    assert encode_frame(set_frame) == bytes.fromhex(
        "05032a02ff0102010101 06ff020ad6e900".replace(" ", "")
    )
    assert decode_frame(bytes.fromhex("06802a03882e")) == bytes.fromhex("802a03")

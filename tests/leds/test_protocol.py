"""Protocol v1 messages (firmware/PROTOCOL.md): requests byte for byte, replies checked."""

from __future__ import annotations

import struct

import pytest

from controller.leds.frame import Colour, LedFrame, Light
from controller.leds.framing import encode_frame
from controller.leds.layout import LedConfig
from controller.leds.protocol import (
    FirmwareInfo,
    MsgType,
    NakCode,
    ProtocolError,
    parse_reply,
    request_payload,
    set_config_body,
    set_frame_body,
)

RED, BLUE = Colour(255, 0, 0), Colour(0, 0, 255)


def test_set_frame_of_the_protocol_example_is_built_byte_for_byte():
    frame = LedFrame(8, {"a1": Light.solid(RED), "b1": Light.blink(BLUE, 200)})
    wire = encode_frame(request_payload(MsgType.SET_FRAME, 0x2A, set_frame_body(frame, 8)))
    assert wire == bytes.fromhex("05032a02ff010201010106ff020ad6e900")


def test_set_frame_numbers_squares_by_rank_and_sends_only_up_to_the_last_lit_one():
    body = set_frame_body(LedFrame(5, {"c2": Light.pulse(BLUE, 1000)}), board_size=8)
    # c2 on an 8-wide LED board is square 1 * 8 + 2 = 10: eleven records, ten of them off.
    assert body[0] == 11
    assert body[1 : 1 + 50] == bytes(50)
    assert body[51:] == bytes([0, 0, 255, 3, 50])
    assert set_frame_body(LedFrame(8), 8) == b"\x00"


def test_a_frame_larger_than_the_led_board_is_refused():
    with pytest.raises(ValueError, match="6x6 frame does not fit the 5x5 LED board"):
        set_frame_body(LedFrame(6), 5)


def test_set_config_packs_the_documented_ten_bytes():
    body = set_config_body(LedConfig(size=6, wiring="row-major", start_corner="top-left"))
    assert body == bytes([6, 1, 0, 2, 0]) + struct.pack("<HH", 1500, 5000) + b"\x00"


def info_body(**overrides) -> bytes:
    fields = dict(
        version=1,
        major=1,
        minor=2,
        patch=3,
        size=8,
        squares=64,
        per=1,
        leds=64,
        wiring=1,
        corner=0,
        axis=0,
        budget=1500,
        watchdog=5000,
        brightness=255,
        max_leds=128,
        guard=2500,
        state=1,
        reset=1,
        baud=1,
    )
    fields.update(overrides)
    return struct.pack(FirmwareInfo.FORMAT, *fields.values())


def test_info_is_parsed_and_compared_with_the_wanted_config():
    reply = parse_reply(bytes([0x81, 9]) + info_body())
    info = FirmwareInfo.parse(reply.body)
    assert (info.firmware_version, info.baud, info.wake_guard_us) == ("1.2.3", 250000, 2500)
    assert info.waiting_for_host and info.matches(LedConfig())
    assert not info.matches(LedConfig(size=5))


def test_replies_of_the_wrong_shape_are_protocol_errors():
    with pytest.raises(ProtocolError, match="ACK body is 0 bytes"):
        parse_reply(bytes([0x80, 1]))
    with pytest.raises(ProtocolError, match="unknown reply type 0x42"):
        parse_reply(bytes([0x42, 1]))
    with pytest.raises(ProtocolError, match="SET_FRAME is a request"):
        parse_reply(bytes([0x03, 1, 0]))
    with pytest.raises(ProtocolError, match="unknown wiring/corner/axis"):
        FirmwareInfo.parse(info_body(corner=9))


def test_nak_says_what_was_refused():
    reply = parse_reply(bytes([0xFF, 5, 0x03, 7]))
    assert reply.nak_code is NakCode.BUSY and reply.request_type == 0x03
    assert reply.describe() == "NAK BUSY (seq 5, request type 0x03)"

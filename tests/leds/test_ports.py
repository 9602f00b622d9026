"""Finding the board by USB VID:PID, from port listings as pyserial reports them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from controller.leds.ports import NoBoardFoundError, find_board_port, matching_ports


def port(device: str, vid: int | None, pid: int | None, description: str = "n/a"):
    # the fields of pyserial's ListPortInfo that the finder reads
    return SimpleNamespace(device=device, vid=vid, pid=pid, description=description)


def test_known_chips_are_found_and_others_ignored():
    listed = [
        port("/dev/ttyS0", None, None),
        port("/dev/ttyUSB1", 0x1A86, 0x7523, "USB Serial"),
        port("/dev/ttyACM0", 0x2341, 0x0043, "Arduino Uno"),
        port("/dev/ttyUSB0", 0x0403, 0x6015, "FT231X, not a Nano chip"),
    ]
    assert [c.device for c in matching_ports(listed)] == ["/dev/ttyACM0", "/dev/ttyUSB1"]


def test_the_one_board_is_chosen():
    assert find_board_port([port("/dev/ttyUSB0", 0x0403, 0x6001)]) == "/dev/ttyUSB0"


def test_no_board_says_what_was_looked_for_and_seen():
    with pytest.raises(NoBoardFoundError) as error:
        find_board_port([port("/dev/ttyS0", None, None), port("/dev/ttyUSB3", 0x10C4, 0xEA60)])
    message = str(error.value)
    assert "1a86:7523, 0403:6001, 2341:*" in message
    assert "/dev/ttyUSB3 (10c4:ea60)" in message and "--port" in message


def test_two_boards_ask_the_user_to_choose():
    with pytest.raises(NoBoardFoundError, match="several possible LED boards"):
        find_board_port(
            [port("/dev/ttyUSB0", 0x1A86, 0x7523), port("/dev/ttyUSB1", 0x1A86, 0x7523)]
        )

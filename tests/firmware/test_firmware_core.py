"""The portable core through the host build (ASan/UBSan), driven by byte streams on a virtual clock.

What the host HAL recorded (replies on the serial line, LED writes) is checked against
firmware/PROTOCOL.md.
"""

from __future__ import annotations

import subprocess

import fw_harness as fw
import pytest
import serial
from fw_harness import (
    ACK,
    BAD_COBS,
    BAD_CRC,
    BAD_LENGTH,
    BAD_VALUE,
    BLINK,
    BUSY,
    INFO,
    NAK,
    PONG,
    PULSE,
    STATS,
    TOO_LONG,
    UNKNOWN_TYPE,
)


@pytest.fixture(scope="module")
def host_build() -> None:
    fw.build_once("host", "build/unit-tests")


@pytest.fixture
def host(host_build):
    script = fw.HostScript()
    yield script
    script.close()


def test_c_unit_tests_pass_under_sanitizers(host_build):
    unit_tests = str(fw.BUILD / "unit-tests")
    result = subprocess.run([unit_tests], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 failures" in result.stdout


def test_hello_returns_info_with_documented_defaults(host):
    out = host.request(fw.HELLO, 7)
    (reply,) = out.replies
    assert (reply.type, reply.seq, len(reply.body)) == (INFO, 7, 24)
    b = reply.body
    assert b[0] == 1  # protocol version
    assert (b[4], b[5], b[6], fw.u16(b, 7)) == (8, 64, 1, 64)
    assert (b[9], b[10], b[11]) == (1, 0, 0)  # serpentine, bottom-left, along ranks
    assert (fw.u16(b, 12), fw.u16(b, 14), b[16], fw.u16(b, 17)) == (1500, 5000, 255, 128)
    assert fw.u16(b, 19) >= 64 * 30 + 280  # the wake guard covers a whole write and the latch
    assert b[21] == 1  # waiting for host after boot


def test_worked_example_from_protocol_md_is_byte_exact(host):
    host.rx(b"\x00")
    out = host.rx(bytes.fromhex("05032a02ff010201010106ff020ad6e900"))
    assert [fw.wire(r.type, r.seq, r.body).hex() for r in out.replies] == ["06802a03882e00"]
    write = out.leds[-1]
    assert write.rgb(0) == (255, 0, 0)  # a1 solid red
    assert write.rgb(1) == (0, 0, 255)  # b1 blinking blue, in its on half at t=0
    assert all(write.rgb(led) == (0, 0, 0) for led in range(2, 64))


def test_ack_comes_after_the_leds_are_written(host):
    host.rx(b"\x00")
    record = fw.square_record(10, 20, 30)
    # the host twin prints in call order: LEDS before TX proves the write preceded the ack
    host.proc.stdin.write(f"rx {fw.wire(fw.SET_FRAME, 1, fw.frame_body([record])).hex()}\nsync\n")
    host.proc.stdin.flush()
    lines = []
    while (line := host.proc.stdout.readline().strip()) != "SYNC":
        lines.append(line.split()[0])
    assert lines[-2:] == ["LEDS", "TX"]


def test_squares_map_to_the_serpentine_chain(host):
    records = [fw.square_record(0, 0, 0, fw.OFF)] * 64
    records[9] = fw.square_record(1, 2, 3)  # b2: rank 2 runs right to left -> LED 8 + 6
    out = host.request(fw.SET_FRAME, 2, fw.frame_body(records))
    assert out.leds[-1].rgb(14) == (1, 2, 3)
    assert sum(out.leds[-1].grb) == 6


def test_set_config_changes_the_mapping_and_the_chain_length(host):
    out = host.request(fw.SET_CONFIG, 3, fw.config_body(size=6, lps=2, wiring=0, corner=3, axis=1))
    assert out.replies[-1].type == ACK
    assert len(out.leds[-1].grb) == 6 * 6 * 2 * 3
    records = [fw.square_record(0, 0, 0, fw.OFF)] * 36
    records[35] = fw.square_record(9, 9, 9)  # f6: the top-right corner starts the chain
    records[29] = fw.square_record(5, 5, 5)  # f5: next along the file
    write = host.request(fw.SET_FRAME, 4, fw.frame_body(records)).leds[-1]
    assert [write.rgb(k) for k in range(4)] == [(9, 9, 9)] * 2 + [(5, 5, 5)] * 2


def test_every_error_gets_its_nak_and_changes_nothing(host):
    good = fw.frame_body([fw.square_record(50, 60, 70)])
    host.request(fw.SET_FRAME, 1, good)
    cases = {
        BAD_CRC: fw.wire(fw.SET_FRAME, 2, good)[:-3] + b"\x01\x01\x00",
        BAD_COBS: bytes([0x09, 0x03, 0x00]),
        TOO_LONG: bytes([0x55] * 400) + b"\x00",
        BAD_LENGTH: fw.wire(fw.HELLO, 3, b"\x01"),
        UNKNOWN_TYPE: fw.wire(0x42, 4),
        BAD_VALUE: fw.wire(fw.SET_FRAME, 5, fw.frame_body([fw.square_record(1, 1, 1, 7)])),
    }
    for code, data in cases.items():
        out = host.rx(b"\x00" + data)
        assert [(r.type, r.body[1]) for r in out.replies] == [(NAK, code)], code
        assert out.leds == [], f"NAK {code} must not touch the LEDs"
    more = [
        fw.frame_body([fw.square_record(1, 1, 1, BLINK, 0)]),  # blink needs a period
        bytes([65]) + fw.square_record(1, 1, 1) * 65,  # more squares than the board
        fw.frame_body([fw.square_record(1, 1, 1)])[:-1],  # a record cut short
    ]
    for body in more:
        out = host.request(fw.SET_FRAME, 6, body)
        assert out.replies[-1].type == NAK
    out = host.request(fw.SET_CONFIG, 7, fw.config_body(size=9))
    assert (out.replies[-1].type, out.replies[-1].body[1]) == (NAK, BAD_VALUE)
    out = host.request(fw.SET_CONFIG, 8, fw.config_body(lps=4))  # 256 LEDs > 128
    assert (out.replies[-1].type, out.replies[-1].body[1]) == (NAK, BAD_VALUE)
    still = host.tick(1100).leds[-1]  # the periodic refresh shows the state
    assert still.rgb(0) == (50, 60, 70)


def test_ping_echoes_its_body(host):
    out = host.request(fw.PING, 9, b"takboard")
    reply = out.replies[-1]
    assert (reply.type, reply.seq, reply.body) == (PONG, 9, b"takboard")


def test_blink_and_pulse_animate_without_the_host(host):
    host.request(fw.SET_FRAME, 1, fw.frame_body([
        fw.square_record(100, 0, 0, BLINK, 10),  # 200 ms
        fw.square_record(0, 0, 200, PULSE, 50),  # 1000 ms
    ]))
    writes = host.tick(1000).leds
    assert len(writes) >= 45  # every 20 ms
    for write in writes:
        phase = write.ms % 200
        assert write.rgb(0) == ((100, 0, 0) if phase < 100 else (0, 0, 0)), write.ms
        x = (write.ms % 1000) * 510 // 1000
        level = x if x <= 255 else 510 - x
        assert write.rgb(1) == (0, 0, 200 * level // 255), write.ms


def test_brightness_scales_every_channel(host):
    host.request(fw.SET_FRAME, 1, fw.frame_body([fw.square_record(200, 100, 51)]))
    out = host.request(fw.SET_BRIGHTNESS, 2, bytes([128]))
    assert out.replies[-1].type == ACK
    assert out.leds[-1].rgb(0) == (200 * 128 // 255, 100 * 128 // 255, 51 * 128 // 255)


def test_all_white_board_is_capped_to_the_budget(host):
    white = fw.frame_body([fw.square_record(255, 255, 255)] * 64)
    write = host.request(fw.SET_FRAME, 1, white).leds[-1]
    assert fw.estimate_ma(write.grb) <= 1500
    assert fw.estimate_ma(write.grb) > 1450  # capped, not blacked out
    assert len(set(write.grb)) == 1  # the same factor for every channel
    stats = host.request(fw.GET_STATS, 2).replies[-1]
    assert stats.type == STATS
    assert fw.u16(stats.body, 16) == 64 + 64 * 3 * 20  # asked for
    assert fw.u16(stats.body, 14) == fw.estimate_ma(write.grb)  # written


def test_a_lower_budget_from_config_is_respected_by_animated_frames(host):
    host.request(fw.SET_CONFIG, 1, fw.config_body(budget=300))
    host.request(fw.SET_FRAME, 2, fw.frame_body([fw.square_record(255, 255, 255, PULSE, 25)] * 64))
    writes = host.tick(600).leds
    assert max(fw.estimate_ma(w.grb) for w in writes) <= 300
    assert max(fw.estimate_ma(w.grb) for w in writes) > 280


def test_host_silence_shows_the_waiting_pattern_until_the_next_frame(host):
    host.request(fw.SET_FRAME, 1, fw.frame_body([fw.square_record(60, 30, 0)] * 64))
    assert all(w.rgb(0) == (60, 30, 0) for w in host.tick(4990).leds)
    writes = host.tick(4000).leds
    waiting = [w for w in writes if w.rgb(0) != (60, 30, 0)]
    assert waiting, "no waiting pattern after 5 s of silence"
    for write in waiting:
        assert all(r == 0 and g == 0 and b <= 24 for r, g, b in map(write.rgb, range(64)))
    assert max(w.grb[2] for w in waiting) >= 20  # it breathes, up to blue 24
    host.request(fw.PING, 2)  # a PING alone does not bring the stale frame back
    assert host.tick(100).leds[-1].rgb(0)[0] == 0
    info = host.request(fw.HELLO, 3).replies[-1]
    assert info.body[21] == 1
    out = host.request(fw.SET_FRAME, 4, fw.frame_body([fw.square_record(1, 2, 3)]))
    assert out.leds[-1].rgb(0) == (1, 2, 3)
    assert fw.u16(host.request(fw.GET_STATS, 5).replies[-1].body, 10) == 1  # watchdog_trips


def test_watchdog_timeout_is_configurable(host):
    host.request(fw.SET_CONFIG, 1, fw.config_body(watchdog=200))
    host.request(fw.SET_FRAME, 2, fw.frame_body([fw.square_record(9, 9, 9)]))
    assert all(w.rgb(0) == (9, 9, 9) for w in host.tick(190).leds)
    writes = host.tick(40).leds
    assert writes and writes[-1].rgb(0)[0] == 0


def test_bytes_during_an_led_write_get_nak_busy_and_the_next_frame_works(host):
    host.request(fw.SET_FRAME, 1, fw.frame_body([fw.square_record(1, 1, 1, BLINK, 10)]))
    # A non-conforming host sends a PING while an animation write is in progress.
    host.during_next_write(fw.wire(fw.PING, 2, b"x"))
    out = host.tick(40)
    assert [(r.type, r.body[1]) for r in out.replies] == [(NAK, BUSY)]
    assert fw.u16(host.request(fw.GET_STATS, 3).replies[-1].body, 8) == 1  # busy counter
    out = host.request(fw.PING, 4, b"ok")
    assert out.replies[-1].type == PONG


def test_a_wake_byte_during_a_write_is_allowed_and_holds_the_animation(host):
    host.request(fw.SET_FRAME, 1, fw.frame_body([fw.square_record(1, 1, 1, BLINK, 10)]))
    host.during_next_write(b"\x00")
    assert len(host.tick(25).leds) == 1  # the write that met the wake byte
    assert host.tick(60).leds == []  # the host is talking: no write for up to 100 ms
    out = host.rx(fw.wire(fw.PING, 2))
    assert out.replies[-1].type == PONG
    assert host.tick(25).leds  # the exchange is over: animation resumes


def test_a_host_that_stops_mid_frame_does_not_freeze_the_leds(host):
    host.request(fw.SET_FRAME, 1, fw.frame_body([fw.square_record(1, 1, 1, BLINK, 10)]))
    host.rx(b"\x00" + fw.wire(fw.PING, 2)[:3])
    assert host.tick(90).leds == []
    assert host.tick(60).leds


def test_host_build_serves_the_protocol_on_a_pty(host_build, tmp_path):
    """The service can run the board without simavr: the same core on a pty, real clock."""
    link = tmp_path / "board"
    proc = subprocess.Popen(
        [str(fw.BUILD / "takboard-host-asan"), "--link", str(link)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout
        first = proc.stdout.readline().split()
        assert first[0] == "PTY"
        with serial.Serial(str(link), timeout=5) as port:
            body = fw.frame_body([fw.square_record(7, 8, 9)])
            port.write(b"\x00" + fw.wire(fw.SET_FRAME, 5, body))
            reply = fw.parse_reply(port.read_until(b"\x00"))
        assert reply == fw.Reply(fw.ACK, 5, bytes([fw.SET_FRAME]))
        while True:
            line = proc.stdout.readline()
            assert line, "host build exited"
            write = fw.parse_leds_line(line.strip())
            if write.rgb(0) == (7, 8, 9):
                break
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0
    assert not link.exists()  # SIGTERM removes the link it made


def read_input(host, seq: int) -> tuple[int, bool, int, int]:
    """GET_INPUT -> (presses, down, state, uptime_ms); checks the reply (PROTOCOL.md 4.8)."""
    (reply,) = host.request(fw.GET_INPUT, seq).replies
    assert (reply.type, reply.seq, len(reply.body)) == (fw.INPUT, seq, 8)
    b = reply.body
    return fw.u16(b, 0), bool(b[2]), b[3], fw.u16(b, 4) | (fw.u16(b, 6) << 16)


def test_get_input_counts_debounced_presses_on_the_firmware_clock(host):
    assert read_input(host, 1) == (0, False, 1, 0)
    host.button(True)
    host.tick(19)
    assert read_input(host, 2)[:2] == (0, False)  # 19 ms: still bouncing as far as it knows
    host.tick(1)
    assert read_input(host, 3)[:2] == (1, True)
    host.tick(3000)  # held 3 s: one press
    assert read_input(host, 4)[:2] == (1, True)
    host.button(False)
    host.tick(25)
    presses, down, state, uptime = read_input(host, 5)
    assert (presses, down, state, uptime) == (1, False, 1, 3045)


def test_a_bouncing_contact_is_one_press(host):
    for _ in range(5):  # 5 ms of chatter on make
        host.button(True)
        host.tick(1)
        host.button(False)
        host.tick(1)
    host.button(True)
    host.tick(100)
    for _ in range(4):  # and on break
        host.button(False)
        host.tick(2)
        host.button(True)
        host.tick(1)
    host.button(False)
    host.tick(100)
    assert read_input(host, 1)[:2] == (1, False)


def test_get_input_with_a_body_is_bad_length_and_changes_nothing(host):
    (reply,) = host.request(fw.GET_INPUT, 9, b"\x01").replies
    assert (reply.type, reply.body) == (NAK, bytes([fw.GET_INPUT, BAD_LENGTH]))


def test_firmware_version_is_1_1_and_protocol_stays_1(host):
    (reply,) = host.request(fw.HELLO, 3).replies
    assert reply.body[0] == 1 and tuple(reply.body[1:4]) == (1, 1, 0)


def test_get_input_worked_example_from_protocol_md_is_byte_exact(host):
    host.request(fw.SET_FRAME, 1, fw.frame_body([fw.square_record(0, 0, 9)]))
    for _ in range(3):  # three presses of 100 ms, 200 ms apart
        host.button(True)
        host.tick(100)
        host.button(False)
        host.tick(100)
    host.tick(4660 - 600)
    host.rx(b"\x00")
    out = host.rx(bytes.fromhex("05 07 10 a9 96 00"))
    # 3 presses, released, showing the host's frame, uptime 4660 ms (0x1234)
    assert [fw.wire(r.type, r.seq, r.body).hex(" ") for r in out.replies] == [
        "04 87 10 03 01 01 03 34 12 01 03 67 49 00"
    ]

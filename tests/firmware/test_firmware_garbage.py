"""Garbage on the serial line: thousands of random and mutated frames through the sanitized host
build. Nothing crashes or hangs (ASan/UBSan abort the process on any memory or UB error), and after
any garbage a delimiter plus a valid PING is answered with its PONG."""

from __future__ import annotations

import random
import subprocess

import fw_harness as fw
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


@pytest.fixture(scope="module")
def twin():
    fw.build_once("host", "build/unit-tests")
    script = fw.HostScript()
    yield script
    script.close()


def _valid_frames(rng: random.Random) -> list[bytes]:
    squares = [fw.square_record(rng.randrange(256), rng.randrange(256), rng.randrange(256),
                                rng.randrange(4), rng.randrange(1, 256)) for _ in range(64)]
    return [
        fw.wire(fw.HELLO, rng.randrange(256)),
        fw.wire(fw.PING, rng.randrange(256), rng.randbytes(rng.randrange(17))),
        fw.wire(fw.SET_FRAME, rng.randrange(256), fw.frame_body(squares[: rng.randrange(65)])),
        fw.wire(fw.SET_BRIGHTNESS, rng.randrange(256), bytes([rng.randrange(256)])),
        fw.wire(fw.GET_STATS, rng.randrange(256)),
        fw.wire(fw.SET_CONFIG, rng.randrange(256), fw.config_body(
            size=rng.randrange(3, 9), lps=1, wiring=rng.randrange(2), corner=rng.randrange(4),
            axis=rng.randrange(2))),
    ]


def _mutate(frame: bytes, rng: random.Random) -> bytes:
    data = bytearray(frame)
    for _ in range(rng.randrange(1, 4)):
        if not data:
            data.append(rng.randrange(1, 256))
        kind = rng.randrange(5)
        pos = rng.randrange(len(data))
        if kind == 0:
            data[pos] ^= 1 << rng.randrange(8)  # bit flip
        elif kind == 1:
            del data[pos:]  # truncated (cable pulled mid-frame)
        elif kind == 2:
            data.insert(pos, 0)  # a spurious delimiter
        elif kind == 3:
            data[pos:pos] = rng.randbytes(rng.randrange(1, 20))  # noise burst
        else:
            del data[pos]  # a dropped byte
    return bytes(data)


def _assert_recovers(twin: fw.HostScript, seq: int) -> None:
    out = twin.rx(b"\x00" + fw.wire(fw.PING, seq, b"ok"))
    assert out.replies, "no reply to a valid PING after garbage"
    last = out.replies[-1]
    assert (last.type, last.seq, last.body) == (fw.PONG, seq, b"ok")


def test_thousands_of_mutated_frames_never_break_the_link(twin):
    rng = random.Random(20261129)
    for i in range(3000):
        frames = _valid_frames(rng)
        garbage = b"".join(_mutate(rng.choice(frames), rng) for _ in range(rng.randrange(1, 4)))
        twin.rx(garbage)
        if i % 7 == 0:
            twin.tick(rng.randrange(1, 300))  # let animation, hold and watchdog timers run
        _assert_recovers(twin, i & 0xFF)
    stats = twin.request(fw.GET_STATS, 1).replies[-1].body
    assert fw.u16(stats, 2) > 100  # CRC errors were seen and counted
    assert fw.u16(stats, 4) > 100  # COBS/short frames too


@settings(max_examples=300, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(garbage=st.binary(max_size=700))
def test_random_bytes_then_a_valid_frame_is_answered(twin, garbage):
    twin.rx(garbage)
    _assert_recovers(twin, 0x42)


@pytest.mark.slow
def test_libfuzzer_finds_nothing_in_a_short_bounded_run():
    """libFuzzer (clang, ASan/UBSan) over the whole receive path for a few seconds; the target also
    checks that a valid PING is answered after whatever the fuzzer sent (fuzz/fuzz_parser.c)."""
    result = subprocess.run(
        ["make", "-s", "-C", str(fw.FIRMWARE), "fuzz", "FUZZ_TIME=5"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Done" in result.stderr and "ERROR" not in result.stderr

"""Firmware numbers: flash and RAM of the AVR image, and the emulated time from the last byte of a
64-square SET_FRAME on the serial line to the last LED bit on the data pin, at each supported speed.

    python bench/firmware.py [--frames N] [--json PATH]      (or: takboard bench firmware)

The latency is measured in simulated cycles of the real ELF under simavr (16 MHz), so it does not
depend on how busy this machine is; the wall-clock round trip is printed alongside for reference
only (the machine is shared, so treat it as an upper bound).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "firmware"))

import fw_harness as fw  # noqa: E402  (the firmware test harness: codec and simavr launcher)

SPEEDS = (115200, 250000, 500000)
CYCLES_PER_US = fw.F_CPU // 1_000_000


def flash_and_ram() -> tuple[int, int]:
    out = subprocess.run(
        ["make", "-s", "-C", str(fw.FIRMWARE), "size"], capture_output=True, text=True, check=True
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("takboard: flash"))
    words = line.replace(",", "").split()
    return int(words[2]), int(words[8])


def frame_records(i: int) -> list[bytes]:
    # distinct colours, kept under the current cap so the cap does not change the test frame
    return [fw.square_record((s * 3 + i) % 120, (s * 5) % 120, (120 - s) % 120) for s in range(64)]


def measure(baud: int, frames: int) -> dict:
    fw.make("sim", baud=baud)
    board = fw.SimBoard(fw.elf_path(baud))
    latencies_us: list[float] = []
    round_trips_ms: list[float] = []
    try:
        info = board.request(fw.HELLO)
        for i in range(frames):
            body = fw.frame_body(frame_records(i))
            started = time.perf_counter()
            reply = board.request(fw.SET_FRAME, body)
            round_trips_ms.append((time.perf_counter() - started) * 1000)
            assert reply.type == fw.ACK, f"SET_FRAME answered {reply} at {baud} baud"
            expected = frame_records(i)[63][:3]
            write = board.wait_leds(lambda w, e=expected: w.rgb(63 - 7) == tuple(e))
            last_byte = max(c for c in board.rxend if c < write.cycle)
            latencies_us.append((write.cycle - last_byte) / CYCLES_PER_US)
            print(".", end="", flush=True)
        stats = board.request(fw.GET_STATS).body
    finally:
        board.close()
    wire_bytes = len(fw.wire(fw.SET_FRAME, 0, fw.frame_body(frame_records(0))))
    return {
        "baud": baud,
        "frame_bytes_on_wire": wire_bytes,
        "wire_time_ms": round(wire_bytes * 10 / baud * 1000, 2),
        "wake_guard_us": fw.u16(info.body, 19),
        "last_byte_to_last_led_bit_us": {
            "min": round(min(latencies_us), 1),
            "median": round(statistics.median(latencies_us), 1),
            "max": round(max(latencies_us), 1),
        },
        "wall_round_trip_ms_best": round(min(round_trips_ms), 2),
        "crc_errors": fw.u16(stats, 2),
        "busy": fw.u16(stats, 8),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=10, help="SET_FRAMEs per speed (default 10)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args()

    flash, ram = flash_and_ram()
    print(f"AVR image: flash {flash} bytes of 24576 allowed, static RAM {ram} bytes of 1536")
    results = []
    for baud in SPEEDS:
        print(f"{baud:>6} baud ", end="", flush=True)
        result = measure(baud, args.frames)
        lat = result["last_byte_to_last_led_bit_us"]
        print(
            f" wire {result['wire_time_ms']:5.2f} ms for {result['frame_bytes_on_wire']} bytes;"
            f" last byte -> last LED bit {lat['median'] / 1000:.3f} ms median"
            f" ({lat['min'] / 1000:.3f}..{lat['max'] / 1000:.3f}, simulated);"
            f" wall round trip best {result['wall_round_trip_ms_best']:.1f} ms;"
            f" crc errors {result['crc_errors']}, busy {result['busy']}"
        )
        results.append(result)
    if args.json:
        args.json.write_text(json.dumps({"flash": flash, "ram": ram, "speeds": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

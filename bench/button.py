"""The button on the board's edge: from a finger on the button to the link's on_button callback.

    python bench/button.py [--presses N] [--kind sim|host] [--poll S] [--json PATH]
    (or: takboard bench button)

The real firmware runs under the emulator (simavr by default), the real link polls it; each press
closes the contact through the emulator's stdin, holds it 120 ms, and releases it. Presses are
spaced by seeded random gaps so they fall at every phase of the link's 250 ms poll. The latency is
wall time (the callback is a host event): the firmware's 20 ms debounce, the wait for the next poll
(0..poll), one GET_INPUT exchange (wake guard ~3.5 ms, a few ms of line). The machine is shared:
read the maximum as an upper bound. Also measured: the host CPU the polling costs while idle
(`time.process_time` of this process over 5 s, with and without a listener).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.leds.emulator import EmulatedBoard, simavr_available  # noqa: E402
from controller.leds.link import ButtonPress, LedLink  # noqa: E402

HOLD_S = 0.12


def measure_latency(board: EmulatedBoard, presses: int, poll: float, seed: int) -> list[float]:
    rng = random.Random(seed)
    called = threading.Event()
    seen: list[float] = []

    def on_button(press: ButtonPress) -> None:
        seen.append(time.monotonic())
        called.set()

    latencies: list[float] = []
    with LedLink(board.port, on_button=on_button, input_poll=poll) as link:
        if not link.wait_ready(20):
            raise SystemExit(f"bench/button.py: no handshake: {link.health().last_error}")
        for i in range(presses):
            time.sleep(rng.uniform(0.3, 0.3 + poll))
            called.clear()
            pressed_at = board.press_button()
            time.sleep(HOLD_S)
            board.release_button()
            if not called.wait(3.0):
                raise SystemExit(f"bench/button.py: press {i + 1} was never reported")
            latencies.append(seen[-1] - pressed_at)
            print(f"\rpress {i + 1}/{presses}: {latencies[-1] * 1000:6.1f} ms", end="", flush=True)
        print()
        if link.health().button_presses != presses:
            raise SystemExit(f"bench/button.py: {link.health().button_presses} presses reported")
    return latencies


def idle_cpu(board: EmulatedBoard, listen: bool, poll: float, seconds: float = 5.0) -> float:
    """CPU seconds of this process per wall second while the link idles."""
    link = LedLink(board.port, on_button=(lambda press: None) if listen else None, input_poll=poll)
    with link:
        link.wait_ready(20)
        time.sleep(0.5)
        cpu0, wall0 = time.process_time(), time.monotonic()
        time.sleep(seconds)
        return (time.process_time() - cpu0) / (time.monotonic() - wall0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=30, help="presses (default: %(default)s)")
    parser.add_argument("--kind", choices=("sim", "host"),
                        default="sim" if simavr_available() else "host",
                        help="emulated board: simavr (real ELF) or host build")
    parser.add_argument("--poll", type=float, default=0.25, help="link poll period in s")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args(argv)
    if args.presses < 1 or args.poll <= 0:
        parser.error("--presses must be >= 1 and --poll > 0")

    with EmulatedBoard(kind=args.kind) as board:
        latencies = measure_latency(board, args.presses, args.poll, args.seed)
        cpu_listen = idle_cpu(board, True, args.poll)
        cpu_quiet = idle_cpu(board, False, args.poll)
    ms = sorted(x * 1000 for x in latencies)
    result = {
        "board": args.kind,
        "presses": args.presses,
        "poll_s": args.poll,
        "latency_ms": {
            "min": round(ms[0], 1),
            "median": round(statistics.median(ms), 1),
            "mean": round(statistics.fmean(ms), 1),
            "p90": round(ms[int(0.9 * (len(ms) - 1))], 1),
            "max": round(ms[-1], 1),
        },
        "idle_cpu_percent": {"polling": round(cpu_listen * 100, 2),
                             "no_listener": round(cpu_quiet * 100, 2)},
    }
    lat = result["latency_ms"]
    print(f"press -> on_button ({args.kind}, poll {args.poll * 1000:.0f} ms, {args.presses} "
          f"presses): min {lat['min']} ms, median {lat['median']} ms, mean {lat['mean']} ms, "
          f"p90 {lat['p90']} ms, max {lat['max']} ms")
    cpu = result["idle_cpu_percent"]
    print(f"host CPU while idle: {cpu['polling']} % polling the button, "
          f"{cpu['no_listener']} % with keepalive only (shared machine)")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

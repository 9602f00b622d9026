"""Simulated camera speed: CPU time to render one 1280x720 frame, per board size.

    python bench/sim.py [--frames 20] [--json out.json]      (or: takboard bench sim ...)

Two numbers per size: the first frame of a new setup (builds and caches the board texture, table and
static layer) and the steady state of a running source (median and 90th percentile of `read()`).
CPU time (`time.process_time`), so a busy shared machine inflates it less than wall time would.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # runnable from a plain checkout

from vision.sim import SimCameraSource, random_scene, random_setup
from vision.sim.scene import random_hand


def bench_size(size: int, frames: int, setups: int) -> dict[str, float]:
    first, steady = [], []
    for setup in range(setups):
        seed = 1000 * size + setup
        camera, look = random_setup(seed, size)
        scene = random_scene(seed, size)
        source = SimCameraSource(scene, camera, look)
        t0 = time.process_time()
        source.read()
        first.append(time.process_time() - t0)
        for k in range(frames):
            if k == frames // 2:  # half the frames with a hand over the board
                scene.hands.append(random_hand(np.random.default_rng(seed), scene))
            t0 = time.process_time()
            source.read()
            steady.append(time.process_time() - t0)
    steady.sort()
    return {
        "first_frame_ms": 1000 * statistics.median(first),
        "median_ms": 1000 * statistics.median(steady),
        "p90_ms": 1000 * steady[int(0.9 * (len(steady) - 1))],
        "best_ms": 1000 * steady[0],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20, help="frames per setup (default 20)")
    parser.add_argument("--setups", type=int, default=3, help="random setups per size (default 3)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    results = {}
    print(
        f"{'size':>4} {'first frame':>12} {'median':>8} {'p90':>8} {'best':>8}   (CPU ms, 1280x720)"
    )
    for size in range(4, 9):
        r = bench_size(size, args.frames, args.setups)
        results[str(size)] = r
        print(
            f"{size:>4} {r['first_frame_ms']:>12.1f} {r['median_ms']:>8.1f} {r['p90_ms']:>8.1f} "
            f"{r['best_ms']:>8.1f}"
        )
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""How well `vision.glare` finds glare on the bare board: measured against the simulated camera's
own glare, on seeded installations (sizes 4-8, tilts 0-40 degrees, every lighting variant).

    python bench/glare.py --installations 300

For each installation the bare board is rendered twice, with the same sensor noise: as the room
lights it and with its glare spots taken out (`Look.glare = ()`). The true glare of a square is
the mean brightness the spots add to it (on the same top view `vision.glare` measures); a square
is truly glared when that is at least `GLARE_SQUARE`. Prints how many of those the check names,
how many it names that are not, and the installations it would warn about wrongly.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.glare import GLARE_SQUARE, judge_glare, square_glare, square_means, top_view
from vision.locate import BoardLocator
from vision.sim import Scene, random_setup, render_frame


def true_glare(empty: np.ndarray, unglared: np.ndarray, pose) -> dict[str, float]:
    """Each square's glare as the simulator added it: the brightness the two renders differ by,
    averaged over the square as `vision.glare` averages."""
    lift = empty.astype(np.float64).mean(axis=2) - unglared.astype(np.float64).mean(axis=2)
    return square_means(top_view(lift, pose), pose.size)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--installations", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1, help="first installation's seed (1)")
    args = parser.parse_args(argv)
    sizes = (4, 5, 6, 7, 8)
    found = missed = false_squares = 0
    glared_boards = warned_boards = wrong_warnings = quiet_boards = 0
    errors: list[float] = []
    worst_missed: list[tuple[float, int, str]] = []
    started = time.perf_counter()
    for k in range(args.installations):
        seed = args.seed + k
        size = sizes[k % len(sizes)]
        camera, look = random_setup(seed, size)
        empty = render_frame(Scene(size), camera, look, seed=seed).image
        plain = dataclasses.replace(look, glare=())
        unglared = render_frame(Scene(size), camera, plain, seed=seed).image
        pose = BoardLocator(size).locate(empty)
        truth = true_glare(empty, unglared, pose)
        measured = square_glare(empty, pose)
        check = judge_glare(measured)
        named = set(check.squares)
        truly = {sq for sq, g in truth.items() if g >= GLARE_SQUARE}
        found += len(truly & named)
        missed += len(truly - named)
        false_squares += len(named - truly)
        worst_missed += [(truth[sq], seed, sq) for sq in truly - named]
        errors += [measured[sq] - truth[sq] for sq in truth]
        if truly:
            glared_boards += 1
            warned_boards += bool(check.advice)
        else:
            quiet_boards += 1
            wrong_warnings += bool(check.advice)
        done = k + 1
        bar = "#" * (30 * done // args.installations)
        print(f"\r[{bar:<30}] {done}/{args.installations} installations", end="", file=sys.stderr)
    print(file=sys.stderr)
    errors_a = np.abs(np.array(errors))
    print(f"glare check on {args.installations} simulated bare boards (seeds {args.seed}.."
          f"{args.seed + args.installations - 1}), a square glared at >= {GLARE_SQUARE:.0f} "
          f"grey levels ({time.perf_counter() - started:.0f} s)")
    total = found + missed
    print(f"  glared squares named     {found} of {total}"
          f" ({100 * found / max(total, 1):.1f} %)")
    print(f"  squares named not glared {false_squares}")
    print(f"  boards with glare warned {warned_boards} of {glared_boards}")
    print(f"  boards without, warned   {wrong_warnings} of {quiet_boards}")
    print(f"  per-square error         median {np.median(errors_a):.1f}, "
          f"p95 {np.percentile(errors_a, 95):.1f} grey levels")
    for g, seed, sq in sorted(worst_missed, reverse=True)[:5]:
        print(f"  missed: seed {seed} {sq} (true {g:.0f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Engine speed: nodes per second and depth reached in a fixed CPU-time budget.

    python bench/engine.py                 # 1 s per position, best of 3, 5x5 and 6x6 mid-games
    python bench/engine.py --time 2 --repeat 5 --json out.json
    takboard bench engine

Time is CPU time of this process (`time.process_time`), so a busy shared machine slows the
figures less than wall time would; best-of-N keeps the least disturbed run. The Pi 4 column is an
estimate: the same search with the budget divided by the slowdown factor (default 3.5, the
middle of the 3-4x a Pi 4 core is slower than this machine's), i.e. what the Pi reaches in the
full budget.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from controller.engine.board import from_tps
from controller.engine.limits import Limit
from controller.engine.search import Searcher

# mid-game positions from seeded self-play (no immediate road threats on either side)
POSITIONS = {
    "5x5 a": ("x5/x5/x2,2,2,x/2,1,1,1,22121/2,x4 1 9", 2),
    "5x5 b": ("x,2,x2,1/x,221,x2,2/x,1,x2,2/1,1,x2,2/1,x3,2 1 9", 2),
    "6x6 a": ("x6/x,12,x4/x,2,x4/x,212,x4/2,x,1C,1,1,121/2,x5 1 12", 4),
    "6x6 b": ("x6/x6/x6/x6/x2,1,1221,12,22121/2,x5 1 12", 4),
}


def run_one(tps: str, komi: int, seconds: float) -> tuple[int, int, float]:
    """(nodes, depth, cpu seconds) of one search with a fresh table."""
    searcher = Searcher(clock=time.process_time)
    board = from_tps(tps, komi=komi)
    start = time.process_time()
    result = searcher.search(board, Limit(movetime_ms=int(seconds * 1000)))
    return result.nodes, result.depth, time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time", type=float, default=1.0, help="CPU seconds per search")
    parser.add_argument("--repeat", type=int, default=3, help="best of N")
    parser.add_argument("--pi-factor", type=float, default=3.5, help="Pi 4 slowdown estimate")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    rows = []
    print(f"{'position':8} {'nodes/s':>9} {'depth':>5} {'Pi4 nodes/s':>12} {'Pi4 depth':>9}")
    for name, (tps, komi) in POSITIONS.items():
        best_nps, best_depth = 0.0, 0
        pi_depth = 0
        for _ in range(args.repeat):
            nodes, depth, cpu = run_one(tps, komi, args.time)
            best_nps = max(best_nps, nodes / cpu)
            best_depth = max(best_depth, depth)
            _, d_pi, _ = run_one(tps, komi, args.time / args.pi_factor)
            pi_depth = max(pi_depth, d_pi)
            print(".", end="", file=sys.stderr, flush=True)
        row = {
            "position": name,
            "tps": tps,
            "nodes_per_s": round(best_nps),
            "depth": best_depth,
            "pi4_nodes_per_s_estimate": round(best_nps / args.pi_factor),
            "pi4_depth_estimate": pi_depth,
        }
        rows.append(row)
        print(
            f"\r{name:8} {row['nodes_per_s']:>9} {best_depth:>5} "
            f"{row['pi4_nodes_per_s_estimate']:>12} {pi_depth:>9}"
        )
    print(f"(CPU time, {args.time:g} s per search, best of {args.repeat}; shared machine)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"time_s": args.time, "repeat": args.repeat, "rows": rows}, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`takboard perft --size N --depth D [--tps TPS]`: count the leaves of the legal-ply tree.

The last line printed is the number (so scripts can take `tail -1`). `--divide` first lists the
count below each legal ply, which is how two engines that disagree find the ply where they differ.
"""

from __future__ import annotations

import argparse
import sys
import time

from controller.tak import OPENINGS, Position, TakError, perft
from controller.tak.perft import perft_divide


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "perft",
        help="count the legal-ply tree (rules-engine correctness and speed check)",
        description="Count the leaves of the legal-ply tree from the start or a TPS position. "
        "Positions already decided count 0 below them. The last line is the number.",
    )
    parser.add_argument("--size", type=int, default=None, help="board size 3..8 (default 5)")
    parser.add_argument("--depth", type=int, required=True, help="plies to look ahead")
    parser.add_argument("--tps", help="start from this TPS position instead of the empty board")
    parser.add_argument("--komi", type=int, default=0, help="komi in half-flats (default 0)")
    parser.add_argument("--opening", choices=OPENINGS, default="swap", help="opening rule")
    parser.add_argument("--divide", action="store_true", help="first print the count per ply")
    parser.add_argument("--no-table", action="store_true", help="no transposition table")
    return parser


def run(args) -> int:
    try:
        if args.tps:
            pos = Position.from_tps(args.tps, komi=args.komi, opening=args.opening)
            if args.size is not None and args.size != pos.size:
                print(
                    f"takboard perft: --size {args.size} but the TPS is a {pos.size}x{pos.size} "
                    "board",
                    file=sys.stderr,
                )
                return 2
        else:
            pos = Position(args.size or 5, komi=args.komi, opening=args.opening)
    except (TakError, ValueError) as err:
        print(f"takboard perft: {err}", file=sys.stderr)
        return 2
    if args.depth < 0:
        print(f"takboard perft: --depth must be >= 0, not {args.depth}", file=sys.stderr)
        return 2
    table = not args.no_table
    start = time.process_time()
    show_progress = sys.stderr.isatty() and args.depth >= 5

    def progress(done: int, total: int, ply, count: int) -> None:
        if args.divide:
            print(f"{ply.ptn()} {count}", flush=True)
        if show_progress:
            filled = done * 30 // total
            bar = "#" * filled + "." * (30 - filled)
            end = "\n" if done == total else ""
            print(f"\r[{bar}] {done}/{total} plies", end=end, file=sys.stderr, flush=True)

    if (args.divide or show_progress) and args.depth >= 1:
        total = sum(
            count for _, count in perft_divide(pos, args.depth, table=table, on_ply=progress)
        )
    else:
        total = perft(pos, args.depth, table=table)
    seconds = time.process_time() - start
    print(f"perft {pos.size}x{pos.size} depth {args.depth}: {seconds:.3f} s CPU", file=sys.stderr)
    print(total)
    return 0

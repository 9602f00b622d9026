"""`takboard bench NAME [ARGS...]`: run one of the benchmark scripts in `bench/`.

The scripts are plain Python files (`bench/rules.py`, ...) so anyone can also run them directly with
`python bench/NAME.py`. Each prints its figures and can write them as JSON.
"""

from __future__ import annotations

import argparse
import runpy
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


def available() -> list[str]:
    if not BENCH_DIR.is_dir():
        return []
    return sorted(p.stem for p in BENCH_DIR.glob("*.py") if not p.name.startswith("_"))


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "bench",
        help="run a benchmark from bench/ (rules, vision, leds, ...)",
        description="Run a benchmark script from bench/. Extra arguments go to the script; "
        "`takboard bench NAME --help` shows them.",
    )
    parser.add_argument("name", nargs="?", help="benchmark name; omit to list them")
    parser.add_argument("bench_args", nargs=argparse.REMAINDER, help="arguments for the benchmark")
    return parser


def run(args) -> int:
    names = available()
    if not args.name:
        print("benchmarks:", ", ".join(names) if names else f"none found in {BENCH_DIR}")
        return 0
    if args.name not in names:
        print(
            f"takboard bench: no benchmark {args.name!r} in {BENCH_DIR} "
            f"(available: {', '.join(names) or 'none'})",
            file=sys.stderr,
        )
        return 2
    script = BENCH_DIR / f"{args.name}.py"
    saved_argv = sys.argv
    sys.argv = [str(script), *args.bench_args]
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as stop:
        return int(stop.code or 0) if not isinstance(stop.code, str) else 1
    finally:
        sys.argv = saved_argv
    return 0

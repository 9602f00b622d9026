"""Rules-engine benchmark: perft(5x5, 4), perft(6x6, 4), legal-ply generation and push+pop rates.

Run as `python bench/rules.py` or `takboard bench rules`. Times are CPU seconds of this process
(`time.process_time`), best of `--repeat` runs, so other jobs on a shared machine disturb them less.
Targets from issue #2: perft(5x5, 4) <= 0.25 s and perft(6x6, 4) <= 0.9 s on one core.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout too

from controller.tak import Position, perft

PERFT_CASES = [
    # (size, depth, expected nodes, target seconds)
    (5, 4, 2_999_784, 0.25),
    (6, 4, 13_586_048, 0.9),
]
# a 6x6 middle game from tests/data/tak/club-6x6.ptn after 40 plies: stacks, walls, both capstones
MIDGAME_6X6 = (
    "1,x,21S,2,1,1C/2,2S,2,x,1S,2S/x,1,1,x,2,2/12,1,1,2,2,1/x2,2,x,1,x/1,12S,2,12C,1S,x 1 21"
)


def best_of(repeat: int, work) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        result = work()
        best = min(best, time.process_time() - start)
    return best, result


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def rate(seconds_budget: float, step) -> float:
    """Calls per CPU second of `step` (which returns how many operations it did)."""
    done, start = 0, time.process_time()
    while True:
        done += step()
        spent = time.process_time() - start
        if spent >= seconds_budget:
            return done / spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/rules.py", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per perft case (best is kept)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)

    figures: dict[str, object] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    ok = True
    for size, depth, expected, target in PERFT_CASES:
        progress(f"perft({size}x{size}, {depth}) x{args.repeat} ...")
        seconds, nodes = best_of(args.repeat, lambda s=size, d=depth: perft(Position(s), d))
        correct = nodes == expected
        fast = seconds <= target
        ok &= correct and fast
        figures[f"perft_{size}x{size}_d{depth}"] = {
            "nodes": nodes, "cpu_s": round(seconds, 4), "target_s": target,
            "correct": correct, "within_target": fast,
        }  # fmt: skip
        print(
            f"perft({size}x{size}, {depth}) = {nodes:,} {'ok' if correct else 'WRONG'}"
            f"  {seconds:.3f} s CPU (target <= {target} s: {'met' if fast else 'MISSED'})"
        )

    pos = Position.from_tps(MIDGAME_6X6)
    plies = list(pos.legal_plies)
    progress("legal-ply generation and push+pop rates ...")
    gen_rate = rate(1.0, lambda: len(list(pos.legal_plies)))
    count_rate = rate(0.5, lambda: pos.legal_plies.count() and 1)
    over_rate = rate(0.5, lambda: 1 + pos.is_over)

    def push_pop() -> int:
        push, pop = pos.push, pos.pop
        for ply in plies:
            push(ply)
            pop()
        return len(plies)

    pp_rate = rate(1.0, push_pop)
    figures["midgame_6x6"] = {
        "tps": MIDGAME_6X6, "legal_plies": len(plies),
        "plies_generated_per_s": round(gen_rate), "legal_counts_per_s": round(count_rate),
        "push_pop_per_s": round(pp_rate), "is_over_per_s": round(over_rate),
    }  # fmt: skip
    print(f"mid-game 6x6 ({len(plies)} legal plies): {gen_rate:,.0f} plies generated per s")
    print(f"mid-game 6x6: {count_rate:,.0f} legal-ply counts per s (without listing)")
    print(f"mid-game 6x6: {pp_rate:,.0f} push+pop per s")
    print(f"mid-game 6x6: {over_rate:,.0f} is_over checks per s")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

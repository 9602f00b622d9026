"""Replay stored readings through the recorder: the tracker's figures on games already read, in
seconds per game instead of a minute (no rendering, no vision).

    python bench/record.py --seed 1501 --games 50 --save-readings runs/1501   # read once
    python bench/replay.py runs/1501 --json runs/1501-before.json            # the tracker now
    (change the tracker)
    python bench/replay.py runs/1501 --against runs/1501-before.json         # what changed

PATHS are readings files (`vision.readings_file`: `bench/record.py --save-readings`,
`tests/record/games/*.npz`) or folders of them. Each game's readings are given to a fresh
`Recorder`, frame by frame at the fps they were made at (5), exactly as when they were read, and
the recorded game is scored against the true plies stored with them, as `bench/record.py` scores:
plies exact, marked unsure, silent errors (a wrong ply recorded without the `?` mark). With
`--against`, the games whose figures differ from an earlier run's JSON are listed, worse first:
a tracker change is checked on every stored game before a fresh set is run. Games are matched by
path, or by file name when none of the paths match (the same games stored in another folder).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import sys
import time
from dataclasses import asdict
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _bench_record():
    """bench/record.py, for its game result and scoring (bench/ is not put on the path: its
    `vision.py` would hide the `vision` package)."""
    if "bench_record" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_record", BENCH / "record.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_record"] = module
        spec.loader.exec_module(module)
    return sys.modules["bench_record"]


_record = _bench_record()
GameResult, score = _record.GameResult, _record.score

from controller.commands.record import Recorder  # noqa: E402
from controller.tak import Ply  # noqa: E402
from controller.tracking import Desync, Illegal, PlayedOn  # noqa: E402
from vision.readings_file import StoredReader, load_readings  # noqa: E402


def replay_file(path: Path, fps: float = 5.0) -> tuple[str, GameResult]:
    size, readings, plies = load_readings(path)
    truth = [Ply.from_ptn(p) for p in plies]
    result = GameResult(0, size, float("nan"), len(truth), 0, 0, 0, 0, 0, 0)
    recorder = Recorder(size, StoredReader(readings))
    started = time.process_time()
    events = []
    for k in range(len(readings)):
        events += recorder.feed(None, k / fps)
    events += recorder.finish()
    result.record_s = time.process_time() - started
    result.frames = len(readings)
    result.illegal_reports = sum(isinstance(e.decision, Illegal) for e in events)
    result.desyncs = sum(isinstance(e.decision, Desync) for e in events)
    result.played_on = sum(isinstance(e.decision, PlayedOn) for e in events)
    score(result, recorder.notes, truth)
    return str(path), result


def readings_files(paths: list[Path]) -> list[Path]:
    files = []
    for path in paths:
        if path.is_dir():
            files += sorted(path.glob("*.npz"))
        elif path.exists():
            files.append(path)
        else:
            raise SystemExit(f"{path}: no such file or folder")
    if not files:
        where = ", ".join(map(str, paths))
        raise SystemExit(f"no readings files (*.npz) in {where}")
    return files


def replay_all(files: list[Path], fps: float, jobs: int) -> list[tuple[str, GameResult]]:
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            return pool.starmap(replay_file, [(f, fps) for f in files])
    replayed = []
    for i, f in enumerate(files):
        replayed.append(replay_file(f, fps))
        done = i + 1
        bar = "#" * (30 * done // len(files)) + "." * (30 - 30 * done // len(files))
        print(f"\r[{bar}] {done}/{len(files)} games", file=sys.stderr,
              end="" if done < len(files) else "\n")  # fmt: skip
    return replayed


def figures(result: dict) -> tuple[int, int, int, int]:
    """(exact, silent, unsure, recorded): what a change to the tracker can move."""
    return result["exact"], result["silent_errors"], result["unsure"], result["recorded"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/replay.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                        help="readings files (.npz) or folders of them")  # fmt: skip
    parser.add_argument("--fps", type=float, default=5.0, help="frames per second (5, as read)")
    parser.add_argument("--jobs", type=int, default=1, help="games replayed in parallel (1)")
    parser.add_argument("--json", type=Path, help="write the per-game figures here")
    parser.add_argument("--against", type=Path, metavar="JSON",
                        help="an earlier run's --json (bench/replay.py's, or bench/record.py's "
                        "as the games were run, saved with --save-readings): list the games "
                        "whose figures changed (matched by path, else by file name)")  # fmt: skip
    parser.add_argument("--all", action="store_true", help="a line for every game, not only the "
                        "imperfect ones")  # fmt: skip
    args = parser.parse_args(argv)
    files = readings_files(args.paths)
    before = {}
    if args.against is not None:
        try:
            before = json.loads(args.against.read_text())["games"]
            if isinstance(before, list):  # bench/record.py --json: the games as they were run
                before = {f"seed{game['seed']}.npz": game for game in before}
            for game in before.values():  # (each has the figures compared)
                figures(game)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            parser.error(f"--against {args.against}: not a --json file of bench/replay.py or "
                         f"bench/record.py ({error!r})")  # fmt: skip

    started = time.perf_counter()
    try:
        results = dict(replay_all(files, args.fps, args.jobs))
    except ValueError as error:  # a file that is not a readings file: says which
        print(f"bench/replay.py: {error}", file=sys.stderr)
        return 2

    for name, r in results.items():
        if args.all or not r.perfect:
            status = "perfect" if r.perfect else r.first_error
            print(f"{Path(name).name:<24} {r.size}x{r.size} {r.exact:>3}/{r.plies:<3} "
                  f"unsure {r.unsure:<2} silent {r.silent_errors}  {status}")  # fmt: skip
    plies = sum(r.plies for r in results.values())
    exact = sum(r.exact for r in results.values())
    summary = {
        "games": len(results),
        "plies": plies,
        "plies_exact": exact,
        "plies_exact_pct": round(100.0 * exact / plies, 2) if plies else 0.0,
        "games_perfect": sum(r.perfect for r in results.values()),
        "silent_errors": sum(r.silent_errors for r in results.values()),
        "plies_unsure": sum(r.unsure for r in results.values()),
        "played_on_reports": sum(r.played_on for r in results.values()),
        "wall_s": round(time.perf_counter() - started, 1),
    }
    print(f"replayed {summary['games']} games, {plies} plies: {exact} exact "
          f"({summary['plies_exact_pct']:.2f} %), {summary['games_perfect']} games perfect, "
          f"{summary['silent_errors']} silent errors, {summary['plies_unsure']} marked unsure, "
          f"{summary['played_on_reports']} said play after an ending "
          f"({summary['wall_s']:.0f} s)")  # fmt: skip

    if before:
        now = {name: figures(asdict(r)) for name, r in results.items()}
        # the same games may be stored in another folder (read again with another reader, or
        # with their footprints taken out): where the paths differ, the file names match them
        if not before.keys() & now.keys():
            by_name = {Path(name).name: fig for name, fig in before.items()}
            before = {name: by_name[Path(name).name] for name in now if Path(name).name in by_name}
        changed = [(name, figures(before[name]), fig) for name, fig in now.items()
                   if name in before and figures(before[name]) != fig]  # fmt: skip
        # worse first: more silent errors, then fewer exact plies
        changed.sort(key=lambda c: (c[1][1] - c[2][1], c[2][0] - c[1][0]))
        print(f"against {args.against}: {len(changed)} of {len(now)} games changed"
              + ("" if not changed else " (exact, silent, unsure, recorded: before -> now)"))
        for name, old, new in changed:
            print(f"  {Path(name).name:<24} {old} -> {new}")
        unknown = [name for name in now if name not in before]
        if unknown:
            print(f"  {len(unknown)} games not in {args.against}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        games = {name: {**asdict(r), "perfect": r.perfect} for name, r in results.items()}
        args.json.write_text(json.dumps({"summary": summary, "games": games}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

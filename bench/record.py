"""Benchmark: auto-recording of whole simulated games, frames through the real recorder.

    python bench/record.py                 # 50 seeded games (the issue's benchmark)
    takboard bench record --games 5        # a quick run
    takboard bench record --reader synthetic --games 200   # tracking alone, no pictures
    python bench/record.py --seed 301 --games 24 --quick-replies 0.2   # a fifth answered at once

Each game: a seeded size (4-7), length (20-60 plies), camera tilt (0-40 degrees), room and lighting
(`vision.sim.random_setup`), and a game of legal plies played the way people play
(`controller.tracking.script`). Every ply is a hand coming in, placing or spreading (sometimes in
two motions), and leaving; the board then stays still for 1.0-1.6 s; the light drifts throughout.
Each frame is rendered by the simulated camera at 5 fps and fed to the real recorder
(`controller.commands.record.Recorder`: the vision reader, then the tracker), exactly as
`takboard record` does with a folder of frames.

Figures (issue 5 targets in brackets):
  plies recorded exactly      recorded ply i == played ply i                    [>= 99.5 %]
  games recorded perfectly    every ply exact, nothing missing or extra         [>= 95 %]
  silent errors               a wrong ply recorded WITHOUT the `?` mark         [0]
  latency p50 / p95           first still frame after the hand left -> commit   [p95 <= 1.0 s]
plus plies marked unsure, illegal/desync reports, reports of play after an ending (`PlayedOn`),
and CPU time per frame (render, read+track).
`--reader synthetic` replaces rendering + vision with readings made from the true board (seeded
noise): it measures the tracker alone and is labelled as such in the output. `--quick-replies
SHARE` drops the still board after that share of plies (the reply's hand comes in as the ply's
leaves: two plies at once, which the issue's games never have).
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import random
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.commands.record import Recorder  # noqa: E402
from controller.tak import Ply  # noqa: E402
from controller.tracking import Ask, Commit, Desync, Illegal, PlayedOn  # noqa: E402
from controller.tracking.script import Shot, random_game, timeline  # noqa: E402
from controller.tracking.synthetic import hand_reading, noisy, scene_reading  # noqa: E402


@dataclass
class GameResult:
    seed: int
    size: int
    tilt: float
    plies: int
    recorded: int
    exact: int
    unsure: int
    silent_errors: int
    illegal_reports: int
    desyncs: int
    latencies: list[float] = field(default_factory=list)
    frames: int = 0
    render_s: float = 0.0
    record_s: float = 0.0
    first_error: str = ""
    # reports that pieces were put on after a recorded ending (`PlayedOn`): the plies missing
    # after a false ending were said to be, not lost silently
    played_on: int = 0

    @property
    def perfect(self) -> bool:
        return self.exact == self.plies == self.recorded


class SyntheticReader:
    """Readings made from the true board (no pictures): the tracker's share of the figures."""

    def __init__(self, size: int, seed: int) -> None:
        self.size = size
        self.rng = random.Random(seed)

    def read(self, shot: Shot):
        if shot.hand is not None:
            return hand_reading(self.size)
        # with appearance signatures, as the real reader gives them (`synthetic.signature`)
        reading = scene_reading(self.size, shot.stacks, appearance=True)
        return noisy(reading, self.rng, misread=0.03)


class KeepingReader:
    """The real reader, keeping a copy of every reading it makes (`--save-readings`)."""

    def __init__(self, reader) -> None:
        self.reader = reader
        self.readings: list = []

    def read(self, frame):
        reading = self.reader.read(frame)
        self.readings.append(reading)
        return reading


def game_plan(seed: int, fps: float, quick: float = 0.0
              ) -> tuple[int, float, list[Ply], list[Shot]]:  # fmt: skip
    """Game `seed` as the benchmark plays it, drawn from the seed: the board's size, the camera's
    tilt, the plies, and every frame's shot (`bench/live.py` replays it to know when each ply
    was played)."""
    rng = random.Random(seed)
    size = rng.choice((4, 5, 6, 7))
    length = rng.randint(20, 60)
    tilt = rng.uniform(0.0, 40.0)
    truth = random_game(size, length, rng)
    return size, tilt, truth, list(timeline(size, truth, rng, fps=fps, quick_rate=quick))


def play_game(seed: int, *, reader_kind: str, fps: float, resolution: tuple[int, int] | None,
              write_frames: Path | None = None, quick: float = 0.0,
              save_readings: Path | None = None) -> GameResult:  # fmt: skip
    size, tilt, truth, shots = game_plan(seed, fps, quick)

    if reader_kind == "real":
        from vision.reader import BoardReader
        from vision.sim import Hand, Scene, random_setup, render

        camera, look = random_setup(seed, size, tilt_deg=tilt)
        if resolution is not None:
            camera = camera.with_resolution(*resolution)
        hand_rng = random.Random(seed * 7 + 1)
        skin = tuple(hand_rng.randint(40, 230) for _ in range(3))
        sleeve = tuple(hand_rng.randint(15, 240) for _ in range(3))
        reader = BoardReader(size)
        if save_readings is not None:
            reader = KeepingReader(reader)
    else:
        reader = SyntheticReader(size, seed)
    recorder = Recorder(size, reader)

    result = GameResult(seed, size, round(tilt, 1), len(truth), 0, 0, 0, 0, 0, 0)
    first_still: dict[int, float] = {}

    def tally(events) -> None:
        for event in events:
            d = event.decision
            if isinstance(d, Commit | Ask):
                number = len(recorder.notes)
                if number in first_still:
                    result.latencies.append(round(event.t - first_still[number], 3))
            elif isinstance(d, Illegal):
                result.illegal_reports += 1
            elif isinstance(d, Desync):
                result.desyncs += 1
            elif isinstance(d, PlayedOn):
                result.played_on += 1

    for k, shot in enumerate(shots):
        t = k / fps
        if shot.still and shot.done not in first_still and shot.done > 0:
            first_still[shot.done] = t
        if reader_kind == "real":
            hands = []
            if shot.hand is not None:
                hands.append(Hand(tip=shot.hand.tip, from_side=shot.hand.side,
                                  height=shot.hand.height, skin=skin, sleeve=sleeve))  # fmt: skip
            started = time.process_time()
            scene = Scene(size, shot.stacks, hands=hands)
            frame = render(scene, camera, look, seed=seed * 1000 + k, t=t)
            result.render_s += time.process_time() - started
            if write_frames is not None:
                import cv2

                folder = write_frames / f"game_{seed:03d}_{size}x{size}"
                folder.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(folder / f"frame_{k:05d}.png"), frame)
        else:
            frame = shot  # the synthetic reader reads the shot itself
        started = time.process_time()
        events = recorder.feed(frame, t)
        result.record_s += time.process_time() - started
        tally(events)
    tally(recorder.finish())  # what the last frames left open, as `takboard record`
    result.frames = len(shots)
    if isinstance(reader, KeepingReader):
        from vision.readings_file import save_readings as save

        save_readings.mkdir(parents=True, exist_ok=True)
        save(save_readings / f"seed{seed}.npz", size, reader.readings, [p.ptn() for p in truth],
             f"bench/record.py game seed {seed} (tilt {tilt:.1f}), {fps:g} fps"
             + (f", quick replies {quick:g}" if quick else ""))  # fmt: skip
    score(result, recorder.notes, truth)
    return result


def score(result: GameResult, notes, truth: list[Ply]) -> None:
    """Fill in `result`'s recorded, exact, unsure, silent and first error from the notes."""
    result.recorded = len(notes)
    result.unsure = sum(1 for n in notes if n.uncertain)
    for i, note in enumerate(notes):
        expected: Ply | None = truth[i] if i < len(truth) else None
        if note.ply == expected:
            result.exact += 1
        elif not note.uncertain:
            result.silent_errors += 1
        if note.ply != expected and not result.first_error:
            result.first_error = (
                f"ply {i + 1}: recorded {note.ply.ptn()}{'?' if note.uncertain else ''}, "
                f"played {expected.ptn() if expected else 'nothing'}"
            )
    if not result.first_error and len(notes) < len(truth):
        result.first_error = f"ply {len(notes) + 1} ({truth[len(notes)].ptn()}) never recorded"
    if len(notes) < len(truth) and result.played_on:
        result.first_error += " (said: play after the ending)"


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/record.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="number of games (50)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (1)")
    parser.add_argument("--fps", type=float, default=5.0)
    parser.add_argument("--reader", choices=("real", "synthetic"), default="real",
                        help="real: rendered frames + vision reader (default); synthetic: tracker "
                        "alone on readings made from the true board")  # fmt: skip
    parser.add_argument("--resolution", default="1280x720", help="camera resolution (1280x720)")
    parser.add_argument("--write-frames", type=Path, metavar="DIR",
                        help="also write every rendered frame (for `takboard record DIR/game_...`)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="games played in parallel processes (1; the machine may be shared)")
    parser.add_argument("--json", type=Path, help="write the figures and per-game results here")
    parser.add_argument("--quick-replies", type=float, default=0.0, metavar="SHARE",
                        help="share of plies answered at once, with no still board between the "
                             "two (0: the board is still after every ply, as the issue's games)")
    parser.add_argument("--save-readings", type=Path, metavar="DIR",
                        help="also store each game's readings as DIR/seedSEED.npz, to replay "
                             "through the tracker in seconds with bench/replay.py (real reader)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.save_readings is not None and args.reader != "real":
        parser.error("--save-readings stores what the real reader read: not with --reader "
                     "synthetic")
    if not 0.0 <= args.quick_replies <= 1.0:
        parser.error(f"--quick-replies {args.quick_replies}: a share, 0..1")
    width, _, height = args.resolution.partition("x")
    try:
        resolution = (int(width), int(height))
    except ValueError:
        parser.error(f"--resolution {args.resolution!r}: expected WIDTHxHEIGHT, e.g. 1280x720")

    results: list[GameResult] = []
    started = time.perf_counter()
    seeds = [args.seed + i for i in range(args.games)]
    play = functools.partial(play_game, reader_kind=args.reader, fps=args.fps,
                             resolution=resolution, write_frames=args.write_frames,
                             quick=args.quick_replies,
                             save_readings=args.save_readings)  # fmt: skip
    if args.jobs > 1:
        pool = multiprocessing.get_context("spawn").Pool(args.jobs)
        games = pool.imap(play, seeds)
    else:
        pool, games = None, map(play, seeds)
    for i, result in enumerate(games):
        seed = seeds[i]
        results.append(result)
        if args.json:  # after every game, so a long run interrupted still leaves its figures
            write_json(args.json, results)
        if not args.quiet:
            done = i + 1
            bar = "#" * int(30 * done / args.games) + "." * (30 - int(30 * done / args.games))
            status = "perfect" if result.perfect else result.first_error
            print(f"\r[{bar}] {done}/{args.games} games  seed {seed} {result.size}x{result.size} "
                  f"tilt {result.tilt:4.1f}: {result.exact}/{result.plies} {status[:60]:<60}",
                  file=sys.stderr, end="" if done < args.games else "\n")  # fmt: skip
            if not result.perfect:
                print(f"\n  game seed {seed}: {result.first_error}", file=sys.stderr)

    if pool is not None:
        pool.close()
        pool.join()
    plies = sum(r.plies for r in results)
    exact = sum(r.exact for r in results)
    latencies = [x for r in results for x in r.latencies]
    frames = sum(r.frames for r in results)
    summary = {
        "reader": args.reader,
        "games": len(results),
        "plies": plies,
        "plies_exact_pct": round(100.0 * exact / plies, 2) if plies else 0.0,
        "games_perfect_pct": round(100.0 * sum(r.perfect for r in results) / len(results), 1),
        "silent_errors": sum(r.silent_errors for r in results),
        "plies_unsure": sum(r.unsure for r in results),
        "illegal_reports": sum(r.illegal_reports for r in results),
        "desyncs": sum(r.desyncs for r in results),
        "played_on_reports": sum(r.played_on for r in results),
        "latency_p50_s": percentile(latencies, 0.5),
        "latency_p95_s": percentile(latencies, 0.95),
        "frames": frames,
        "render_ms_per_frame_cpu": round(1000 * sum(r.render_s for r in results) / frames, 1),
        "record_ms_per_frame_cpu": round(1000 * sum(r.record_s for r in results) / frames, 1),
        "wall_s": round(time.perf_counter() - started, 1),
        "jobs": args.jobs,
        "resolution": args.resolution if args.reader == "real" else None,
        "quick_replies": args.quick_replies,
    }
    label = ("real renderer + vision reader" if args.reader == "real"
             else "SYNTHETIC readings (tracker alone)")  # fmt: skip
    print(f"auto-recording benchmark, {label}, seeds {args.seed}..{args.seed + args.games - 1}")
    print(f"  games {summary['games']}, plies {plies}, frames {frames} at {args.fps:g} fps"
          + (f", {args.quick_replies:.0%} of plies answered at once" if args.quick_replies else ""))
    print(f"  plies recorded exactly   {summary['plies_exact_pct']:.2f} %   (target >= 99.5 %)")
    print(f"  games recorded perfectly {summary['games_perfect_pct']:.1f} %   (target >= 95 %)")
    print(f"  silent errors            {summary['silent_errors']}        (target 0)")
    print(f"  plies marked unsure (?)  {summary['plies_unsure']}")
    print(f"  illegal reports / desyncs {summary['illegal_reports']} / {summary['desyncs']}; "
          f"play after an ending said {summary['played_on_reports']}")
    print(f"  latency p50 / p95        {summary['latency_p50_s']:.2f} s / "
          f"{summary['latency_p95_s']:.2f} s   (target p95 <= 1.0 s)")  # fmt: skip
    print(f"  CPU per frame: render {summary['render_ms_per_frame_cpu']} ms, read+track "
          f"{summary['record_ms_per_frame_cpu']} ms (process time; machine shared)")  # fmt: skip
    if args.json:
        write_json(args.json, results, summary)
    return 0


def write_json(path: Path, results: list[GameResult], summary: dict | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    games = [{**asdict(r), "perfect": r.perfect} for r in results]
    path.write_text(json.dumps({"summary": summary, "games": games}, indent=2))


if __name__ == "__main__":
    sys.exit(main())

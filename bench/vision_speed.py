"""The board reader's speed against an earlier commit's, on the same frames, in one process.

    python bench/vision_speed.py [--against HEAD~1] [--frames 1000] [--seed 1]

On a shared machine the same read varies by a sixth from one run to the next (docs/vision.md,
sessions 35-43), so two bench runs minutes apart cannot tell a change of a tenth from the
machine's mood. Here both readers read every installation of the bench's frames (seed 1, as
`bench/vision.py` draws them), taking turns installation by installation (which one goes first
alternates), so drift hits both alike. It reports each reader's median CPU time per read and per
stage, and how many square calls (empty, colour, kind, height) the two readers made differently:
a change meant only to be quicker should make none.

The earlier reader is the `vision` package of `--against`, taken from git (`git archive`) into a
temporary folder and imported as `vision_then`.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from pathlib import Path

# one core, as the vision bench times it
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.vision import bench_installations
from vision import reader as reader_now
from vision.reading import BoardReading

ROOT = Path(__file__).resolve().parents[1]
IMPORT = re.compile(r"\b(from|import) vision\b")


def reader_at(rev: str, into: Path):
    """The `vision.reader` module as it was at git revision `rev`, imported as `vision_then`."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "vision"], check=True,
                             capture_output=True).stdout  # fmt: skip
    tar_path = into / "vision.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into, filter="data")
    package = into / "vision_then"
    (into / "vision").rename(package)
    for source in package.rglob("*.py"):
        source.write_text(IMPORT.sub(r"\1 vision_then", source.read_text()))
    sys.path.insert(0, str(into))
    import vision_then.reader

    return vision_then.reader


def calls(reading: BoardReading) -> list[tuple]:
    return [(sq.empty, sq.color, sq.kind, sq.height) for sq in reading.squares.values()]


def run(rev: str, frames: int, seed: int) -> dict:
    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory() as tmp:
        readers = {"then": reader_at(rev, Path(tmp)), "now": reader_now}
        times: dict[str, list[float]] = {"then": [], "now": []}
        stages: dict[str, dict[str, list[float]]] = {"then": defaultdict(list),
                                                     "now": defaultdict(list)}  # fmt: skip
        differ = squares = done = 0
        for turn, setup in enumerate(bench_installations(frames, seed)):
            camera, look = setup.camera_and_look()
            empty = setup.empty_image(camera, look)
            rendered = [setup.frame(k, camera, look) for k in range(len(setup.scenes))]
            order = ("then", "now") if turn % 2 == 0 else ("now", "then")
            made: dict[str, list] = {}
            for name in order:
                reader = readers[name].BoardReader(setup.size)
                reader.read(empty)
                made[name] = []
                for scene, frame in zip(setup.scenes, rendered, strict=True):
                    t0 = time.process_time()
                    reading = reader.read(frame.image, lit=scene.leds or None)
                    times[name].append((time.process_time() - t0) * 1000)
                    for stage, ms in reading.timings_ms.items():
                        stages[name][stage].append(ms)
                    made[name].append(calls(reading))
            for a, b in zip(made["then"], made["now"], strict=True):
                squares += len(a)
                differ += sum(x != y for x, y in zip(a, b, strict=True))
            done += len(rendered)
            print(f"\r  {done}/{frames} frames", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    return {
        "against": rev, "frames": done, "squares": squares, "calls_differ": differ,
        "median_ms": {k: statistics.median(v) for k, v in times.items()},
        "stages_ms": {k: {s: statistics.median(v) for s, v in st.items()}
                      for k, st in stages.items()},
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", default="HEAD", help="git revision to compare with (HEAD)")
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    r = run(args.against, args.frames, args.seed)
    then, now = r["median_ms"]["then"], r["median_ms"]["now"]
    print(f"read time median, {r['frames']} frames, one process, turns taken by installation")
    print(
        f"  {args.against:>12}: {then:6.2f} ms   "
        + ", ".join(f"{s} {v:.2f}" for s, v in r["stages_ms"]["then"].items())
    )
    print(
        f"  {'working tree':>12}: {now:6.2f} ms   "
        + ", ".join(f"{s} {v:.2f}" for s, v in r["stages_ms"]["now"].items())
    )
    print(f"  now / then {now / then:.3f}; square calls made differently: "
          f"{r['calls_differ']} of {r['squares']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

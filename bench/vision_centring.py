"""What the square classifier's heights would be if each square's views were centred on its piece.

    python bench/vision_centring.py [--frames 600] [--seed 1] [--miss 0.01 0.02] [--json out.json]

Pieces never sit exactly on a square's centre (the simulator puts them up to `jitter`, 0-0.1 pitch
a set, off it, as hands do), while the classifier reads views centred on the square. Along the
line of sight that offset is what a stack's height also does to the picture: a lone flat pushed
away from the camera shows its top face where a flat on a flat would. This measures how much of
the height error that is, on the vision benchmark's frames (`bench/vision.py`, the same seed gives
the same frames), on tilted installations (>= 20 degrees, where the issue's height target is):

- the reader as it ships (its height calls);
- the same nets reading views centred on the top piece, as the simulator placed it (an oracle: a
  piece-locating step could at most reach this), along the line of sight only and across it only;
- with `--miss SIGMA ...`: views moved along the line of sight to where a piece-locating step
  would put them that missed by SIGMA pitch (a Gaussian error, root mean square): how well such
  a step must find the piece to be worth having;
- by how far the installation's pieces may sit off centre.

Not a benchmark of shipped code: a measurement that says where the height errors come from and
what locating the piece first would be worth (docs/vision.md, session 26).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from bench.vision import MAX_HEIGHT_SCORED, TILTED_DEG, bench_installations, progress  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.sim import Scene  # noqa: E402
from vision.sim.renderer import piece_offset  # noqa: E402
from vision.squares import radial_frames  # noqa: E402
from vision.views import SquareViews  # noqa: E402

VIEWS = ("shipped", "centred on the top piece", "  along the line of sight only",
         "  across it only")  # fmt: skip
JITTER_BUCKETS = (0.025, 0.05, 0.075, 0.1)  # pitches: how far an installation's pieces may sit off


def top_piece_offsets(scene: Scene, look, names: list[str]) -> np.ndarray:
    """[S, 2] where each square's top piece sits off the square's centre (zero where empty)."""
    out = np.zeros((len(names), 2))
    for i, name in enumerate(names):
        stack = scene.stacks.get(name) or []
        if stack:
            out[i] = piece_offset(look, name, len(stack) - 1)
    return out


def centred_heights(reader: BoardReader, frame: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """The reader's nets' height calls [S] on views moved by `shifts` [S, 2], read as the reader
    read `frame` (its last)."""
    _, _, p_height = reader.classify_views(frame, SquareViews(reader.pose, shifts))
    return p_height.argmax(axis=1) + 1


def missed_view(sigma: float) -> str:
    return f"  along, missed by {sigma:g} pitch"


def run(frames: int, seed: int, misses: tuple[float, ...] = ()) -> dict:
    cv2.setNumThreads(1)
    miss_rng = np.random.default_rng(seed)  # the locating errors: the same on every run
    right: Counter = Counter()  # (view, true height) and (view, jitter bucket) -> right
    total: Counter = Counter()
    started, done, read = time.monotonic(), 0, 0
    for setup in bench_installations(frames, seed):
        if setup.tilt < TILTED_DEG:
            done += len(setup.scenes)
            continue
        camera, look = setup.camera_and_look()
        bucket = next(b for b in JITTER_BUCKETS if look.jitter <= b)
        reader = BoardReader(setup.size)
        reader.read(setup.empty_image(camera, look))
        for k, scene in enumerate(setup.scenes):
            done += 1
            progress(done, frames, started, f"size {setup.size} tilt {setup.tilt:4.1f}")
            if scene.hands:
                continue
            rendered = setup.frame(k, camera, look)
            reading = reader.read(rendered.image, lit=scene.leds or None)
            if not reading.board_found or reading.occluded:
                continue
            read += 1
            names, _, radial = radial_frames(reader.pose)
            across = np.stack([-radial[:, 1], radial[:, 0]], axis=1)
            offsets = top_piece_offsets(scene, look, names)
            along_by = np.einsum("si,si->s", offsets, radial)  # pitches, away from the camera
            along = along_by[:, None] * radial
            beside = np.einsum("si,si->s", offsets, across)[:, None] * across
            calls = {
                VIEWS[0]: np.array([reading.squares[n].height for n in names]),
                VIEWS[1]: centred_heights(reader, rendered.image, offsets),
                VIEWS[2]: centred_heights(reader, rendered.image, along),
                VIEWS[3]: centred_heights(reader, rendered.image, beside),
            }
            for sigma in misses:
                found = along_by + miss_rng.normal(0.0, sigma, len(names))
                calls[missed_view(sigma)] = centred_heights(reader, rendered.image,
                                                            found[:, None] * radial)  # fmt: skip
            for i, name in enumerate(names):
                truth = rendered.truth.squares[name]
                if truth.empty or truth.height > MAX_HEIGHT_SCORED:
                    continue
                for view, call in calls.items():
                    for key in ((view, f"height {truth.height}"), (view, f"jitter <= {bucket}")):
                        total[key] += 1
                        right[key] += int(call[i]) == truth.height
                    total[view] += 1
                    right[view] += int(call[i]) == truth.height
    print(file=sys.stderr)
    names = {k: " | ".join(k) if isinstance(k, tuple) else k for k in total}
    return {
        "frames": read,
        "stacks": total[VIEWS[0]],
        "height_right": {names[k]: right[k] / total[k] for k in total},
        "counts": {names[k]: total[k] for k in total},
        "views": [*VIEWS, *map(missed_view, misses)],
    }


def report(result: dict) -> str:
    rows = result["height_right"]
    counts = result["counts"]
    groups = sorted({k.split(" | ")[1] for k in rows if " | " in k},
                    key=lambda g: (g.startswith("jitter"), g))  # fmt: skip
    lines = [
        f"heights exact (stacks <= {MAX_HEIGHT_SCORED}, tilt >= {TILTED_DEG:g}), "
        f"{result['stacks']} stacks on the {result['frames']} tilted hand-free frames of the set",
        f"{'views':32s}{'all':>8s}" + "".join(f"{g:>16s}" for g in groups),
        f"{'(stacks)':40s}" + "".join(f"{counts[VIEWS[0] + ' | ' + g]:>16d}" for g in groups),
    ]
    for view in result["views"]:
        cells = "".join(f"{rows[view + ' | ' + g] * 100:15.2f}%" for g in groups)
        lines.append(f"{view:32s}{rows[view] * 100:7.2f}%{cells}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=600, help="frames of the set (600)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the frame set (1)")
    parser.add_argument("--miss", type=float, nargs="*", default=[], metavar="SIGMA",
                        help="also views moved along the line of sight to the piece as found "
                             "with this error (pitches, root mean square)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    if any(sigma <= 0 for sigma in args.miss):
        parser.error(f"--miss {' '.join(map(str, args.miss))}: errors must be above 0 pitch")
    result = run(args.frames, args.seed, tuple(args.miss))
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

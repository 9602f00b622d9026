"""Where the board reader's wrong squares are: their causes, installations and pictures.

    python bench/vision_errors.py -o errors/ [--frames 2000] [--seed 1]
    takboard bench vision_errors -o errors/ --frames 400

Reads the vision benchmark's frames (`bench/vision.py`, the same seeded set) and writes
errors/errors.json (every square read wrong: where, what it is, what it was read as, the
confidence) and, for the installations holding the most wrong squares, each of their frames that
holds any, drawn as `--debug` draws a reading with every wrong square ringed in red and labelled
with what it is, what it was read as and how surely. `bench/vision.py` prints the same anatomy
(by cause, worst installations) in every report. The bench's 2,000 frames err on a few hundred
squares; looked at one by one they fall into a handful of kinds (a light wall read empty on pale
wood, a dark flat under a glare read light), and over 40 % of them sit in a twentieth of the
installations: what to look at before changing the classifier.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

# run as a script, bench/ comes first on the path, and its vision.py would stand for the package
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2
import numpy as np

from vision import geometry
from vision.debug import RED, _text, annotate_frame
from vision.reader import BoardReader
from vision.sim.scene import parse_square

WORST_SHOWN = 10  # installations listed in the report and drawn (`write`)


def cause(truth, got) -> str | None:
    """What is wrong with a square's reading against the truth (None: it is right): a piece
    "missed" (read empty) or "imagined" (on an empty square), its "colour", or its kind as
    "wall -> flat" (true kind -> the kind read); a wrong colour and kind together count as
    "colour" (the colour is the worse news: the pieces are a player's)."""
    if truth.empty or got.empty:
        return None if truth.empty == got.empty else ("imagined" if truth.empty else "missed")
    if got.color != truth.color:
        return "colour"
    if got.kind != truth.kind:
        return f"{truth.kind} -> {got.kind}"
    return None


def wrong_square(where: dict, name: str, truth, got, why: str) -> dict:
    """One wrong square as a row. `where`: installation, frame, size, tilt; `why`: its `cause`."""
    return {
        **where,
        "square": name,
        "cause": why,
        "truth": _label(truth.empty, truth.color, truth.kind, truth.height),
        "read": _label(got.empty, got.color, got.kind, got.height),
        "confidence": round(float(got.confidence), 3),
    }


def _label(empty: bool, color: str | None, kind: str | None, height: int) -> str:
    return "empty" if empty else f"{color} {kind} ({height} high)"


def anatomy(rows: list[dict], squares: int) -> dict:
    """The wrong squares by cause, and the installations holding the most of them."""
    per_inst = Counter(r["installation"] for r in rows)
    about = {r["installation"]: (r["size"], r["tilt"]) for r in rows}
    worst = [
        {"installation": i, "size": about[i][0], "tilt": round(about[i][1], 1), "wrong": n}
        for i, n in per_inst.most_common(WORST_SHOWN)
    ]
    return {
        "wrong": len(rows),
        "squares": squares,
        "by_cause": dict(Counter(r["cause"] for r in rows).most_common()),
        "installations_with_errors": len(per_inst),
        "worst_installations": worst,
        "share_in_worst": sum(w["wrong"] for w in worst) / len(rows) if rows else 0.0,
    }


def report_lines(a: dict, installations: int) -> list[str]:
    if not a["wrong"]:
        return ["  wrong squares: none"]
    causes = ", ".join(f"{k} {v}" for k, v in a["by_cause"].items())
    worst = ", ".join(
        f"#{w['installation']} ({w['size']}x{w['size']}, {w['tilt']:.0f} deg) {w['wrong']}"
        for w in a["worst_installations"]
    )
    return [
        f"  wrong squares (colour+kind): {a['wrong']} of {a['squares']}, in "
        f"{a['installations_with_errors']} of {installations} installations",
        f"    by cause: {causes}",
        f"    worst {len(a['worst_installations'])} installations hold "
        f"{100 * a['share_in_worst']:.0f} %: {worst}",
    ]


def write(out: Path, rows: list[dict], anatomy_: dict, installations) -> list[Path]:
    """errors.json (every wrong square) and, for each of the worst installations, its frames that
    hold wrong squares, annotated as `--debug` draws them with every wrong square ringed and
    labelled with what it is and what it was read as. `installations`: the bench's installations
    (`bench_installations`), read again here frame by frame as the bench read them (the reader
    is deterministic)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "errors.json").write_text(json.dumps({**anatomy_, "rows": rows}, indent=1) + "\n")
    wanted = {w["installation"] for w in anatomy_["worst_installations"]}
    by_frame: dict[tuple[int, int], list[dict]] = {}
    for r in rows:
        if r["installation"] in wanted:
            by_frame.setdefault((r["installation"], r["frame"]), []).append(r)
    written = []
    for setup in installations:
        if setup.index not in wanted:
            continue
        camera, look = setup.camera_and_look()
        reader = BoardReader(setup.size)
        reader.read(setup.empty_image(camera, look))
        for k, scene in enumerate(setup.scenes):
            frame = setup.frame(k, camera, look)
            reading = reader.read(frame.image, lit=scene.leds or None)
            marks = by_frame.get((setup.index, k))
            if not marks or reader.pose is None:
                continue
            img = annotate_frame(frame.image, reading, reader)
            for r in marks:
                _ring(img, reader, r)
            path = out / f"inst{setup.index:03d}_frame{k}.png"
            cv2.imwrite(str(path), img)
            written.append(path)
    return written


def _ring(img: np.ndarray, reader: BoardReader, row: dict) -> None:
    """A red ring about the wrong square's centre on the board, with what it is, what it was read
    as and how sure the reader was."""
    assert reader.pose is not None
    file, rank = parse_square(row["square"], reader.size)
    centre = np.array([[*geometry.square_center(file, rank), 0.0]])
    edge = centre + np.array([[0.5, 0.0, 0.0]])
    p, q = reader.pose.project(np.vstack([centre, edge]))
    radius = max(8, int(np.linalg.norm(q - p)))
    x, y = (int(v) for v in np.round(p))
    cv2.circle(img, (x, y), radius, RED, 2, cv2.LINE_AA)
    for i, text in enumerate((row["truth"], f"read {row['read']} at {row['confidence']:.2f}")):
        _text(img, text, (x - radius, y + radius + 14 + 14 * i), 0.4, RED)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="DIR",
                        help="folder for errors.json and the pictures")  # fmt: skip
    parser.add_argument("--frames", type=int, default=2000, help="frames to read (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the frame set (default 1)")
    args = parser.parse_args(argv)
    if args.frames < 1:
        parser.error("--frames must be at least 1")
    if args.output.exists() and not args.output.is_dir():
        parser.error(f"--output {args.output}: not a folder")
    from bench.vision import bench_installations
    from bench.vision import run as run_bench

    result = run_bench(args.frames, args.seed, keep_wrong=True)
    found = result["errors"]
    print("\n".join(report_lines(found, result["installations"])))
    pictures = write(args.output, result["_wrong"], found,
                     bench_installations(args.frames, args.seed))  # fmt: skip
    print(f"wrote {args.output / 'errors.json'} and {len(pictures)} pictures of "
          f"{len(found['worst_installations'])} installations to {args.output}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

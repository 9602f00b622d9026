"""Which installations the recorder does well on: recording results by camera angle, by how far
the light pieces stand out from the board and by the strongest glare on a square of the bare
board (the figures behind `vision/mount.py`, `vision/contrast.py`, `vision/glare.py` and
hardware/markers.md).

    python bench/record.py --seed 1701 --games 50 --jobs 2 --json runs/1701.json   # a few sets
    python bench/setup_figures.py runs/1701.json runs/1751.json ...

For every game of the given `bench/record.py --json` results: its camera's tilt, and the contrast
measured as the service measures it (a light flat in the middle of the board, rendered in the
game's installation, against the bare board: about 60 ms a game) and the glare as the service
measures it (`vision.glare.check_glare` on that bare board). Prints games, plies exact and games
perfect per tilt band, per contrast band and per glare band.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.contrast import light_flat_contrast
from vision.glare import check_glare
from vision.locate import BoardLocator
from vision.sim import Scene, random_setup, render_frame

TILT_BANDS = [(0, 10), (10, 20), (20, 30), (30, 41)]
CONTRAST_BANDS = [(0, 15), (15, 20), (20, 30), (30, 60), (60, 1000)]
GLARE_BANDS = [(0, 10), (10, 25), (25, 50), (50, 1000)]  # grey levels, the most glared square


def contrast_and_glare_of(seed: int, size: int, tilt: float) -> tuple[float, float]:
    """The game's installation: the light-piece contrast, and the glare on its most glared
    square (grey levels)."""
    camera, look = random_setup(seed, size, tilt_deg=tilt)
    empty = render_frame(Scene(size), camera, look, seed=seed).image
    pose = BoardLocator(size).locate(empty)
    square = "abcdefgh"[size // 2] + str(size // 2 + 1)
    frame = render_frame(Scene(size, {square: [("light", "flat")]}), camera, look,
                         seed=seed + 1).image  # fmt: skip
    return light_flat_contrast(frame, empty, pose, square), check_glare(empty, pose).peak


def table(title: str, games: list[dict], key: str, bands) -> None:
    print(title)
    for lo, hi in bands:
        part = [g for g in games if lo <= g[key] < hi]
        if not part:
            continue
        plies = sum(g["plies"] for g in part)
        exact = sum(g["exact"] for g in part)
        perfect = sum(g["exact"] == g["plies"] for g in part)
        print(f"  {lo:>3}-{hi:<4} games {len(part):4d}  plies exact {100 * exact / plies:6.2f} %"
              f"  games perfect {100 * perfect / len(part):5.1f} %")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path, help="bench/record.py --json files")
    args = parser.parse_args(argv)
    games = []
    for path in args.results:
        try:
            games += json.loads(path.read_text())["games"]
        except (OSError, ValueError, KeyError) as bad:
            print(f"{path}: not a bench/record.py --json file ({bad})", file=sys.stderr)
            return 2
    for i, g in enumerate(games, 1):
        g["contrast"], g["glare"] = contrast_and_glare_of(g["seed"], g["size"], g["tilt"])
        print(f"\r{i}/{len(games)} installations measured", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    table("by camera tilt (degrees from vertical)", games, "tilt", TILT_BANDS)
    table("by light-piece contrast (CIE76 delta E against the bare board)", games, "contrast",
          CONTRAST_BANDS)  # fmt: skip
    table("by glare on the most glared square (grey levels, vision/glare.py)", games, "glare",
          GLARE_BANDS)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

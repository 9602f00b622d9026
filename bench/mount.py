"""How well the located board tells where the camera is (`vision/mount.py`): the pose's tilt
against the renderer's true one, on empty boards of seeded installations at set tilts.

    python bench/mount.py [--installations 40]
    takboard bench mount

Prints, per tilt, the mean and worst error of the optical axis's tilt from the pose, and of the
line of sight to the board's centre that the mount check uses (it differs from the axis by where
the camera aims, so its "error" includes that), and the smallest square seen, in pixels.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from vision.locate import BoardLocator
from vision.mount import smallest_square_px, view_angle_deg
from vision.sim import Scene, random_setup, render_frame

TILTS = (0, 5, 10, 15, 20, 25, 30, 35, 40)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--installations", type=int, default=40, help="per tilt (default 40)")
    args = parser.parse_args(argv)
    print("tilt   axis error mean / max   sight error mean / max   smallest square px")
    for tilt in TILTS:
        axis, sight, squares = [], [], []
        for seed in range(args.installations):
            size = 4 + seed % 5
            camera, look = random_setup(seed, size, tilt_deg=tilt)
            frame = render_frame(Scene(size), camera, look, seed=seed).image
            pose = BoardLocator(size).locate(frame)
            axis.append(abs(pose.tilt_deg - camera.tilt_deg))
            sight.append(abs(view_angle_deg(pose) - camera.tilt_deg))
            squares.append(smallest_square_px(pose))
        print(f"{tilt:>4}   {np.mean(axis):10.2f} / {max(axis):5.2f}   "
              f"{np.mean(sight):11.2f} / {max(sight):5.2f}   {min(squares):18.0f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

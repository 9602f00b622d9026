"""Example pictures of the simulated camera for the documentation.

    python -m vision.sim.gallery docs/img      # writes vision-sim-*.png there

Same seeds, same pictures: rerun it after changing the renderer and look at the difference.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from vision.markers import build_sheet, rasterize
from vision.sim.annotate import contact_sheet, draw_truth
from vision.sim.look import LIGHTING, random_look, random_setup
from vision.sim.renderer import render_frame
from vision.sim.scene import Scene, all_squares, random_hand, random_scene

# (size, tilt, hand, leds) for each tile; the look's seed is the first whose lighting matches
TILES = [
    (5, 10.0, False, False, "overhead"),
    (6, 30.0, True, False, "lamp"),
    (8, 38.0, False, False, "window"),
    (4, 20.0, False, True, "overhead"),
    (7, 25.0, True, False, "dim"),
    (6, 0.0, False, False, "window"),
]


def _seed_for(lighting: str, start: int) -> int:
    seed = start
    while random_look(seed).lighting != lighting:
        seed += 1
    return seed


def gallery_frames() -> list[np.ndarray]:
    frames = []
    start = 40
    for size, tilt, hand, leds, lighting in TILES:
        seed = _seed_for(lighting, start)
        start = seed + 1
        camera, look = random_setup(seed, size, tilt_deg=tilt)
        scene = random_scene(seed, size, pieces=int(size * size * 0.8))
        if hand:
            scene.hands.append(random_hand(np.random.default_rng(seed), scene))
            scene.hands[0].tip = (size * 0.55, size * 0.45)
        if leds:
            scene = random_scene(seed, size, pieces=6)
            empty = [sq for sq in all_squares(size) if sq not in scene.stacks]
            scene.leds = {sq: (0, 140, 255) for sq in empty[:2]} | {empty[-1]: (255, 80, 0)}
        frames.append(render_frame(scene, camera, look, seed=seed).image)
    return frames


def write_gallery(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    sheet = contact_sheet(gallery_frames(), columns=3, width=360)
    written.append(out_dir / "vision-sim-gallery.png")
    cv2.imwrite(str(written[-1]), sheet, [cv2.IMWRITE_PNG_COMPRESSION, 9])

    size = 5
    camera, look = random_setup(_seed_for("overhead", 7), size, tilt_deg=32)
    scene = Scene(
        size,
        {
            "a5": [("dark", "flat")],
            "b4": [("light", "flat"), ("dark", "cap")],
            "c3": [("light", "wall")],
            "d3": [("dark", "flat"), ("light", "flat"), ("dark", "flat")],
            "e1": [("light", "flat")],
            "b2": [("dark", "flat"), ("dark", "flat"), ("light", "flat"), ("light", "flat")],
        },
    )
    scene.hands.append(random_hand(np.random.default_rng(3), scene))
    scene.hands[0].tip, scene.hands[0].from_side = (4.2, 3.6), "east"
    frame = render_frame(scene, camera, look, seed=1)
    pair = contact_sheet([frame.image, draw_truth(frame.image, frame.truth)], columns=2, width=640)
    written.append(out_dir / "vision-sim-truth.png")
    cv2.imwrite(str(written[-1]), pair, [cv2.IMWRITE_PNG_COMPRESSION, 9])

    written.append(out_dir / "vision-markers-sheet.png")
    cv2.imwrite(str(written[-1]), rasterize(build_sheet(6, 50.0), 1.0))
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out_dir = Path(args[0]) if args else Path("docs/img")
    for path in write_gallery(out_dir):
        print(f"wrote {path}")
    print("lighting variants:", ", ".join(LIGHTING))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

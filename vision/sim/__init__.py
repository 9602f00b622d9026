"""Simulated camera: renders a board state through a pinhole camera into realistic frames.

Contract (what the reader side and the service can rely on)
----------------------------------------------------------
    from vision.sim import Scene, Hand, SimCamera, Look, random_setup, random_scene, render,
        render_frame, ground_truth, SimCameraSource

    scene = Scene(size=5, stacks={"c3": [("light", "flat"), ("dark", "cap")]})
    camera, look = random_setup(seed=7, size=5)            # tilt 0..40 deg, random room and board
    image = render(scene, camera, look, seed=0)            # [720, 1280, 3] uint8 BGR
    frame = render_frame(scene, camera, look, seed=0)      # .image and .truth (a GroundTruth)

- `Scene(size, stacks, hands=[], leds={})`: `stacks` maps a square name ("a1".."h8") to its pieces
  bottom..top, each (colour, kind) with colour "light" (player 1) or "dark" (player 2) and kind
  "flat" | "wall" | "cap". `hands` are `Hand`s reaching in from a side; `leds` maps squares to
  the BGR colour glowing under them. `random_scene(seed, size, hand_probability=...)` makes
  mid-game boards.
- `SimCamera`: pinhole, default 1280x720, `tilt_deg` 0..80 from vertical (mounts use 0..40), yaw,
  roll, distance in pitches. `SimCamera.framing(size, tilt_deg=...)` picks the distance so the board
  and markers fill the frame. `camera.project(pts)` maps board-frame points [..., 3] (or [..., 2] at
  z=0) to pixels; `camera.H_img_from_board` is the z=0 homography.
- `Look`: board wood and tones, grid lines, marker paper, table, piece colours and shapes (square or
  round flats, cylinder or pawn capstones), lamp direction, exposure, gradient, vignette, hotspots,
  glare, drift, lens blur, sensor noise, JPEG quality. `random_setup(seed, size)` -> (camera, look).
- `render(scene, camera, look, seed=0, t=0.0)`: `seed` varies only the sensor noise of this frame;
  `t` (seconds) moves the slow lighting drift. The same arguments give the same image, bit for bit.
- `GroundTruth` (from `render_frame(...).truth` or `ground_truth(scene, camera)`): pixels in
  OpenCV's convention (pixel centres at integers). `H_img_from_board` [3,3]; `grid_corners_img`
  [4,2] in `vision.geometry`'s corner order; `marker_corners_img` id -> [4,2] in ArUco's corner
  order; `markers_visible`; per square `SquareTruth(empty, color, kind, height, occluded)`;
  `hand_present`, `hand_over_board`, `hand_mask` [H,W] bool.
- `SimCameraSource(scene, camera, look, fps=30, clock=None)`: a frame source like a real camera,
  `read() -> (ok, frame)`; change `source.scene` at any time (pieces placed, hands in); `last_truth`
  holds the truth of the last frame. `source.queue(scenes)` plays a list of scenes one per read;
  `reach_and_change(before, after, seed=...)` makes such a list for one ply: a hand comes in,
  the board changes under it, the hand leaves.
- `cases(n, seed=..., hand_share=...)`: a fixed benchmark set, sizes, tilts and lighting variants
  spread evenly; `case.render()` gives the frame and its truth.

All geometry comes from `vision.geometry` (pitches; board frame origin at the a1 grid corner).
"""

from vision.sim.camera import SimCamera
from vision.sim.dataset import Case, cases
from vision.sim.look import Look, random_camera, random_look, random_setup
from vision.sim.motion import changed_squares, reach_and_change
from vision.sim.renderer import (
    GroundTruth,
    RenderedFrame,
    SquareTruth,
    ground_truth,
    render,
    render_frame,
)
from vision.sim.scene import Hand, Scene, random_hand, random_leds, random_scene
from vision.sim.source import SimCameraSource

__all__ = [
    "Case",
    "GroundTruth",
    "Hand",
    "Look",
    "RenderedFrame",
    "Scene",
    "SimCamera",
    "SimCameraSource",
    "SquareTruth",
    "cases",
    "changed_squares",
    "ground_truth",
    "random_camera",
    "random_hand",
    "random_leds",
    "random_look",
    "random_scene",
    "random_setup",
    "reach_and_change",
    "render",
    "render_frame",
]

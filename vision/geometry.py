"""The reference board: the physical contract between the wooden board, the renderer and the reader.

Board frame ("board_pts"): units of one square pitch p, so the model is scale free.
  origin  = the outer corner of square a1 (player 1's lower-left grid corner)
  x       = along the files, a -> h
  y       = along the ranks, 1 -> N
  z       = up, out of the board surface
The grid covers [0, N] x [0, N]; square (file f, rank r), both 0-based, has its centre at
(f + 0.5, r + 0.5).

Markers: four ArUco markers, dictionary DICT_4X4_50, ids 0..3, side 0.6 p, axis aligned with the
grid, each diagonally outside one grid corner, its nearest corner 0.1 p from the grid corner along
both axes:
  id 0 outside the a1 corner, id 1 outside (last file, rank 1), id 2 outside the far corner,
  id 3 outside (a, rank N).
A marker's own "up" (the top edge of the printed pattern) points to +y, its "right" to +x.

Corner order, everywhere in this package: a1-corner, (last file, rank 1)-corner, far corner,
(a, rank N)-corner. Seen by a camera over player 1's side of the board that is
[bottom-left, bottom-right, top-right, top-left] in the image.
"""

from __future__ import annotations

import numpy as np

DICTIONARY = "DICT_4X4_50"
MARKER_IDS = (0, 1, 2, 3)
MARKER_SIDE = 0.6  # in pitches
MARKER_GAP = 0.1  # in pitches, from the grid corner to the marker's nearest corner, along each axis

# Pieces, in pitches (real sets vary; readers must not depend on these to the millimetre).
FLAT_WIDTH = 0.7
FLAT_THICKNESS = 0.15
WALL_HEIGHT = FLAT_WIDTH  # a flat standing on one edge
WALL_THICKNESS = FLAT_THICKNESS
CAP_DIAMETER = 0.55
CAP_HEIGHT = 0.8

FILES = "abcdefgh"


def square_name(file: int, rank: int) -> str:
    """0-based (file, rank) -> "a1" style name."""
    return f"{FILES[file]}{rank + 1}"


def square_center(file: int, rank: int) -> tuple[float, float]:
    """Centre of a square in the board frame (pitches)."""
    return (file + 0.5, rank + 0.5)


def grid_corners(size: int) -> np.ndarray:
    """The four outer grid corners in the board frame, in the package's corner order.

    shape: [4, 2]
    """
    n = float(size)
    return np.array([[0.0, 0.0], [n, 0.0], [n, n], [0.0, n]], dtype=np.float64)


def marker_corners(size: int, marker_id: int) -> np.ndarray:
    """The corners of one marker in the board frame, in ArUco's order.

    ArUco reports corners clockwise from the top-left of the printed pattern: top-left, top-right,
    bottom-right, bottom-left; with the pattern's top towards +y that is
    (x0,y1), (x1,y1), (x1,y0), (x0,y0).
    shape: [4, 2]
    """
    n = float(size)
    near, far = MARKER_GAP, MARKER_GAP + MARKER_SIDE
    x0, y0 = {
        0: (-far, -far),
        1: (n + near, -far),
        2: (n + near, n + near),
        3: (-far, n + near),
    }[marker_id]
    x1, y1 = x0 + MARKER_SIDE, y0 + MARKER_SIDE
    return np.array([[x0, y1], [x1, y1], [x1, y0], [x0, y0]], dtype=np.float64)


def all_marker_corners(size: int) -> dict[int, np.ndarray]:
    """Marker id -> its corners in the board frame (see `marker_corners`)."""
    return {marker_id: marker_corners(size, marker_id) for marker_id in MARKER_IDS}

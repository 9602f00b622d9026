"""Do the light pieces stand out from the board? Measured on the first light flat, said in words.

The reader tells a piece from the wood by how the square's look changed against the empty board.
A light flat on wood of nearly its colour barely changes it, and from a tilted camera a bare square
just uncovered next to such pieces is taken for one: light flats on light wood are the reader's
commonest miss. On the recording benchmark (seeds 1351-1850, 500 games; the contrast measured
as below on a frame of each game's installation with a light flat in the middle) 71 % of the games
with a contrast under `LOW_CONTRAST` were recorded perfectly (35 games; under 15, 61 % of 18),
against 90 % of the others (465).

`light_flat_contrast(frame, empty, pose, square)` measures it where it matters, in the camera's own
light: the colour difference between a light flat's top face in `frame` and the same pixels of the
empty board. The service measures it once a game has its first light flat (ply 2 places one);
`contrast_advice` says what a user can do about a low one.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision import geometry
from vision.locate import BoardPose

LOW_CONTRAST = 20.0  # CIE76 delta E between a light flat's top and the bare board
TOP_SHARE = 0.3  # the middle of the top face sampled (a flat may sit off its square's centre)


@dataclass(frozen=True)
class ContrastCheck:
    square: str
    delta_e: float  # the light flat's top against the bare board, CIE76
    advice: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.advice

    def as_dict(self) -> dict:
        return {"square": self.square, "delta_e": round(self.delta_e, 1),
                "advice": list(self.advice)}  # fmt: skip


def _lab(pixels: np.ndarray) -> np.ndarray:
    """Mean CIE Lab (L 0-100, a and b about -128..127) of BGR uint8 pixels [N, 3]."""
    lab = cv2.cvtColor(pixels.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(float)
    return lab.mean(axis=0) * [100 / 255, 1, 1] - [0, 128, 128]


def _top_pixels(image: np.ndarray, pose: BoardPose, file: int, rank: int) -> np.ndarray:
    """The pixels of the middle of a flat's top face on the square (file, rank) [N, 3]."""
    cx, cy = geometry.square_center(file, rank)
    h = TOP_SHARE * geometry.FLAT_WIDTH / 2
    corners = np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]])
    z = np.full((4, 1), geometry.FLAT_THICKNESS)
    img = pose.project(np.hstack([corners, z])).astype(np.int32)
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, img, 1)
    return image[mask.astype(bool)]


def light_flat_contrast(frame: np.ndarray, empty: np.ndarray, pose: BoardPose,
                        square: str) -> float:  # fmt: skip
    """CIE76 colour difference between the light flat on `square` in `frame` and the same pixels
    in `empty` (the bare board, same camera). ValueError when the square is out of the image."""
    files = "abcdefgh"[: pose.size]
    if len(square) != 2 or square[0] not in files or not "1" <= square[1] <= str(pose.size):
        raise ValueError(f"{square!r}: not a square of a {pose.size}x{pose.size} board")
    file, rank = files.index(square[0]), int(square[1]) - 1
    now, then = _top_pixels(frame, pose, file, rank), _top_pixels(empty, pose, file, rank)
    if len(now) < 4 or len(then) < 4:
        raise ValueError(f"{square}: its middle is not in the camera's view")
    return float(np.linalg.norm(_lab(now) - _lab(then)))


def contrast_advice(square: str, delta_e: float) -> ContrastCheck:
    advice = ()
    if delta_e < LOW_CONTRAST:
        advice = (
            f"the light pieces are close to the board's colour (the flat on {square} differs by "
            f"{delta_e:.0f}, under {LOW_CONTRAST:.0f}): the camera will miss some of them; a "
            "board or mat of a darker or different tone, or more light from the side, helps",
        )
    return ContrastCheck(square, delta_e, advice)

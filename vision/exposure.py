"""Is the bare board overexposed? Measured on the empty board, said in words.

The reader takes a top's colour relative to the light on the board under it, and takes glare (a
lamp or a window reflected in the varnish) off first, fitted from the board's own colour
(`vision.reader._unlit`). Where the empty board is clipped in two channels or more there is
nothing to fit: a dark flat under such a glare is read light, frame after frame (bench seed 1,
installations 10, 33 and 34: their last colour errors). The camera's exposure, or where the light
stands, is the user's to change; the reader cannot.

`check_exposure(empty, pose)` measures the clipped share of the grid on a frame of the bare board
and says what to do; the service shows it beside the camera view, the offline recorder prints it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.locate import BoardPose
from vision.reader import CLIPPED  # where the glare fit leaves a channel out

OVEREXPOSED_SHARE = 0.01  # of the grid's pixels clipped in two channels or more: worth saying


@dataclass(frozen=True)
class ExposureCheck:
    clipped_share: float  # of the grid's pixels, clipped in two channels or more (0..1)
    advice: tuple[str, ...]  # empty when the exposure is fine

    @property
    def ok(self) -> bool:
        return not self.advice

    def as_dict(self) -> dict:
        return {"clipped_share": round(self.clipped_share, 4), "advice": list(self.advice)}

    def summary(self) -> str:
        measured = f"bare board clipped on {100 * self.clipped_share:.1f} % of the grid"
        return measured + (": " + self.advice[0] if self.advice else " (good)")


def clipped_share(empty: np.ndarray, pose: BoardPose) -> float:
    """The share of the grid's pixels in `empty` (BGR, the bare board) that are clipped in two
    channels or more."""
    mask = np.zeros(empty.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(pose.grid_corners_img()).astype(np.int32), 1)
    inside = mask.astype(bool)
    if not inside.any():
        return 0.0
    clipped = (empty[inside] >= CLIPPED).sum(axis=1) >= 2
    return float(clipped.mean())


def check_exposure(empty: np.ndarray, pose: BoardPose) -> ExposureCheck:
    share = clipped_share(empty, pose)
    advice: tuple[str, ...] = ()
    if share >= OVEREXPOSED_SHARE:
        advice = (
            f"the bare board is overexposed on {100 * share:.0f} % of the grid (glare or too "
            "much light): pieces' colours cannot be read there; turn the camera's exposure down, "
            "or move the light so that it does not reflect into the camera",
        )
    return ExposureCheck(share, advice)

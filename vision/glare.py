"""Where does a lamp or a window glare on the board? Measured on the bare board, said in words.

Glare is a light reflected in the board's varnish: it adds the same white to the wood and to a
piece set down in it. The reader takes it off where it can fit it (`vision.reader.glare_of`), but
a light flat in a strong glare keeps little but its edges, and the reader can miss it outright
(fresh recording seed 4763: the third ply's light flat on a4, in a glare spot, was read empty at
1.00 on every frame, and the recorder had to ask about it). The lamp's place is the user's to
change; the reader cannot. Camera recorders for other games are blamed for exactly this
(`../shared/reference/field-notes.md`: glare, lighting changes).

`check_glare(empty, pose)` measures each square's glare on a frame of the bare board and names
the squares a user should know about; the service shows it beside the camera view, the offline
recorder prints it. `bench/glare.py` measures it against the simulated camera's own glare.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision import geometry
from vision.locate import BoardPose
from vision.reader import CLIPPED, glare_of
from vision.rectify import Rectifier

PX_PER_PITCH = 24  # the bare board's top view: plenty for a spot a few squares wide
INNER = 0.8  # of each square's side measured (its grid lines left out)
# A square glared this much (grey levels added, the mean over the square) is named: about where
# a light flat on light wood stops standing out (`vision.contrast.LOW_CONTRAST` is 20 delta E)
GLARE_SQUARE = 25.0


@dataclass(frozen=True)
class GlareCheck:
    squares: tuple[str, ...]  # the squares glared at least GLARE_SQUARE, most glared first
    peak: float  # the most glared square's glare (grey levels)
    advice: tuple[str, ...]  # empty when no square is glared enough to say

    @property
    def ok(self) -> bool:
        return not self.advice

    def as_dict(self) -> dict:
        return {"squares": list(self.squares), "peak": round(self.peak, 1),
                "advice": list(self.advice)}  # fmt: skip

    def summary(self) -> str:
        if not self.advice:
            return f"glare at most {self.peak:.0f} grey levels on a square (good)"
        return self.advice[0]


def top_view(image: np.ndarray, pose: BoardPose) -> np.ndarray:
    """The grid of `image` seen from straight above (`vision.rectify`, no margin),
    `PX_PER_PITCH` pixels a square, rank 1 at the bottom (float64; any number of channels)."""
    return Rectifier(pose, PX_PER_PITCH, margin=0.0).warp(image).astype(np.float64)


def square_means(values: np.ndarray, size: int) -> dict[str, float]:
    """The mean of a top view's `values` [size * PX_PER_PITCH, same] over each square's middle
    (`INNER` of its side: the grid lines left out)."""
    ppp = PX_PER_PITCH
    margin = round((1 - INNER) / 2 * ppp)
    out = {}
    for file in range(size):
        for rank in range(size):
            y0, x0 = (size - 1 - rank) * ppp, file * ppp
            part = values[y0 + margin : y0 + ppp - margin, x0 + margin : x0 + ppp - margin]
            out[geometry.square_name(file, rank)] = float(part.mean())
    return out


def square_glare(empty: np.ndarray, pose: BoardPose) -> dict[str, float]:
    """Each square's mean glare (grey levels) on `empty` (BGR, the bare board, `pose` its pose),
    fitted against the board's median colour inside the grid."""
    top = top_view(empty, pose)
    colour = np.median(top.reshape(-1, 3), axis=0)
    glare = glare_of(top, colour)
    # where two channels or more are clipped the fit cannot tell glare from light: there the
    # glare is at least what lifts the pixel above the board's median brightness
    brightness = top.mean(axis=2)
    clipped = (top >= CLIPPED).sum(axis=2) >= 2
    glare = np.where(clipped, np.maximum(glare, brightness - float(np.median(brightness))), glare)
    return square_means(glare, pose.size)


def check_glare(empty: np.ndarray, pose: BoardPose) -> GlareCheck:
    return judge_glare(square_glare(empty, pose))


def judge_glare(per_square: dict[str, float]) -> GlareCheck:
    """What to say of squares' glare as `square_glare` measured it."""
    glared = sorted((sq for sq, g in per_square.items() if g >= GLARE_SQUARE),
                    key=lambda sq: -per_square[sq])  # fmt: skip
    peak = max(per_square.values(), default=0.0)
    advice: tuple[str, ...] = ()
    if glared:
        named = ", ".join(glared[:6]) + (f" and {len(glared) - 6} more" if len(glared) > 6 else "")
        advice = (
            f"a light reflects off the board on {named}: light pieces there may be missed; move "
            "the lamp or the board, or shade the window, until the bare board shows no bright "
            "spot in the camera view",
        )
    return GlareCheck(tuple(glared), peak, advice)

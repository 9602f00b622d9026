"""Is the camera where it reads the board well? Measured from the located board, said in words.

The reader reads a stack's height from how its side and top shift in a tilted view; from straight
above a layer moves nothing in the image. The recording benchmark (seeds 1351-1700, 350 games,
14,000 plies) records 95.5 % of games perfectly with the camera 20-30 degrees from vertical and
82.4 % at 0-10, where spread counts and drops go wrong; the reader's stack heights are right about
96 % of the time at 20-40 degrees and 88 % at 0-10 (`takboard bench vision`). Past 40 degrees,
which the reader was never trained on, tall stacks hide the squares behind them. And a square seen
smaller than any the reader was measured on (40 px across) has too few pixels to trust its kind.

`check_mount(pose)` says what a user can change; the service shows it beside the camera view, the
offline recorder and `takboard vision read` print it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.locate import BoardPose

# the camera's line of sight to the board's centre, degrees from vertical
STEEP_BELOW_DEG = 12.0  # nearly straight down: heights barely show
ADVISED_DEG = (20, 30)  # where the benchmark records best
TILTED_PAST_DEG = 42.0  # beyond what the reader was made and trained for (0-40, and a little
# more at the board's centre when the camera aims off it)
SMALL_SQUARE_PX = 36.0  # below anything measured: the benchmarks' farthest squares are 40 px and up


@dataclass(frozen=True)
class MountCheck:
    """What the located board says about the camera mount."""

    view_angle_deg: float  # line of sight to the board's centre, from vertical
    square_px: float  # the smallest square's side in the image, pixels
    advice: tuple[str, ...]  # what to change, most important first; empty when the mount is fine

    @property
    def ok(self) -> bool:
        return not self.advice

    def as_dict(self) -> dict:
        return {"view_angle_deg": round(self.view_angle_deg, 1),
                "square_px": round(self.square_px, 1), "advice": list(self.advice)}  # fmt: skip

    @property
    def measured(self) -> str:
        """The angle and the square size, in words."""
        angle, square = self.view_angle_deg, self.square_px
        return f"camera {angle:.0f} deg from vertical, squares {square:.0f} px"

    def summary(self) -> str:
        """One line for a terminal: the angle, the square size and what to change."""
        return self.measured + (": " + "; ".join(self.advice) if self.advice else " (good)")


def view_angle_deg(pose: BoardPose) -> float:
    """Angle between the vertical and the camera's line of sight to the board's centre."""
    camera = pose.camera_in_board
    centre = pose.size / 2.0
    across = float(np.hypot(camera[0] - centre, camera[1] - centre))
    return float(np.degrees(np.arctan2(across, camera[2])))


def smallest_square_px(pose: BoardPose) -> float:
    """The side, in image pixels, of the square the camera sees smallest (the farthest one).

    A square's side is taken as the square root of its area in the image, so that a square seen
    obliquely (short one way, long the other) counts for the pixels it really has.
    """
    n = pose.size
    files, ranks = np.meshgrid(np.arange(n + 1, dtype=float), np.arange(n + 1, dtype=float))
    corners = np.column_stack([files.ravel(), ranks.ravel(), np.zeros(files.size)])
    img = pose.project(corners).reshape(n + 1, n + 1, 2)  # [rank, file, xy]
    a, b = img[:-1, :-1], img[:-1, 1:]
    c, d = img[1:, 1:], img[1:, :-1]
    # shoelace area of each quadrilateral a-b-c-d
    area = 0.5 * np.abs(
        (a[..., 0] * b[..., 1] - b[..., 0] * a[..., 1])
        + (b[..., 0] * c[..., 1] - c[..., 0] * b[..., 1])
        + (c[..., 0] * d[..., 1] - d[..., 0] * c[..., 1])
        + (d[..., 0] * a[..., 1] - a[..., 0] * d[..., 1])
    )
    return float(np.sqrt(area.min()))


def check_mount(pose: BoardPose) -> MountCheck:
    """Judge the mount from where the board was found (see the module docstring for why)."""
    angle = view_angle_deg(pose)
    square = smallest_square_px(pose)
    low, high = ADVISED_DEG
    advice = []
    if angle < STEEP_BELOW_DEG:
        advice.append(
            f"the camera looks almost straight down ({angle:.0f} deg): stack heights barely show "
            f"from above; lean it {low}-{high} deg from vertical, back over the near side"
        )
    elif angle > TILTED_PAST_DEG:
        advice.append(
            f"the camera leans {angle:.0f} deg from vertical: tall stacks hide the squares "
            f"behind them; raise it or turn it toward vertical, {low}-{high} deg is best"
        )
    if square < SMALL_SQUARE_PX:
        advice.append(
            f"the farthest squares are only {square:.0f} px across: bring the camera closer or "
            "use a higher resolution, so that the board fills the frame (the reader is measured "
            "on 40 px and up)"
        )
    return MountCheck(angle, square, tuple(advice))

"""Frame gates: is something moving, is a hand or arm over the board.

Hands: an arm reaching for a square always crosses the strip of bare wood between the grid and the
board's edge (pieces never stand there). So the gate samples that ring on the board plane every
frame and compares it with the empty board. Changes there that no stack explains (a tall stack on
an edge square can lean over the ring in the image; the reader says which) mean a hand or arm.
Shadows only darken and are allowed for, so the shadow of a stack or of a hand high above does not
count; the hand itself does. LED glow is allowed for on the squares the service says are lit.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.locate import BoardPose

MOTION_SCALE = 8  # motion is judged on a frame shrunk this much
MOTION_LEVEL = 18  # grey levels a pixel must change by
MOTION_SHARE = 0.004  # share of pixels that must change for "moving"

RING_OFFSETS = (
    0.12,
    0.3,
    0.5,
    0.7,
    0.9,
    1.1,
    1.3,
)  # pitches outside the grid (wood, markers, table)
RING_STEP = 0.05
RING_VOTING_FROM = 0.25  # pitches outside the grid: rows from here on decide
RING_GAIN = (0.5, 1.25)
RING_CHANGED = 350  # squared BGR distance (after gain) that counts as changed
RING_ARM_RUN = 1.2  # pitches of unbroken change along a ring row that only an arm makes
RING_MIN_CHANGED = 4  # changed ring samples needed to call it a hand


def _longest_run(flags: np.ndarray) -> int:
    """Longest run of True along axis 1 of [rows, along, sides]."""
    seqs = np.moveaxis(flags, 1, 2).reshape(-1, flags.shape[1])  # [rows * sides, along]
    padded = np.zeros((seqs.shape[0], seqs.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = seqs
    edges = np.diff(padded, axis=1)
    starts = np.nonzero(edges.ravel() == 1)[0]
    ends = np.nonzero(edges.ravel() == -1)[0]
    return int((ends - starts).max()) if len(starts) else 0


class MotionGate:
    """Frame-to-frame change on a small grey copy. The first frame is never "moving"."""

    def __init__(self) -> None:
        self._previous: np.ndarray | None = None

    def update(self, frame: np.ndarray) -> bool:
        grey = cv2.cvtColor(frame[::MOTION_SCALE, ::MOTION_SCALE], cv2.COLOR_BGR2GRAY)
        grey = cv2.GaussianBlur(grey, (3, 3), 0)
        previous, self._previous = self._previous, grey
        if previous is None or previous.shape != grey.shape:
            return False
        changed = cv2.absdiff(grey, previous) > MOTION_LEVEL
        return float(changed.mean()) > MOTION_SHARE


class HandGate:
    """Watches the ring of bare wood around the grid."""

    def __init__(self, pose: BoardPose) -> None:
        self.pose = pose
        n = pose.size
        pts, offs = [], []
        along = np.arange(-0.05, n + 0.05 + 1e-9, RING_STEP)
        for off in RING_OFFSETS:
            for a in along:
                pts += [(a, -off), (a, n + off), (-off, a), (n + off, a)]
                offs += [off] * 4
        self.ring_pts = np.array(pts, dtype=np.float64)  # board plane, [R, 2]
        # The row hugging the grid also catches pieces pushed over the line and their shadows;
        # an arm crosses every row, so only the outer rows vote.
        self.voting = np.array(offs) >= RING_VOTING_FROM
        img = cv2.perspectiveTransform(self.ring_pts[None], pose.H_img_from_board)[0]
        w, h = pose.image_size
        self.in_frame = (
            (img[:, 0] >= 0) & (img[:, 0] < w - 1) & (img[:, 1] >= 0) & (img[:, 1] < h - 1)
        )
        self.map_x = img[:, 0].astype(np.float32)[None]
        self.map_y = img[:, 1].astype(np.float32)[None]
        self.empty: np.ndarray | None = None

    def set_empty(self, ring_colours: np.ndarray) -> None:
        self.empty = ring_colours.reshape(-1, 3).astype(np.float32)

    def sample(self, frame: np.ndarray) -> np.ndarray:
        return cv2.remap(frame, self.map_x, self.map_y, cv2.INTER_LINEAR)[0].astype(np.float32)

    def changed(self, ring: np.ndarray) -> np.ndarray:
        """[R] bool: ring samples unlike the empty board (after allowing for light and shadow)."""
        if self.empty is None:
            return np.zeros(len(ring), dtype=bool)
        e = self.empty
        g = np.clip((ring * e).sum(1) / ((e * e).sum(1) + 1e-3), *RING_GAIN)
        resid = ring - g[:, None] * e
        return ((resid * resid).sum(1) > RING_CHANGED) & self.in_frame

    def check(
        self,
        ring: np.ndarray,
        claims: list[tuple[int, float, float]],
        lit: dict[str, tuple[int, int, int]] | None = None,
        square_geometry: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> tuple[bool, str]:
        """-> (hand present, reason). `claims` from the square fit: stacks that may lean over."""
        changed = self.changed(ring)
        if not changed.any():
            return False, ""
        explained = np.zeros(len(ring), dtype=bool)
        n = self.pose.size
        if claims:
            idx = np.array([cl[0] for cl in claims])
            t_from = np.array([cl[1] for cl in claims])[:, None]
            t_to = np.array([cl[2] for cl in claims])[:, None]
            centres = np.stack([idx % n + 0.5, idx // n + 0.5], axis=1)  # [C, 2]
            d = centres - self.pose.camera_in_board[:2]
            r = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-6)
            cand = self.voting & changed
            pts = self.ring_pts[cand]
            rel = pts[None, :, :] - centres[:, None, :]  # [C, R', 2]
            u = rel[..., 0] * r[:, None, 0] + rel[..., 1] * r[:, None, 1]
            w = rel[..., 1] * r[:, None, 0] - rel[..., 0] * r[:, None, 1]
            inside = (u >= t_from - 0.05) & (u <= t_to + 0.15) & (np.abs(w) <= 0.75)
            explained[np.nonzero(cand)[0]] = inside.any(axis=0)
        if lit:
            for name in lit:
                file, rank = "abcdefgh".index(name[0]), int(name[1:]) - 1
                c = np.array([file + 0.5, rank + 0.5])
                explained |= np.abs(self.ring_pts - c).max(axis=1) < 0.9
        unexplained = changed & ~explained & self.voting
        count = int(unexplained.sum())
        if count >= RING_MIN_CHANGED:
            return True, f"hand or arm over the board edge ({count} ring samples changed)"
        # An arm is wider than any stack leaning over the edge: a long unbroken run of change
        # along the ring is a hand even where stacks could explain each piece of it.
        grid = (changed & self.voting).reshape(len(RING_OFFSETS), -1, 4)  # [rows, along, side]
        longest = _longest_run(grid) * RING_STEP
        if longest >= RING_ARM_RUN:
            return True, f"hand or arm over the board edge ({longest:.1f} pitches of the ring)"
        return False, ""

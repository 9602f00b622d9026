"""Rectification: resample the frame onto a plane of the board frame at a fixed px-per-pitch grid.

Rectified image ("rect_pts", pixels): covers board x in [-margin, N + margin] and y in
[-margin, N + margin]; row 0 is the far side (y = N + margin), so rank N is at the top as in a
diagram. `B_board_from_rect` maps rect pixels to board (x, y); the plane may sit at any height z,
which is how the reader looks at the tops of stacks as if from straight above.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.locate import BoardPose


def board_from_rect(size: int, px_per_pitch: float, margin: float) -> np.ndarray:
    """3x3: rect pixel (u, v) -> board (x, y)."""
    s = 1.0 / px_per_pitch
    return np.array([[s, 0, -margin], [0, -s, size + margin], [0, 0, 1]], dtype=np.float64)


def H_img_from_plane(pose: BoardPose, z: float) -> np.ndarray:
    """3x3: board (x, y) on the plane at height z -> img_pts."""
    P = pose.P_img_from_board
    return np.column_stack([P[:, 0], P[:, 1], P[:, 2] * z + P[:, 3]])


@dataclass(frozen=True)
class Rectifier:
    pose: BoardPose
    px_per_pitch: int = 24
    margin: float = 1.0

    @property
    def side_px(self) -> int:
        return round((self.pose.size + 2 * self.margin) * self.px_per_pitch)

    def H_img_from_rect(self, z: float = 0.0) -> np.ndarray:
        B = board_from_rect(self.pose.size, self.px_per_pitch, self.margin)
        return H_img_from_plane(self.pose, z) @ B

    def rect_from_board(self, board_xy: np.ndarray) -> np.ndarray:
        """board (x, y) [N, 2] -> rect pixels [N, 2]."""
        pts = np.asarray(board_xy, dtype=np.float64).reshape(-1, 2)
        u = (pts[:, 0] + self.margin) * self.px_per_pitch
        v = (self.pose.size + self.margin - pts[:, 1]) * self.px_per_pitch
        return np.stack([u, v], axis=1)

    def warp(self, frame: np.ndarray, z: float = 0.0) -> np.ndarray:
        """The plane at height z seen from straight above. shape: [side, side(, 3)]"""
        side = self.side_px
        return cv2.warpPerspective(
            frame, self.H_img_from_rect(z), (side, side),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE,
        )  # fmt: skip

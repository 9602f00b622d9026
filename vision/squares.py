"""The radial strip of every square: where a stack standing there smears in the camera's view.

Seen from the camera, everything standing on a square is smeared on the board plane away from the
camera's foot point C (the point of the board right under the lens). A point at height z above
board point X lands, on the board plane, at C + (X - C) * k(z), k(z) = Cz / (Cz - z). So the line
on the board plane from C through a square's centre (its strip) holds, in order, the board in
front of the stack, the stack's front faces, its top and then whatever lies behind.

The strips are sampled every frame (about one image pixel apart) and serve three jobs that need a
cheap, dense look along that line rather than the classifier's view (`vision.views`): the
appearance signatures tracking compares to see what changed (`vision.appearance`), the slow
drift of the empty-board model (the samples in front of a stack are bare board) and the hand
gate's claims (the part of the board plane a stack of a given height covers in the image).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision import geometry
from vision.locate import BoardPose

STRIP_START = -0.55  # pitches in front of the square centre
ACROSS = (-0.02, 0.0, 0.02)  # strip offsets across, pitches (narrow: a slanted edge smears)
TALLEST = 5 * geometry.FLAT_THICKNESS + geometry.CAP_HEIGHT  # a capstone on five flats
TOP_OF_KIND = {
    "flat": geometry.FLAT_THICKNESS,
    "wall": geometry.WALL_HEIGHT,
    "cap": geometry.CAP_HEIGHT,
}


def radial_frames(pose: BoardPose) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Every square's name, centre [S, 2] and radial unit vector [S, 2] (from the camera's foot
    point through the centre), in a1, b1, ... order."""
    n = pose.size
    foot = pose.camera_in_board[:2]
    names, centres, radial = [], [], []
    for rank in range(n):
        for file in range(n):
            names.append(geometry.square_name(file, rank))
            c = np.array(geometry.square_center(file, rank))
            d = c - foot
            norm = float(np.linalg.norm(d))
            # Right under the lens there is no smear direction; any direction will do.
            radial.append(d / norm if norm > 0.05 else np.array([0.0, 1.0]))
            centres.append(c)
    return names, np.array(centres), np.array(radial)


def top_z(kind: str, height: int) -> float:
    """Height (pitches) of the top of a stack of `height` pieces with `kind` on top."""
    return (height - 1) * geometry.FLAT_THICKNESS + TOP_OF_KIND[kind]


class SquareModel:
    """Everything about the strips that depends only on the pose."""

    def __init__(self, pose: BoardPose) -> None:
        self.pose = pose
        n = pose.size
        self.size = n
        cam = pose.camera_in_board
        self.cam_xy = cam[:2]
        self.cam_z = float(cam[2])
        self.names, self.centres, self.radial = radial_frames(pose)  # [S], [S, 2], [S, 2]
        self.rho = np.einsum("si,si->s", self.centres - self.cam_xy, self.radial)  # [S]
        self.order = np.argsort(self.rho)  # nearest to the camera first

        # Sample spacing: about one image pixel along the strip at the nearest square.
        px_per_pitch = self._pixels_per_pitch_along_strips()
        self.dt = float(np.clip(1.0 / px_per_pitch, 0.008, 0.04))
        t_end = float(np.max((self.rho + 0.5) * self.k(TALLEST) - self.rho)) + 0.1
        self.t = np.arange(STRIP_START, t_end, self.dt)  # [T]
        self.T = len(self.t)
        across = np.array(ACROSS)
        perp = np.stack([-self.radial[:, 1], self.radial[:, 0]], axis=1)
        board_pts = (
            self.centres[:, None, None, :]
            + self.t[None, :, None, None] * self.radial[:, None, None, :]
            + across[None, None, :, None] * perp[:, None, None, :]
        )  # [S, T, A, 2]
        self.board_pts = board_pts
        flat = board_pts.reshape(-1, 2)
        img = cv2.perspectiveTransform(flat[None].astype(np.float64), pose.H_img_from_board)[0]
        img = img.reshape(len(self.names) * self.T, len(ACROSS), 2).astype(np.float32)
        self.map_x = np.ascontiguousarray(img[..., 0])
        self.map_y = np.ascontiguousarray(img[..., 1])

    def k(self, z: float | np.ndarray) -> np.ndarray:
        """How much farther from the foot point a point at height z lands on the board plane."""
        return self.cam_z / (self.cam_z - np.asarray(z))

    def top_extent(self, s: int, z: float) -> float:
        """Strip position (t) where the far edge of a top at height z on square s lands."""
        return float((self.rho[s] + 0.5) * self.k(z) - self.rho[s])

    def _pixels_per_pitch_along_strips(self) -> float:
        a = np.hstack([self.centres, np.zeros((len(self.centres), 1))])
        b = np.hstack([self.centres + 0.1 * self.radial, np.zeros((len(self.centres), 1))])
        d = np.linalg.norm(self.pose.project(a) - self.pose.project(b), axis=1) / 0.1
        return float(np.max(d))

    def sample(self, frame: np.ndarray) -> np.ndarray:
        """The strips of a frame (or of a board-plane model image warped the same way). [S, T, 3]"""
        samples = cv2.remap(frame, self.map_x, self.map_y, cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
        # the mean across each strip's few offsets: OpenCV's in one pass, a fifth of numpy's
        # converting and averaging (about 0.6 ms a frame)
        across = cv2.reduce(samples, 1, cv2.REDUCE_AVG, dtype=cv2.CV_32F)  # [S * T, 1, 3]
        return across.reshape(len(self.names), self.T, -1)

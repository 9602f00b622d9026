"""A pinhole camera looking down at the board, placed the way a real mount would hold it.

World frame = the board frame of `vision.geometry` (pitches, z up). Camera frame = OpenCV's: x
right, y down, z forward along the optical axis. `R_cam_from_world`, `t_cam_from_world` map world
points into the camera frame; `K` maps camera-frame rays to pixels (pixel centres at integer
coordinates, OpenCV's convention). No lens distortion: a real camera should be undistorted before
the reader sees it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from vision import geometry

NEAR_PLANE = 0.05  # pitches in front of the lens; polygons are clipped here


@dataclass(frozen=True)
class SimCamera:
    """Pose and intrinsics of the simulated camera.

    tilt_deg: optical axis from vertical (0 = straight down), the camera leaning back over player
    1's side (-y). yaw_deg: the whole rig turned about the vertical through the target,
    counter-clockwise seen from above. roll_deg: the camera turned about its own axis.
    distance: lens to target, pitches.
    target: the board-frame point on z=0 the optical axis goes through.
    """

    size: int = 6
    width: int = 1280
    height: int = 720
    fx: float = 1000.0
    fy: float = 1000.0
    cx: float = 639.5
    cy: float = 359.5
    tilt_deg: float = 0.0
    yaw_deg: float = 0.0
    roll_deg: float = 0.0
    distance: float = 10.0
    target: tuple[float, float] = (3.0, 3.0)
    _pose: tuple[np.ndarray, np.ndarray] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 0 <= self.tilt_deg < 80:
            raise ValueError(f"tilt_deg {self.tilt_deg} is outside 0..80 degrees from vertical")
        if self.distance <= 0 or self.width <= 0 or self.height <= 0 or self.fx <= 0:
            raise ValueError(f"camera needs positive distance, size and focal length: {self!r}")
        object.__setattr__(self, "_pose", self._compute_pose())

    # -- pose ----------------------------------------------------------------------------------
    def _compute_pose(self) -> tuple[np.ndarray, np.ndarray]:
        tilt, yaw, roll = (math.radians(a) for a in (self.tilt_deg, self.yaw_deg, self.roll_deg))
        s, c = math.sin(tilt), math.cos(tilt)
        # Rig with yaw 0: camera over player 1's side looking at the target, image right = +x.
        x_cam = np.array([1.0, 0.0, 0.0])
        z_cam = np.array([0.0, s, -c])
        y_cam = np.cross(z_cam, x_cam)
        offset = np.array([0.0, -s, c]) * self.distance
        cy_, sy_ = math.cos(yaw), math.sin(yaw)
        rz = np.array([[cy_, -sy_, 0.0], [sy_, cy_, 0.0], [0.0, 0.0, 1.0]])
        x_cam, y_cam, z_cam, offset = rz @ x_cam, rz @ y_cam, rz @ z_cam, rz @ offset
        cr, sr = math.cos(roll), math.sin(roll)
        x_cam, y_cam = cr * x_cam + sr * y_cam, -sr * x_cam + cr * y_cam
        rot = np.stack([x_cam, y_cam, z_cam])  # rows: camera axes in world coordinates
        centre = np.array([self.target[0], self.target[1], 0.0]) + offset
        return rot, -rot @ centre

    @property
    def R_cam_from_world(self) -> np.ndarray:
        return self._pose[0]

    @property
    def t_cam_from_world(self) -> np.ndarray:
        return self._pose[1]

    @property
    def centre(self) -> np.ndarray:
        """Lens position in the world frame. shape: [3]"""
        rot, t = self._pose
        return -rot.T @ t

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @property
    def H_img_from_board(self) -> np.ndarray:
        """The board plane z=0 (board frame, pitches) -> image pixels. shape: [3, 3]"""
        rot, t = self._pose
        h = self.K @ np.column_stack([rot[:, 0], rot[:, 1], t])
        return h / h[2, 2]

    # -- projection ----------------------------------------------------------------------------
    def to_camera(self, world_pts: np.ndarray) -> np.ndarray:
        """World points [..., 3] -> camera-frame points [..., 3]."""
        rot, t = self._pose
        return np.asarray(world_pts, dtype=np.float64) @ rot.T + t

    def cam_to_img(self, cam_pts: np.ndarray) -> np.ndarray:
        """Camera-frame points [..., 3] (z > 0) -> pixels [..., 2]."""
        z = cam_pts[..., 2]
        return np.stack(
            [self.fx * cam_pts[..., 0] / z + self.cx, self.fy * cam_pts[..., 1] / z + self.cy], -1
        )

    def project(self, world_pts: np.ndarray) -> np.ndarray:
        """World points [..., 3] (or board points [..., 2], taken at z=0) -> pixels [..., 2]."""
        pts = np.asarray(world_pts, dtype=np.float64)
        if pts.shape[-1] == 2:
            pts = np.concatenate([pts, np.zeros((*pts.shape[:-1], 1))], -1)
        return self.cam_to_img(self.to_camera(pts))

    def depth(self, world_pts: np.ndarray) -> np.ndarray:
        """Distance along the optical axis of world points [..., 3]. shape: [...]"""
        return self.to_camera(world_pts)[..., 2]

    def pixels_per_pitch(self) -> float:
        """Largest image length of one pitch anywhere on the grid (used to size textures)."""
        n = self.size
        pts = np.array([[x, y] for x in (0, n) for y in (0, n)], dtype=np.float64)
        img = self.project(pts)
        step = self.project(pts + np.array([0.01, 0.0]))
        step_y = self.project(pts + np.array([0.0, 0.01]))
        d = np.maximum(np.linalg.norm(step - img, axis=1), np.linalg.norm(step_y - img, axis=1))
        return float(d.max() / 0.01)

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def framing(
        cls,
        size: int,
        *,
        tilt_deg: float = 0.0,
        yaw_deg: float = 0.0,
        roll_deg: float = 0.0,
        hfov_deg: float = 62.0,
        fill: float = 0.85,
        width: int = 1280,
        height: int = 720,
        target_offset: tuple[float, float] = (0.0, 0.0),
        board_margin: float = 1.0,
    ) -> SimCamera:
        """A camera placed so the board with its markers fills `fill` of the frame.

        `fill` is the share of the tighter image dimension the board (grid, markers, `board_margin`
        pitches of wood around the grid, and room for tall stacks) may take. The result always keeps
        the whole grid and all four markers inside the frame.
        """
        if not 0.2 <= fill <= 0.98:
            raise ValueError(f"fill {fill} is outside 0.2..0.98")
        fx = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
        n = float(size)
        m = max(board_margin, geometry.MARKER_GAP + geometry.MARKER_SIDE)
        extent = [(x, y, 0.0) for x in (-m, n + m) for y in (-m, n + m)]
        extent += [(x, y, 1.2) for x in (0.0, n) for y in (0.0, n)]  # tall stacks on the corners
        extent_pts = np.array(extent)
        target = (n / 2 + target_offset[0], n / 2 + target_offset[1])

        def make(distance: float) -> SimCamera:
            return cls(
                size=size, width=width, height=height, fx=fx, fy=fx,
                cx=(width - 1) / 2, cy=(height - 1) / 2, tilt_deg=tilt_deg, yaw_deg=yaw_deg,
                roll_deg=roll_deg, distance=distance, target=target,
            )  # fmt: skip

        def fits(cam: SimCamera) -> bool:
            cam_pts = cam.to_camera(extent_pts)
            if (cam_pts[:, 2] <= 0.5).any():
                return False
            img = cam.cam_to_img(cam_pts)
            half_w, half_h = width * fill / 2, height * fill / 2
            dx = np.abs(img[:, 0] - cam.cx)
            dy = np.abs(img[:, 1] - cam.cy)
            return bool((dx <= half_w).all() and (dy <= half_h).all())

        lo, hi = 0.5, 8.0 * (n + 2 * m) + 10.0
        for _ in range(40):
            mid = (lo + hi) / 2
            if fits(make(mid)):
                hi = mid
            else:
                lo = mid
        return make(hi)

    def with_resolution(self, width: int, height: int) -> SimCamera:
        """Same pose and field of view at another resolution."""
        scale = width / self.width
        return replace(
            self, width=width, height=height, fx=self.fx * scale, fy=self.fy * height / self.height,
            cx=(width - 1) / 2 + (self.cx - (self.width - 1) / 2) * scale,
            cy=(height - 1) / 2 + (self.cy - (self.height - 1) / 2) * height / self.height,
        )  # fmt: skip

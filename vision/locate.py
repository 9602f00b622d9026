"""Board localisation: find the board, recover the camera pose, check it cheaply every frame.

Frames and directions (see `vision/geometry.py`):
  board_pts  board frame, units of one square pitch, z up (the board surface is z = 0)
  img_pts    image pixels (x right, y down) of the full frame
  H_img_from_board  3x3 homography, board plane (x, y) -> img_pts
  P_img_from_board  3x4 projection, board (x, y, z) -> img_pts (homogeneous)

The pose comes from the four ArUco markers (16 points) or from four user-given grid corners. The
intrinsics are not calibrated: the principal point is taken at the image centre with square pixels,
and the focal length is estimated from the plane homography (it is well conditioned once the camera
is tilted; a near-vertical camera falls back to a typical webcam field of view, where the error
hardly matters because heights then barely move in the image).

The per-frame check compares small patches around the markers (or corners) with the patches stored
when the pose was found: cheap (four small template matches) and insensitive to lighting. When it
fails the caller re-localises at once, so a bumped camera is found again on the next good frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision import geometry

DEFAULT_HFOV_DEG = 62.0  # a typical webcam / Pi camera v2 horizontal field of view
CHECK_SEARCH_PX = 6  # the check looks this far for each patch; a shift beyond 1.5 px is a bump
CHECK_MAX_SHIFT_PX = 1.5
CHECK_MIN_SCORE = 0.6


class BoardNotFoundError(Exception):
    """The board could not be located; `reason` says why (e.g. "2 of 4 markers seen")."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def parse_corners(text: str) -> np.ndarray:
    """`"x,y x,y x,y x,y"` -> img_pts [4, 2], in the package's corner order (a1 corner first).

    Raises ValueError that quotes the text when it is not four numeric pairs.
    """
    parts = text.replace(";", " ").split()
    if len(parts) != 4:
        raise ValueError(f"--corners needs four 'x,y' pairs separated by spaces, got {text!r}")
    pts = []
    for part in parts:
        xy = part.split(",")
        if len(xy) != 2:
            raise ValueError(f"--corners: {part!r} is not an 'x,y' pair (in {text!r})")
        try:
            pts.append((float(xy[0]), float(xy[1])))
        except ValueError:
            raise ValueError(f"--corners: {part!r} is not numeric (in {text!r})") from None
    corners = np.array(pts, dtype=np.float64)
    if abs(cv2.contourArea(corners.astype(np.float32))) < 100 or not cv2.isContourConvex(
        corners.astype(np.float32)
    ):
        raise ValueError(
            f"--corners {text!r} do not form a convex quadrilateral (order: a1 corner, "
            "last-file rank-1 corner, far corner, a-file last-rank corner)"
        )
    return corners


def default_camera_matrix(width: int, height: int, focal: float | None = None) -> np.ndarray:
    f = focal if focal else 0.5 * width / np.tan(np.radians(DEFAULT_HFOV_DEG) / 2)
    cx, cy = (width - 1) / 2.0, (height - 1) / 2.0
    return np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]], dtype=np.float64)


def estimate_focal(H_img_from_board: np.ndarray, width: int, height: int) -> float | None:
    """Focal length (px) from a plane homography, principal point at the centre, square pixels.

    Uses both constraints of a rotation (r1 . r2 = 0 and |r1| = |r2|) in least squares on 1/f^2.
    Returns None when the view is too close to fronto-parallel for the estimate to mean anything.
    """
    T = np.array([[1, 0, -(width - 1) / 2.0], [0, 1, -(height - 1) / 2.0], [0, 0, 1]])
    h = T @ H_img_from_board
    h = h / np.linalg.norm(h[:, 0])
    (a1, b1, c1), (a2, b2, c2) = h[:, 0], h[:, 1]
    # r1.r2 = 0:      (a1 a2 + b1 b2) w + c1 c2 = 0,       w = 1 / f^2
    # |r1| = |r2|:    (a1^2 + b1^2 - a2^2 - b2^2) w + c1^2 - c2^2 = 0
    A = np.array([a1 * a2 + b1 * b2, a1**2 + b1**2 - a2**2 - b2**2])
    b = -np.array([c1 * c2, c1**2 - c2**2])
    denom = float(A @ A)
    # the perspective terms c1, c2 vanish for a camera looking straight down
    if denom <= 0 or np.hypot(c1, c2) * width < 0.08:
        return None
    w = float(A @ b) / denom
    if w <= 0:
        return None
    f = 1.0 / np.sqrt(w)
    if not (0.3 * width < f < 5.0 * width):
        return None
    return float(f)


@dataclass
class BoardPose:
    """Where the board is in the image, and where the camera is relative to the board."""

    size: int
    image_size: tuple[int, int]  # (width, height)
    H_img_from_board: np.ndarray  # [3, 3]
    K: np.ndarray  # [3, 3] camera matrix (estimated, see module docstring)
    rvec: np.ndarray  # [3] board -> camera rotation (Rodrigues)
    tvec: np.ndarray  # [3] board -> camera translation, pitches
    source: str  # "markers" or "corners"
    markers_seen: tuple[int, ...] = ()
    focal_estimated: bool = False
    check_patches: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list, repr=False)

    @property
    def P_img_from_board(self) -> np.ndarray:
        R, _ = cv2.Rodrigues(self.rvec)
        return self.K @ np.hstack([R, self.tvec.reshape(3, 1)])

    @property
    def camera_in_board(self) -> np.ndarray:
        """The camera centre in board_pts (pitches). shape: [3]"""
        R, _ = cv2.Rodrigues(self.rvec)
        return (-R.T @ self.tvec.reshape(3, 1)).ravel()

    @property
    def tilt_deg(self) -> float:
        """Angle between the optical axis and the board's vertical."""
        R, _ = cv2.Rodrigues(self.rvec)
        axis_in_board = R.T @ np.array([0.0, 0.0, 1.0])
        return float(np.degrees(np.arccos(min(1.0, abs(axis_in_board[2])))))

    def project(self, board_xyz: np.ndarray) -> np.ndarray:
        """board_pts [N, 3] -> img_pts [N, 2]."""
        pts = np.asarray(board_xyz, dtype=np.float64).reshape(-1, 3)
        hom = np.hstack([pts, np.ones((len(pts), 1))]) @ self.P_img_from_board.T
        return hom[:, :2] / hom[:, 2:3]

    def grid_corners_img(self) -> np.ndarray:
        """The four outer grid corners in img_pts, corner order of `vision.geometry`. [4, 2]"""
        pts = geometry.grid_corners(self.size)
        return self.project(np.hstack([pts, np.zeros((4, 1))]))


def _solve_pose(
    size: int,
    board_pts: np.ndarray,
    img_pts: np.ndarray,
    image_size: tuple[int, int],
    source: str,
    markers_seen: tuple[int, ...] = (),
) -> BoardPose:
    width, height = image_size
    H, _ = cv2.findHomography(board_pts.astype(np.float64), img_pts.astype(np.float64), 0)
    if H is None:
        raise BoardNotFoundError("degenerate point set: no homography")
    focal = estimate_focal(H, width, height)
    K = default_camera_matrix(width, height, focal)
    obj = np.hstack([board_pts, np.zeros((len(board_pts), 1))]).astype(np.float64)
    flag = cv2.SOLVEPNP_IPPE if len(board_pts) >= 4 else cv2.SOLVEPNP_ITERATIVE
    ok, rvec, tvec = cv2.solvePnP(obj, img_pts.astype(np.float64), K, None, flags=flag)
    if not ok:
        raise BoardNotFoundError("solvePnP failed")
    if tvec[2] <= 0:
        raise BoardNotFoundError("pose puts the board behind the camera")
    pose = BoardPose(
        size=size,
        image_size=image_size,
        H_img_from_board=H / H[2, 2],
        K=K,
        rvec=rvec.ravel(),
        tvec=tvec.ravel(),
        source=source,
        markers_seen=markers_seen,
        focal_estimated=focal is not None,
    )
    # The board must face the camera: the camera centre sits above the board plane.
    if pose.camera_in_board[2] <= 0:
        raise BoardNotFoundError("pose puts the camera under the board")
    return pose


def _grey(frame: np.ndarray) -> np.ndarray:
    if frame.ndim == 2:
        return frame
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


class BoardLocator:
    """Finds the board (markers or given corners) and checks per frame that it has not moved."""

    def __init__(self, size: int, corners: np.ndarray | None = None) -> None:
        if not 3 <= size <= 8:
            raise ValueError(f"board size must be 3..8, got {size}")
        self.size = size
        self.given_corners = None if corners is None else np.asarray(corners, dtype=np.float64)
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, geometry.DICTIONARY))
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        self._detector = cv2.aruco.ArucoDetector(dictionary, params)
        self._marker_model = geometry.all_marker_corners(size)

    # -- full localisation (calibration and recovery) -------------------------------------------
    def locate(self, frame: np.ndarray) -> BoardPose:
        """Full localisation. Raises BoardNotFoundError with the reason."""
        grey = _grey(frame)
        height, width = grey.shape[:2]
        if self.given_corners is not None:
            pose = _solve_pose(
                self.size,
                geometry.grid_corners(self.size),
                self.given_corners,
                (width, height),
                "corners",
            )
        else:
            if float(grey.std()) < 4.0:
                raise BoardNotFoundError("frame is blank or too dark to find markers")
            pose = self._locate_markers(grey, (width, height))
        self._store_check_patches(grey, pose)
        return pose

    def _detect(self, grey: np.ndarray) -> dict[int, np.ndarray]:
        corners, ids, _ = self._detector.detectMarkers(grey)
        found: dict[int, np.ndarray] = {}
        if ids is None:
            return found
        for quad, marker_id in zip(corners, ids.ravel(), strict=True):
            mid = int(marker_id)
            if mid in self._marker_model and mid not in found:
                found[mid] = quad.reshape(4, 2).astype(np.float64)
        return found

    def _locate_markers(self, grey: np.ndarray, image_size: tuple[int, int]) -> BoardPose:
        found = self._detect(grey)
        if len(found) < 3:
            # Noisy frames sometimes only detect after a mild smoothing: try once more.
            found = found or self._detect(cv2.GaussianBlur(grey, (3, 3), 0))
        if len(found) < 3:
            ids = ", ".join(str(i) for i in sorted(found)) or "none"
            raise BoardNotFoundError(f"{len(found)} of 4 markers seen (ids: {ids}); need 3")
        ids = tuple(sorted(found))
        board_pts = np.vstack([self._marker_model[i] for i in ids])
        img_pts = np.vstack([found[i] for i in ids])
        pose = _solve_pose(self.size, board_pts, img_pts, image_size, "markers", ids)
        # Sanity: the markers must agree with one plane (a wrong id or a marker off the board
        # would not). Reprojection error relative to the marker size in pixels.
        reproj = pose.project(np.hstack([board_pts, np.zeros((len(board_pts), 1))]))
        err = float(np.max(np.linalg.norm(reproj - img_pts, axis=1)))
        marker_px = float(np.median([np.linalg.norm(q[0] - q[1]) for q in found.values()]))
        if err > max(3.0, 0.25 * marker_px):
            raise BoardNotFoundError(f"markers disagree with one board plane ({err:.1f} px)")
        return pose

    # -- cheap per-frame check ------------------------------------------------------------------
    def _check_points(self, pose: BoardPose) -> np.ndarray:
        """Board points whose neighbourhoods are compared frame to frame. [K, 2] img_pts."""
        if pose.source == "markers":
            centres = [self._marker_model[i].mean(axis=0) for i in geometry.MARKER_IDS]
            pts = np.array(centres)
        else:
            pts = geometry.grid_corners(self.size)
        return pose.project(np.hstack([pts, np.zeros((len(pts), 1))]))

    def _patch_half(self, pose: BoardPose) -> int:
        corners = pose.grid_corners_img()
        pitch_px = float(np.linalg.norm(corners[1] - corners[0])) / self.size
        return int(np.clip(0.35 * pitch_px, 6, 40))

    def _store_check_patches(self, grey: np.ndarray, pose: BoardPose) -> None:
        half = self._patch_half(pose)
        patches = []
        for centre in self._check_points(pose):
            patch = _crop(grey, centre, half)
            if patch is not None and float(patch.std()) > 3.0:
                patches.append((centre, patch.copy()))
        pose.check_patches = patches

    def check(self, frame: np.ndarray, pose: BoardPose) -> tuple[int, int]:
        """How many stored patches are still in place, out of how many. Cheap: for every frame."""
        half = self._patch_half(pose)
        ok = 0
        for centre, patch in pose.check_patches:
            window = _crop(frame, centre, half + CHECK_SEARCH_PX)
            if window is None:
                continue
            window = _grey(window)  # (the windows alone: a tenth of the frame's conversion)
            scores = cv2.matchTemplate(window, patch, cv2.TM_CCOEFF_NORMED)
            _, best, _, loc = cv2.minMaxLoc(scores)
            shift = np.hypot(loc[0] - CHECK_SEARCH_PX, loc[1] - CHECK_SEARCH_PX)
            if best >= CHECK_MIN_SCORE and shift <= CHECK_MAX_SHIFT_PX:
                ok += 1
        return ok, len(pose.check_patches)


def _crop(image: np.ndarray, centre: np.ndarray, half: int) -> np.ndarray | None:
    x, y = round(float(centre[0])), round(float(centre[1]))
    h, w = image.shape[:2]
    if x - half < 0 or y - half < 0 or x + half + 1 > w or y + half + 1 > h:
        return None
    return image[y - half : y + half + 1, x - half : x + half + 1]


def poses_differ(a: BoardPose, b: BoardPose, tolerance_px: float = 2.0) -> bool:
    """True when the grid corners of two poses are more than `tolerance_px` apart somewhere."""
    return bool(
        np.max(np.linalg.norm(a.grid_corners_img() - b.grid_corners_img(), axis=1)) > tolerance_px
    )

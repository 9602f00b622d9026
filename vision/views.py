"""What the camera sees of every square, sampled in the square's own 3-D frame.

These are the inputs of the square classifier (`vision/net.py`). Each square gets its own frame:
its centre, the radial axis r (on the board, from the point under the lens through the centre:
the direction in which everything standing on the square smears in the image) and the axis q
across it. Sampling in that frame makes every square look alike to the classifier, whatever its
place on the board and the camera's tilt; what still differs (how far a layer smears here, the
angle of view, the resolution) goes in as three numbers.

Two sets of samples per square, each taken from the frame and, along the very same rays, from the
empty-board model (so "what changed" is measured sample by sample):

- planes: an 11 x 11 grid across the square (r up, q across, +-0.6 pitch), repeated at heights
  0, 0.15, ..., 1.35 pitches (one flat apart). At the height of a stack's top its top face shows
  centred and sharp; a wall shows as a bar, a capstone as a disc; below the top the rays end on
  the stack's sides, above it they pass to whatever lies behind.
- verticals: three vertical lines standing on the square's front edge (-0.2, 0, +0.2 pitch
  across), sampled finely from 0.2 pitch in front of the edge on the board up to 1.6 pitches.
  Where the stack's side ends and its top face begins is the stack's height, at the resolution of
  the image rather than of the plane grid.

Per sample three channels, none of which asks what colour a piece is: the log brightness ratio
to the empty board, and the change of the blue and red shares of the colour. The plane grid is
sampled from a slightly blurred frame (its spacing is several pixels; unblurred it would miss a
wall seen end-on between two samples); the verticals from the sharp frame (the seams between
layers are a pixel or two).

And one more channel on the plane grid: how much edge there is about each sample (the sharp
frame's gradient length, spread over about a grid step, relative to the brightness there). Seen
from above, a wall standing on a flat of its own colour is a thin bar of that colour on that
colour: the colour channels barely move, but its faces' outlines do show (docs/vision.md,
session 9: walls on stacks read as flats fell from 132 to 55 of 1,499 held out). The gradient's
length rather than |d/dx| + |d/dy|: a square's mirror image must give the mirrored samples (the
training symmetry), so a diagonal edge must weigh what a straight one does.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision import geometry
from vision.locate import BoardPose
from vision.squares import radial_frames

PLANE_HEIGHTS = np.arange(10) * geometry.FLAT_THICKNESS  # 0 .. 1.35 pitches
GRID = np.linspace(-0.6, 0.6, 11)  # pitches, along r (rows) and across (columns)
VERTICAL_OFFSETS = np.array([-0.2, 0.0, 0.2])  # pitches across, from the front edge's middle
VERTICAL_Z = np.linspace(-0.2, 1.6, 48)  # pitches; below 0 = on the board, in front of the edge
FRONT_EDGE = 0.35  # pitches in front of the centre: a centred flat's front edge
CHANNELS = 3
EMPTY_PX_PER_PITCH = 40  # the empty-board model's resolution (see BoardReader)
EMPTY_MARGIN = 1.5  # pitches of wood around the grid in the empty-board model

EDGE_SPREAD = 0.4  # Gaussian sigma of the edge channel, in plane grid steps
EDGE_CLIP = 3.0  # edge strength relative to brightness is clipped there (a glare spot's rim)

PLANE_SHAPE = (len(PLANE_HEIGHTS), len(GRID), len(GRID), CHANNELS)
EDGE_SHAPE = PLANE_SHAPE[:3]
VERTICAL_SHAPE = (len(VERTICAL_OFFSETS), len(VERTICAL_Z), CHANNELS)
N_GEOMETRY = 4  # smear per layer (x10), elevation of the view, pixels per pitch / 100, LED lit
N_FEATURES = int(np.prod(PLANE_SHAPE) + np.prod(VERTICAL_SHAPE) + np.prod(EDGE_SHAPE)) + N_GEOMETRY


def mirror_index() -> np.ndarray:
    """Feature permutation that mirrors a square across its radial axis (q -> -q).

    The geometry is symmetric about that axis, so training doubles its data with it."""
    idx = np.arange(N_FEATURES)
    n_plane, n_vert, n_edge = (int(np.prod(s)) for s in (PLANE_SHAPE, VERTICAL_SHAPE, EDGE_SHAPE))
    plane = idx[:n_plane].reshape(PLANE_SHAPE)[:, :, ::-1, :].ravel()
    vert = idx[n_plane : n_plane + n_vert].reshape(VERTICAL_SHAPE)[::-1].ravel()
    start = n_plane + n_vert
    edge = idx[start : start + n_edge].reshape(EDGE_SHAPE)[:, :, ::-1].ravel()
    return np.concatenate([plane, vert, edge, idx[start + n_edge :]])


def board_to_model_px(board_xy: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Board-plane points [..., 2] (pitches) -> pixel coordinates (u, v) in the empty-board model
    (`warp_to_board`'s layout), float32, for cv2.remap."""
    ppp, m = EMPTY_PX_PER_PITCH, EMPTY_MARGIN
    u = (board_xy[..., 0] + m) * ppp
    v = (size + m - board_xy[..., 1]) * ppp
    return u.astype(np.float32), v.astype(np.float32)


def change_channels(frame_bgr: np.ndarray, empty_bgr: np.ndarray) -> np.ndarray:
    """[N, 3] float32 samples of the frame and the empty board -> [N, 3] change channels:
    log((grey_frame + 4) / (grey_empty + 4)) clipped to +-3, and 10x the change of the blue and
    of the red share of (B + G + R + 12)."""
    # channel by channel: numpy's reduce over a short last axis is slow
    sum_f = frame_bgr[:, 0] + frame_bgr[:, 1] + frame_bgr[:, 2] + np.float32(12.0)  # 3 (grey + 4)
    sum_e = empty_bgr[:, 0] + empty_bgr[:, 1] + empty_bgr[:, 2] + np.float32(12.0)
    out = np.empty_like(frame_bgr)
    np.clip(np.log(sum_f / sum_e), -3.0, 3.0, out=out[:, 0])
    out[:, 1] = (frame_bgr[:, 0] / sum_f - empty_bgr[:, 0] / sum_e) * np.float32(10.0)
    out[:, 2] = (frame_bgr[:, 2] / sum_f - empty_bgr[:, 2] / sum_e) * np.float32(10.0)
    return out


class SquareViews:
    """The sampling plan for one pose (built once per pose; a few milliseconds)."""

    def __init__(self, pose: BoardPose, shifts: np.ndarray | None = None) -> None:
        """`shifts` [S, 2] (pitches, board axes): move each square's frame off the square's
        centre, keeping its axes (a view centred on the piece instead of the square; the
        classifier was trained on views centred on the square, with pieces up to 0.1 pitch off
        it: `bench/vision_centring.py` measures what centring them would change)."""
        n = pose.size
        self.size = n
        cam = pose.camera_in_board
        H_board_from_img = np.linalg.inv(pose.H_img_from_board)
        self.names, C, R = radial_frames(pose)
        if shifts is not None:
            C = C + shifts
        S = len(self.names)
        Q = np.stack([-R[:, 1], R[:, 0]], axis=1)
        self.centres, self.radial = C, R

        # planes: [S, Z, B(along r), A(across), xyz]
        Z, G = len(PLANE_HEIGHTS), len(GRID)
        xy = (
            C[:, None, None, None, :]
            + GRID[None, None, :, None, None] * R[:, None, None, None, :]
            + GRID[None, None, None, :, None] * Q[:, None, None, None, :]
        )
        xy = np.broadcast_to(xy, (S, Z, G, G, 2))
        z = np.broadcast_to(PLANE_HEIGHTS[None, :, None, None, None], (S, Z, G, G, 1))
        plane_points = np.concatenate([xy, z], axis=-1).reshape(-1, 3)
        self._plane_maps = self._maps(pose, H_board_from_img, plane_points, G * G)

        # verticals: [S, O, Zv, xyz]; below the board they walk towards the camera instead
        front = C - FRONT_EDGE * R
        base = front[:, None, None, :] + VERTICAL_OFFSETS[None, :, None, None] * Q[:, None, None, :]
        base = base + np.minimum(VERTICAL_Z, 0.0)[None, None, :, None] * R[:, None, None, :]
        base = np.broadcast_to(base, (S, len(VERTICAL_OFFSETS), len(VERTICAL_Z), 2))
        vz = np.broadcast_to(np.maximum(VERTICAL_Z, 0.0)[None, None, :, None], (*base.shape[:3], 1))
        vpts = np.concatenate([base, vz], axis=-1).reshape(-1, 3)
        self._vertical_maps = self._maps(pose, H_board_from_img, vpts, len(VERTICAL_Z))

        # what still differs between squares: how far one layer smears here, the angle of view,
        # the resolution
        rho = np.einsum("si,si->s", C - cam[:2], R)
        cz = float(cam[2])
        smear = rho * (cz / (cz - geometry.FLAT_THICKNESS) - 1.0)
        c0 = np.hstack([C, np.zeros((S, 1))])
        c1 = c0 + np.hstack([0.1 * R, np.zeros((S, 1))])
        px_per_pitch = np.linalg.norm(pose.project(c1) - pose.project(c0), axis=1) / 0.1
        elevation = np.arctan2(cz, np.abs(rho))
        # how far from straight above the camera sees each square: tan of the angle from the
        # vertical (a layer of height h moves h * tan_view along the line of sight)
        self.tan_view = (np.abs(rho) / cz).astype(np.float32)
        self.geometry = np.stack([smear * 10, elevation, px_per_pitch / 100], 1).astype(np.float32)
        spacing_px = float(np.median(px_per_pitch)) * float(GRID[1] - GRID[0])
        self.blur = round(spacing_px / 2) | 1  # odd box size, about half a grid step

        # Only the part of the frame the plane grid samples is blurred (the board is often half
        # the frame): its box, with room for the blur and the bilinear neighbours, and the grid's
        # tables moved into it. Where the box meets the frame's edge it is the frame's edge, so
        # every sample comes out as from the whole blurred frame.
        fx, fy = self._plane_maps[:2]
        room = self.blur // 2 + 2
        self._blur_origin = (max(0, int(np.floor(fx.min())) - room),
                             max(0, int(np.floor(fy.min())) - room))  # fmt: skip
        self._blur_end = (int(np.ceil(fx.max())) + room + 1, int(np.ceil(fy.max())) + room + 1)
        x0, y0 = self._blur_origin
        self._plane_maps_in_box = (fx - np.float32(x0), fy - np.float32(y0))
        # the edge channel: the gradient's length is spread over about a grid step (a Gaussian,
        # the same whichever way an edge runs), on a frame shrunk to about 4 pixels per step
        self.edge_shrink = int(np.clip(round(spacing_px / 4), 1, 4))
        self.edge_sigma = EDGE_SPREAD * spacing_px / self.edge_shrink
        self._plane_maps_shrunk = _shrunk(self._plane_maps_in_box, self.edge_shrink)
        # the empty model's samples change only when the model does (start-up, a bump)
        self._empty_samples: tuple = (None, None, None)

    def _maps(
        self, pose: BoardPose, H_board_from_img: np.ndarray, pts: np.ndarray, row: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """remap tables for the frame (image pixels) and for the empty-board model (its pixels,
        where the same ray meets the board). In rows of `row` samples: remap wants both sides of
        its tables under 32767."""
        img = pose.project(pts)
        hom = np.hstack([img, np.ones((len(img), 1))]) @ H_board_from_img.T
        ex, ey = board_to_model_px(hom[:, :2] / hom[:, 2:3], self.size)
        return tuple(a.astype(np.float32).reshape(-1, row) for a in (img[:, 0], img[:, 1], ex, ey))

    def sample(
        self, frame: np.ndarray, empty_rect: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Raw samples: plane grid of the (blurred) frame and of the empty model, [S, Z, B, A, 3]
        each; verticals of the frame and of the empty model, [S, O, Zv, 3] each (float32 BGR);
        the edge strength on the plane grid, [S, Z, B, A] (grey levels per pixel).
        The empty model's samples are kept for the next frame: read them, never write to them."""
        S = len(self.names)
        (x0, y0), (x1, y1) = self._blur_origin, self._blur_end
        box = frame[y0:y1, x0:x1]
        if box.size:
            (fx, fy), shrunk = self._plane_maps_in_box, self._plane_maps_shrunk
        else:  # the whole grid lies off this frame: the frame's border, as from the whole frame
            box, (fx, fy), shrunk = frame, self._plane_maps[:2], None
        soft = cv2.blur(box, (self.blur, self.blur)) if self.blur > 1 else box
        pf = _remap(soft, fx, fy).reshape(S, *PLANE_SHAPE)
        ef = self._edges(box, fx, fy, shrunk).reshape(S, *EDGE_SHAPE)
        vx, vy, _, _ = self._vertical_maps
        vf = _remap(frame, vx, vy).reshape(S, *VERTICAL_SHAPE)
        cached, pe, ve = self._empty_samples
        if cached is not empty_rect:  # the array itself: an id() can be reused
            _, _, ex, ey = self._plane_maps
            pe = _remap(empty_rect, ex, ey).reshape(S, *PLANE_SHAPE)
            _, _, ex, ey = self._vertical_maps
            ve = _remap(empty_rect, ex, ey).reshape(S, *VERTICAL_SHAPE)
            self._empty_samples = (empty_rect, pe, ve)
        return pf, pe, vf, ve, ef

    def _edges(
        self, box: np.ndarray, fx: np.ndarray, fy: np.ndarray,
        shrunk: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> np.ndarray:  # fmt: skip
        """Edge strength of `box` at the plane grid's points (fx, fy in the box's pixels;
        `shrunk`: the same points on the box shrunk `edge_shrink` times, when known)."""
        grey = cv2.cvtColor(box, cv2.COLOR_BGR2GRAY)
        k = self.edge_shrink
        h, w = grey.shape
        if k > 1 and h >= k and w >= k:
            # area averaging over whole k x k blocks; the grid's steps stay a few pixels long, so
            # a piece's outline still makes an edge, at a quarter of the work or less
            grey = cv2.resize(grey[: h - h % k, : w - w % k], (w // k, h // k),
                              interpolation=cv2.INTER_AREA)  # fmt: skip
            fx, fy = shrunk or _shrunk((fx, fy), k)
        # a Sobel derivative is 4x the step between neighbours: / 4 gives grey levels per pixel
        gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3, scale=0.25)
        gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3, scale=0.25)
        spread = cv2.GaussianBlur(cv2.magnitude(gx, gy), (0, 0), self.edge_sigma)
        return _remap(spread, fx, fy)

    def features(
        self, samples: tuple[np.ndarray, ...], lit: set[str] | dict | None = None
    ) -> np.ndarray:
        """The classifier's input: [S, N_FEATURES] float32."""
        pf, pe, vf, ve, ef = samples
        S = len(self.names)
        plane = change_channels(pf.reshape(-1, 3), pe.reshape(-1, 3)).reshape(S, -1)
        vertical = change_channels(vf.reshape(-1, 3), ve.reshape(-1, 3)).reshape(S, -1)
        # relative to the brightness there: a shadow's edge is as strong as a piece's in the light
        grey = (pf[..., 0] + pf[..., 1] + pf[..., 2]) * np.float32(1 / 3) + np.float32(4.0)
        edges = np.minimum(ef / grey, np.float32(EDGE_CLIP)).reshape(S, -1)
        lit_now = np.array([[name in (lit or ())] for name in self.names], np.float32)
        return np.hstack([plane, vertical, edges, self.geometry, lit_now])


def warp_to_board(frame: np.ndarray, pose: BoardPose) -> np.ndarray:
    """The frame seen straight down onto the board plane: the empty-board model's layout
    (EMPTY_PX_PER_PITCH, EMPTY_MARGIN pitches of wood around the grid), float32."""
    ppp, m, n = EMPTY_PX_PER_PITCH, EMPTY_MARGIN, pose.size
    side = round((n + 2 * m) * ppp)
    B = np.array([[1 / ppp, 0, -m], [0, -1 / ppp, n + m], [0, 0, 1]], dtype=np.float64)
    return cv2.warpPerspective(
        frame, pose.H_img_from_board @ B, (side, side),
        flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.float32)  # fmt: skip


def _shrunk(maps: tuple[np.ndarray, np.ndarray], k: int) -> tuple[np.ndarray, np.ndarray]:
    """remap tables (fx, fy) moved onto the image shrunk k times by whole k x k blocks (a block's
    centre is its pixels' mean)."""
    half = np.float32(0.5)
    fx, fy = maps
    return (fx + half) / k - half, (fy + half) / k - half


def _remap(image: np.ndarray, mx: np.ndarray, my: np.ndarray) -> np.ndarray:
    out = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.astype(np.float32)

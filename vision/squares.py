"""Per-square reading by 3D hypothesis fitting along one radial strip per square.

Why a radial strip: seen from the camera, everything standing on a square is smeared on the board
plane away from the camera's foot point C (the point of the board right under the lens). A point at
height z above board point X lands, on the board plane, at C + (X - C) * k(z), k(z) = Cz / (Cz - z).
So the line on the board plane from C through a square's centre holds, in order, the board in front
of the stack, the front faces of every layer, the top face and then whatever lies behind. Where each
of those begins is fixed by the geometry once the stack is guessed: a 1-D model per square.

Profile: for each square a strip on the board plane, samples t (pitches, along the radial unit
vector r from the square's centre; t < 0 is towards the camera) times a few offsets across, taken
straight from the frame through the plane homography and averaged across. `empty` holds the same
strip of the empty-board model.

For every hypothesis (empty; n flats; a wall or capstone on n-1 flats, walls in four orientations)
and a small range of horizontal offsets of the top piece against the bottom one (real pieces are
never stacked exactly), the breakpoints follow from the geometry and the cost is:
  board part   gain-tolerant distance to the empty model (shadows only darken), truncated
  each layer's front face, and the top face: squared deviation from the segment's own mean
               (colour agnostic: it never asks what colour a piece is), plus a per-segment penalty
  behind       either the empty board or "unexplained" at a fixed cost per sample
The cheapest hypothesis wins; the margins to the best rival with a different answer give the
confidences. (Masking what nearer stacks hide and refitting was tried: it read worse, because a
misread tall neighbour then hides a square's own evidence.)
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision import geometry
from vision.locate import BoardPose

STRIP_START = -0.55  # pitches in front of the square centre
ACROSS = (-0.02, 0.0, 0.02)  # strip offsets across, pitches (narrow: a slanted edge smears)
MAX_FLATS = 8
MAX_UNDER = 5  # flats under a wall or capstone considered
TOP_SHIFTS = np.linspace(-0.1, 0.1, 5)  # top piece offset against the bottom piece, pitches
COARSE_SHIFTS = np.array([2])  # indices into TOP_SHIFTS tried for every hypothesis
REFINE_TOP = 3  # hypotheses per square refined with every shift and base offset
BASE_SHIFT_RANGE = (-0.13, 0.13)  # bottom piece offset from the centre, searched by the edge finder
BASE_OFFSETS = (-5, 0, 5)  # samples around the edge finder's guess that the fit also tries
WALL_ANGLES = (0.0, 45.0, 90.0, -45.0)

# Cost scales, in squared BGR levels (profiles are float BGR 0..255).
BOARD_CAP = 900.0  # truncation of the board cost of one sample
BACKGROUND_COST = 380.0  # an unexplained sample behind the stack
SEGMENT_PENALTY = 500.0  # per fitted segment (more segments always fit better)
GAIN_RANGE = (0.55, 1.2)  # how much darker (shadow) or brighter (drift) the board may look
# (0.45 read more heights right but missed 1.6 pts more pieces on the bench: dark pieces passed
# for shadowed wood; 0.7 was worse all round)
LIGHT_SMOOTH = 0.15  # pitches either side over which the light on the board is averaged
KIND_PRIOR = {"flat": 0.0, "wall": 4500.0, "cap": 4500.0}  # 3000 -> 4500: +0.1 pt squares on
# bench seed 1 and on another seed (300 and 200 frames); most kind errors are flats read as walls
LAYER_PRIOR = 900.0  # per piece in the stack (500 read one layer too many too often; bench seed 1,
# 300 frames: squares 87.9 -> 88.3 %, heights 49.0 -> 51.1 %; 1500 gained heights, lost squares)
BOARD_CLAIM_WEIGHT = 3.0  # per sample a stack claims that looks like bare board (1.0 let a tall
# hypothesis park its "top" on the wood behind a low piece: light flats read as 8 dark flats)
BASE_CAP = 150.0  # board cost above which a sample counts as "not board" when finding the base
SHIFT_PENALTY = 1500.0  # cost of the top piece sitting 0.1 pitch off the bottom one
EDGE_SAMPLES = 3  # samples either side of a boundary left out of the fit (2 made a flat
# cost 40000 more when the edge finder missed its front edge by 2 samples)
CROSS_T = (-0.1, 1.1, 0.15)  # cross lines at these t (from, to, step), pitches
CROSS_HALF = 0.5  # cross lines reach this far either side, pitches
WIDTH_TOLERANCE = 0.1  # measured width may differ this much from the piece's at no cost, pitches
WIDTH_WEIGHT = 400000.0  # cost per squared pitch of width beyond the tolerance
SATURATED = 245.0  # a channel this bright may be clipped
GLOW_REACH = 0.85  # pitches from a lit square's centre where its LED can tint the wood
SHADOW_GAIN_FLOOR = 0.3  # how dark a shadow may make the wood where its grain still shows
GRAIN_WINDOW = 4  # samples either side for the grain match
GRAIN_MIN_VAR = 6.0  # brightness variance of the empty board below which grain cannot be told
GRAIN_MATCH = 0.6  # correlation that counts as "the same grain"
EDGE_COST = 60.0  # flat cost of a left-out sample (about the noise of a good fit)


@dataclass(frozen=True)
class Hypothesis:
    kind: str  # "flat", "wall", "cap"
    height: int  # pieces in the stack
    top_z: float  # height of the top surface, pitches
    wall_angle: float = 0.0  # degrees, walls only


def _hypotheses() -> list[Hypothesis]:
    hyps = [Hypothesis("flat", n, n * geometry.FLAT_THICKNESS) for n in range(1, MAX_FLATS + 1)]
    for under in range(MAX_UNDER + 1):
        z0 = under * geometry.FLAT_THICKNESS
        for angle in WALL_ANGLES:
            hyps.append(Hypothesis("wall", under + 1, z0 + geometry.WALL_HEIGHT, angle))
        hyps.append(Hypothesis("cap", under + 1, z0 + geometry.CAP_HEIGHT))
    return hyps


HYPOTHESES = _hypotheses()

# A pawn capstone seen along the strip: a wide foot, a narrow body, a small head (fractions of
# the cap's height and radius, a rough outline of the usual turned shape).
PAWN_SLABS = ((0.0, 0.2, 1.0), (0.2, 0.7, 0.55), (0.7, 1.0, 0.5))


@dataclass(frozen=True)
class PieceSet:
    """How this set's pieces are shaped: learned per installation (see `BoardReader`)."""

    round_flats: bool = False
    pawn_caps: bool = False


def _half_extent(kind: str, angle_deg: float, r: np.ndarray, round_flats: bool = False) -> float:
    """How far a piece reaches from its centre along the board direction r. [r: unit 2-vector]"""
    if kind == "flat":
        if round_flats:
            return geometry.FLAT_WIDTH / 2
        hx = hy = geometry.FLAT_WIDTH / 2
        u, v = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    elif kind == "cap":
        return geometry.CAP_DIAMETER / 2
    else:
        a = np.radians(angle_deg)
        u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
        hx, hy = geometry.FLAT_WIDTH / 2, geometry.WALL_THICKNESS / 2
    ru, rv = abs(float(r @ u)), abs(float(r @ v))
    return float(min(hx / ru if ru > 1e-6 else 1e9, hy / rv if rv > 1e-6 else 1e9))


def _half_extent_all(kind: str, angle_deg: float, r: np.ndarray, round_flats: bool) -> np.ndarray:
    """`_half_extent` for many directions at once. [S, 2] -> [S]"""
    if kind == "cap" or (kind == "flat" and round_flats):
        half = geometry.CAP_DIAMETER / 2 if kind == "cap" else geometry.FLAT_WIDTH / 2
        return np.full(len(r), half)
    if kind == "flat":
        a, hx, hy = 0.0, geometry.FLAT_WIDTH / 2, geometry.FLAT_WIDTH / 2
    else:
        a, hx, hy = np.radians(angle_deg), geometry.FLAT_WIDTH / 2, geometry.WALL_THICKNESS / 2
    ru = np.abs(r @ np.array([np.cos(a), np.sin(a)]))
    rv = np.abs(r @ np.array([-np.sin(a), np.cos(a)]))
    with np.errstate(divide="ignore"):
        return np.minimum(np.where(ru > 1e-6, hx / ru, 1e9), np.where(rv > 1e-6, hy / rv, 1e9))


def stack_slabs_all(
    hyp: Hypothesis, r: np.ndarray, pieces: PieceSet
) -> list[tuple[float, float, np.ndarray]]:
    """`stack_slabs` for every square's direction at once: (z_lo, z_hi, half extents [S])."""
    t = geometry.FLAT_THICKNESS
    n_flats = hyp.height if hyp.kind == "flat" else hyp.height - 1
    flat_a = _half_extent_all("flat", 0.0, r, pieces.round_flats)
    slabs = [(i * t, (i + 1) * t, flat_a) for i in range(n_flats)]
    z0 = n_flats * t
    ones = np.ones(len(r))
    if hyp.kind == "wall":
        slabs.append((z0, hyp.top_z, _half_extent_all("wall", hyp.wall_angle, r, False)))
    elif hyp.kind == "cap":
        a = geometry.CAP_DIAMETER / 2
        if pieces.pawn_caps:
            h = geometry.CAP_HEIGHT
            slabs += [(z0 + lo * h, z0 + hi * h, a * f * ones) for lo, hi, f in PAWN_SLABS]
        else:
            slabs.append((z0, hyp.top_z, a * ones))
    return slabs


def stack_slabs(
    hyp: Hypothesis, r: np.ndarray, pieces: PieceSet
) -> list[tuple[float, float, float]]:
    """The stack as slabs bottom -> top: (z_lo, z_hi, half extent along r)."""
    t = geometry.FLAT_THICKNESS
    n_flats = hyp.height if hyp.kind == "flat" else hyp.height - 1
    flat_a = _half_extent("flat", 0.0, r, pieces.round_flats)
    slabs = [(i * t, (i + 1) * t, flat_a) for i in range(n_flats)]
    z0 = n_flats * t
    if hyp.kind == "wall":
        slabs.append((z0, hyp.top_z, _half_extent("wall", hyp.wall_angle, r)))
    elif hyp.kind == "cap":
        a = geometry.CAP_DIAMETER / 2
        if pieces.pawn_caps:
            h = geometry.CAP_HEIGHT
            slabs += [(z0 + lo * h, z0 + hi * h, a * f) for lo, hi, f in PAWN_SLABS]
        else:
            slabs.append((z0, hyp.top_z, a))
    return slabs


class SquareModel:
    """Everything about the squares that depends only on the pose: strips, breakpoints, order."""

    def __init__(self, pose: BoardPose, pieces: PieceSet | None = None) -> None:
        self.pose = pose
        self.pieces = pieces or PieceSet()
        n = pose.size
        self.size = n
        cam = pose.camera_in_board
        self.cam_xy = cam[:2]
        self.cam_z = float(cam[2])
        self.names: list[str] = []
        centres, radial = [], []
        for rank in range(n):
            for file in range(n):
                self.names.append(geometry.square_name(file, rank))
                c = np.array(geometry.square_center(file, rank))
                d = c - self.cam_xy
                norm = float(np.linalg.norm(d))
                # Right under the lens there is no smear direction; any direction will do.
                radial.append(d / norm if norm > 0.05 else np.array([0.0, 1.0]))
                centres.append(c)
        self.centres = np.array(centres)  # [S, 2]
        self.radial = np.array(radial)  # [S, 2]
        self.rho = np.einsum("si,si->s", self.centres - self.cam_xy, self.radial)  # [S]
        self.order = np.argsort(self.rho)  # nearest to the camera first

        # Sample spacing: about one image pixel along the strip at the nearest square.
        px_per_pitch = self._pixels_per_pitch_along_strips()
        self.dt = float(np.clip(1.0 / px_per_pitch, 0.008, 0.04))
        z_max = max(h.top_z for h in HYPOTHESES)
        t_end = float(np.max((self.rho + 0.5) * self._k(z_max) - self.rho)) + 0.1
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
        self._build_cross_lines(pose, perp)
        self._build_breakpoints()

    def _k(self, z: float | np.ndarray) -> np.ndarray:
        return self.cam_z / (self.cam_z - np.asarray(z))

    def _pixels_per_pitch_along_strips(self) -> float:
        a = np.hstack([self.centres, np.zeros((len(self.centres), 1))])
        b = np.hstack([self.centres + 0.1 * self.radial, np.zeros((len(self.centres), 1))])
        d = np.linalg.norm(self.pose.project(a) - self.pose.project(b), axis=1) / 0.1
        return float(np.max(d))

    # -- geometry of every hypothesis ----------------------------------------------------------
    def _build_breakpoints(self) -> None:
        """Segment boundaries (in t) for every square x hypothesis x top shift, relative to the
        bottom piece's front edge, which is found per frame. Stored as offsets so the per-frame
        work is one add and one gather.

        For square s, bottom piece centre at radial offset j0, top piece at j0 + shift, layer i at
        a linear blend: the front face of layer i spans z in [z_lo, z_hi] at radial offset
        j_i - a_i, which lands on the board plane at t = (rho + j_i - a_i) k(z) - rho.
        """
        S, H, D = len(self.names), len(HYPOTHESES), len(TOP_SHIFTS)
        kmax = MAX_FLATS + 3  # boundaries: one per slab face end, then the top face end
        bounds = np.zeros((S, H, D, kmax + 1))
        nseg = np.zeros((S, H), dtype=np.int64)
        bottom_half = np.zeros((S, H))
        rho = self.rho[:, None, None]  # [S, 1, 1]
        shifts = TOP_SHIFTS[None, None, :]  # [1, 1, D]
        for h_i, hyp in enumerate(HYPOTHESES):
            slabs = stack_slabs_all(hyp, self.radial, self.pieces)  # (z_lo, z_hi, halves[S])
            L = len(slabs)
            # pieces (not slabs) get the offsets: a pawn's slabs move together
            piece_of = [min(i, hyp.height - 1) for i in range(L)]
            nseg[:, h_i] = L + 1
            bottom_half[:, h_i] = slabs[0][2]
            frac = [p / (hyp.height - 1) if hyp.height > 1 else 0.0 for p in piece_of]
            out = []
            for i, (_, z_hi, _) in enumerate(slabs):
                nxt = min(i + 1, L - 1)
                a_next = slabs[nxt][2][:, None, None]
                # the face of slab i ends where the next slab's face starts (same z); offsets
                # are relative to the bottom piece's centre j0, added per frame
                out.append((rho + shifts * frac[nxt] - a_next) * self._k(z_hi) - rho)
            top = slabs[-1]
            out.append((rho + shifts * frac[-1] + top[2][:, None, None]) * self._k(top[1]) - rho)
            out += [out[-1]] * (kmax + 1 - len(out))
            bounds[:, h_i, :, :] = np.stack([np.broadcast_to(o, (S, 1, D))[:, 0] for o in out], -1)
        self.bounds_rel = bounds  # [S, H, D, K+1], t of boundaries given j0 = 0 (bottom centre)
        self.nseg = nseg
        self.bottom_half = bottom_half  # [S, H]
        self.kinds = np.array([h.kind for h in HYPOTHESES])
        # Walls and capstones are rarer than flats and tall stacks rarer than low ones; without a
        # prior, every ambiguous profile would be read as the more flexible (taller) hypothesis.
        self.prior = np.array(
            [KIND_PRIOR[h.kind] + LAYER_PRIOR * h.height for h in HYPOTHESES], dtype=np.float64
        )
        self.heights = np.array([h.height for h in HYPOTHESES])
        # the claim region on the board plane of a stack (for masking squares behind): from the
        # bottom front edge to the far edge of the top, +- the piece half width across

    # -- sampling --------------------------------------------------------------------------------
    def _build_cross_lines(self, pose: BoardPose, perp: np.ndarray) -> None:
        """Short lines across each strip (perpendicular to r) at several t: how wide is what stands
        there. A wall seen end-on is narrow where a flat is wide; the radial strip alone cannot
        tell them apart from straight above."""
        self.cross_t = np.arange(CROSS_T[0], CROSS_T[1] + 1e-9, CROSS_T[2])  # [L]
        self.cross_du = 2 * self.dt  # widths need less resolution than heights
        self.cross_u = np.arange(-CROSS_HALF, CROSS_HALF + 1e-9, self.cross_du)  # [U]
        pts = (
            self.centres[:, None, None, :]
            + self.cross_t[None, :, None, None] * self.radial[:, None, None, :]
            + self.cross_u[None, None, :, None] * perp[:, None, None, :]
        )  # [S, L, U, 2]
        self.cross_pts = pts
        img = cv2.perspectiveTransform(pts.reshape(1, -1, 2), pose.H_img_from_board)[0]
        img = img.reshape(-1, len(self.cross_u), 2).astype(np.float32)
        self.cross_map_x = np.ascontiguousarray(img[..., 0])
        self.cross_map_y = np.ascontiguousarray(img[..., 1])
        # where each hypothesis' top piece is widest in view: the line nearest the ground
        # projection of the top piece's middle (flats: its top face)
        S, H = len(self.names), len(HYPOTHESES)
        line = np.zeros((S, H), dtype=np.int64)
        width = np.zeros((S, H))
        q_all = perp
        for h_i, hyp in enumerate(HYPOTHESES):
            z0 = (hyp.height - 1) * geometry.FLAT_THICKNESS
            z_mid = hyp.top_z if hyp.kind == "flat" else (z0 + hyp.top_z) / 2
            t_mid = self.rho * self._k(z_mid) - self.rho
            line[:, h_i] = np.argmin(np.abs(self.cross_t[None, :] - t_mid[:, None]), axis=1)
            if hyp.kind == "cap":
                width[:, h_i] = geometry.CAP_DIAMETER * (0.75 if self.pieces.pawn_caps else 1.0)
            else:
                width[:, h_i] = 2 * _half_extent_all(
                    hyp.kind, hyp.wall_angle, q_all, self.pieces.round_flats
                )
        self.cross_line = line
        self.cross_width = width

    def sample_cross(self, frame: np.ndarray) -> np.ndarray:
        """The cross lines of a frame. [S, L, U, 3]"""
        samples = cv2.remap(frame, self.cross_map_x, self.cross_map_y, cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
        S, L, U = len(self.names), len(self.cross_t), len(self.cross_u)
        return samples.astype(np.float32).reshape(S, L, U, -1)

    def glow_directions(self, lit: dict[str, tuple[int, int, int]]) -> np.ndarray | None:
        """[S, T, 3]: unit BGR colour of the LED glow that may fall on each strip sample."""
        if not lit:
            return None
        mid = self.board_pts[:, :, self.board_pts.shape[2] // 2, :]  # [S, T, 2]
        glow = np.zeros((*mid.shape[:2], 3), np.float32)
        best = np.full(mid.shape[:2], np.inf)
        for name, colour in lit.items():
            if name not in self.names:
                continue
            c = self.centres[self.names.index(name)]
            d = np.abs(mid - c).max(axis=2)
            near = (d < GLOW_REACH) & (d < best)
            u = np.asarray(colour, np.float32) + 1e-3
            glow[near] = u / np.linalg.norm(u)
            best = np.where(near, d, best)
        return glow

    def sample(self, frame: np.ndarray) -> np.ndarray:
        """The strips of a frame (or of a board-plane model image warped the same way). [S, T, 3]"""
        samples = cv2.remap(frame, self.map_x, self.map_y, cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
        return samples.astype(np.float32).mean(axis=1).reshape(len(self.names), self.T, -1)


def illumination(empty: np.ndarray, dt: float) -> np.ndarray:
    """How brightly each strip sample is lit, relative to the whole board. [S, T, 3] -> [S, T]

    From the empty board: its brightness smoothed along the strip (wider than grain and grid
    lines), over the board's median. Dividing a profile by it takes out hotspots, gradients and
    glare, so a top face under a glare spot is still one uniform segment, and colours of squares
    anywhere on the board compare.
    """
    lum = empty.mean(axis=2)
    w = max(1, round(LIGHT_SMOOTH / dt))
    c = np.concatenate([np.zeros((lum.shape[0], 1)), np.cumsum(lum, axis=1)], axis=1)
    lo = np.clip(np.arange(lum.shape[1]) - w, 0, lum.shape[1])
    hi = np.clip(np.arange(lum.shape[1]) + w + 1, 0, lum.shape[1])
    smooth = (c[:, hi] - c[:, lo]) / (hi - lo)
    return np.maximum(smooth / max(float(np.median(smooth)), 1.0), 0.05).astype(np.float32)


def grain_match(profile: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """[S, T]: correlation of the frame's brightness with the empty board's over a short window,
    0 where the board shows too little grain to tell."""
    w = GRAIN_WINDOW
    p = profile.mean(axis=2)
    e = empty.mean(axis=2)

    def box(x: np.ndarray) -> np.ndarray:
        c = np.concatenate([np.zeros((x.shape[0], 1)), np.cumsum(x, axis=1)], axis=1)
        idx = np.arange(x.shape[1])
        lo, hi = np.clip(idx - w, 0, x.shape[1]), np.clip(idx + w + 1, 0, x.shape[1])
        return (c[:, hi] - c[:, lo]) / (hi - lo)

    mp, me = box(p), box(e)
    cov = box(p * e) - mp * me
    vp = box(p * p) - mp * mp
    ve = box(e * e) - me * me
    ncc = cov / np.sqrt(np.maximum(vp * ve, 1e-6))
    return np.where(ve > GRAIN_MIN_VAR, ncc, 0.0)


def board_cost(
    profile: np.ndarray,
    empty: np.ndarray,
    glow: np.ndarray | None = None,
    gain_range: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """Per-sample cost of "this is the bare board", tolerant to shadows and slow light changes.

    The best gain g in GAIN_RANGE scales the empty model onto the sample; the residual is truncated
    at BOARD_CAP. [S, T, 3] x 2 -> [S, T]
    """
    ee = np.einsum("stc,stc->st", empty, empty) + 1e-3
    pe = np.einsum("stc,stc->st", profile, empty)
    lo, hi = gain_range if gain_range[1] > 0 else GAIN_RANGE
    g = np.clip(pe / ee, lo, hi)
    if glow is not None:
        # A lit LED under the wood adds its own colour, any amount of it: fit the gain and the
        # glow together (p = g e + a u, a >= 0) where an LED may shine.
        eu = np.einsum("stc,stc->st", empty, glow)
        pu = np.einsum("stc,stc->st", profile, glow)
        uu = np.einsum("stc,stc->st", glow, glow)
        det = ee * uu - eu * eu
        lit = (uu > 0) & (det > 1e-6)
        g_joint = np.where(lit, (pe * uu - pu * eu) / np.where(lit, det, 1.0), g)
        a = np.where(lit, (ee * pu - eu * pe) / np.where(lit, det, 1.0), 0.0)
        use = lit & (a > 0)
        g = np.where(use, np.clip(g_joint, *GAIN_RANGE), g)
        a = np.where(use, a, 0.0)
        resid = profile - g[..., None] * empty - a[..., None] * glow
        # where the glow drove a channel into the sensor's ceiling, that channel says nothing
        resid = np.where(use[..., None] & (profile >= SATURATED), 0.0, resid)
    else:
        resid = profile - g[..., None] * empty
    return np.minimum(np.einsum("stc,stc->st", resid, resid), BOARD_CAP)


def _find_base(cb: np.ndarray, valid: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Index of the bottom piece's front edge per square: where the bare board ends.

    Picks e minimising sum_{t<e} cb + sum_{e<=t<e+w} (cap - cb) over the plausible range. [S]
    """
    w = max(2, round(0.12 / (t[1] - t[0])))
    soft = np.minimum(cb, BASE_CAP)
    cbv = np.where(valid, soft, 0.0)
    notb = np.where(valid, BASE_CAP - soft, 0.0)
    c1 = np.concatenate([np.zeros((cb.shape[0], 1)), np.cumsum(cbv, axis=1)], axis=1)
    c2 = np.concatenate([np.zeros((cb.shape[0], 1)), np.cumsum(notb, axis=1)], axis=1)
    lo = int(np.searchsorted(t, -0.35 + BASE_SHIFT_RANGE[0] - 0.1))
    hi = int(np.searchsorted(t, -0.275 + BASE_SHIFT_RANGE[1]))
    cand = np.arange(lo, hi + 1)
    cost = c1[:, cand] + (c2[:, np.minimum(cand + w, cb.shape[1])] - c2[:, cand])
    return cand[np.argmin(cost, axis=1)]


def _stack_costs(
    model: SquareModel,
    which: np.ndarray,
    base_idx: np.ndarray,
    h_sel: np.ndarray,
    d_sel: np.ndarray,
    cums: dict[str, np.ndarray],
    rows: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Cost [n, K, D'] and boundary indices [n, K, D', B+1] of the hypotheses h_sel [n, K] at the
    top shifts d_sel [D'], given the bottom piece's front edge base_idx [n] (sample index)."""
    t, T = model.t, model.T
    if rows is None:  # row of each entry in the prefix sums
        rows = np.arange(len(which))
    w = which[:, None]
    # The bottom piece's front edge sits at base_t, so its centre j0 = base_t + half extent.
    j0 = t[base_idx][:, None] + model.bottom_half[w, h_sel]  # [n, K]
    bounds = model.bounds_rel[w, h_sel][:, :, d_sel] + j0[:, :, None, None]  # [n, K, D', B]
    idx = np.clip(np.rint((bounds - t[0]) * (1.0 / model.dt)), 0, T).astype(np.int64)
    first = np.broadcast_to(base_idx[:, None, None, None], (*idx.shape[:3], 1))
    idx = np.maximum.accumulate(np.concatenate([first, idx], axis=3), axis=3)

    # Samples right at a predicted boundary are a blend of both sides (lens blur, anti-aliasing):
    # they are left out of every segment and cost a flat EDGE_COST each, so no hypothesis gains
    # by parking an extra boundary on a blurred edge.
    m = EDGE_SAMPLES
    a, b = idx[..., :-1], idx[..., 1:]
    a2 = np.minimum(a + m, b)
    b2 = np.maximum(b - m, a2)
    excluded = (b - a) - (b2 - a2)
    # one gather per end point from the packed prefix sums [n*(T+1), 5]: count, sum BGR, sum sq
    offs = (rows * (T + 1))[:, None, None, None]
    pack = cums["pack"]
    hi = np.take(pack, (b2 + offs).ravel(), axis=0).reshape(*b2.shape, 5)
    lo = np.take(pack, (a2 + offs).ravel(), axis=0).reshape(*a2.shape, 5)
    d = hi - lo
    s1 = d[..., 1:4]
    sse = d[..., 4] - (s1 * s1).sum(axis=-1) / np.maximum(d[..., 0], 1.0)
    seg_cost = sse.sum(axis=3) + EDGE_COST * excluded.sum(axis=3)

    end = idx[..., -1]
    CB, CG, NB = cums["CB"], cums["CG"], cums["NB"]
    front_end = np.maximum(base_idx - m, 0)
    front = CB[rows, front_end] + EDGE_COST * (base_idx - front_end)
    behind_start = np.minimum(end + m, T)
    r3 = rows[:, None, None]
    behind = CG[r3, T] - CG[r3, behind_start] + EDGE_COST * (behind_start - end)
    claimed = NB[r3, end] - NB[rows, base_idx][:, None, None]
    cost = front[:, None, None] + seg_cost + behind + claimed
    cost += (SEGMENT_PENALTY * model.nseg[w, h_sel] + model.prior[h_sel])[:, :, None]
    cost += cums["width"][rows[:, None], h_sel][:, :, None]
    # Pieces are stacked roughly on top of each other: a large offset of the top piece against the
    # bottom one must pay for itself (else it trades against one layer more or less).
    cost += SHIFT_PENALTY * (TOP_SHIFTS[d_sel] / 0.1) ** 2
    return cost, idx


def measured_widths(cross: np.ndarray, empty_cross: np.ndarray, du: float) -> np.ndarray:
    """Width (pitches) of the non-board run through the middle of every cross line. [S, L]"""
    S, L, U, _ = cross.shape
    cb = board_cost(cross.reshape(S * L, U, 3), empty_cross.reshape(S * L, U, 3))
    solid = cb > BASE_CAP
    c = U // 2
    pos = np.arange(U)
    # a thin piece a little off the middle still counts: take the middle 3 samples' best
    left_board = np.where(~solid & (pos[None, :] < c - 1), pos[None, :], -1).max(axis=1)
    right_board = np.where(~solid & (pos[None, :] > c + 1), pos[None, :], U).min(axis=1)
    width = (right_board - left_board - 1) * du
    width[~solid[:, c - 1 : c + 2].any(axis=1)] = 0.0
    return width.reshape(S, L)


def width_costs(model: SquareModel, widths: np.ndarray, which: np.ndarray) -> np.ndarray:
    """[n, H]: what each hypothesis pays for the measured width where its top piece stands."""
    w = which[:, None]
    seen = widths[w, model.cross_line[which]]  # [n, H]
    miss = np.maximum(np.abs(seen - model.cross_width[which]) - WIDTH_TOLERANCE, 0.0)
    # nothing solid across the middle: the piece does not stand out from the wood there (dark on
    # dark), which says nothing about its width
    return np.where(seen > 0, WIDTH_WEIGHT * miss**2, 0.0)


def fit_squares(
    model: SquareModel,
    profile: np.ndarray,
    empty: np.ndarray,
    valid: np.ndarray,
    which: np.ndarray,
    widths: np.ndarray | None = None,
    glow: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Fit the hypotheses for the squares `which` (indices). Returns arrays over those squares.

    profile, empty: [S, T, 3] float32; valid: [S, T] bool (False where a nearer stack hides it).
    Coarse to fine: every hypothesis at the edge finder's base with small top shifts, then the
    best few with the base moved a little and every top shift.
    """
    t = model.t
    T = model.T
    light = illumination(empty, model.dt)
    prof = profile[which] / light[which][..., None]
    emp = empty[which] / light[which][..., None]
    val = valid[which]
    n_sq = len(which)
    cb = board_cost(prof, emp, None if glow is None else glow[which])  # [n, T]
    # A deep shadow darkens the wood below the gain range but keeps its grain: where the grain
    # of the empty board shows up again in the frame, it is board, however dark.
    grain = grain_match(prof, emp) > GRAIN_MATCH
    if grain.any():
        deep = board_cost(prof[grain][None], emp[grain][None], None, (SHADOW_GAIN_FLOOR, 1.2))[0]
        cb[grain] = np.minimum(cb[grain], deep)
    base_idx = _find_base(cb, val, t)  # [n]

    v = val.astype(np.float32)
    pv = prof * v[..., None]
    per_sample = np.concatenate(
        [v[..., None], pv, np.einsum("stc,stc->st", pv, prof)[..., None]], axis=2
    )  # [n, T, 5]
    zero = np.zeros((n_sq, 1), np.float32)
    pack = np.concatenate([np.zeros((n_sq, 1, 5), np.float32), np.cumsum(per_sample, 1)], 1)
    cums = {
        "pack": pack.reshape(-1, 5),
        "CB": np.concatenate([zero, np.cumsum(cb * v, 1)], 1),
        "CG": np.concatenate([zero, np.cumsum(np.minimum(cb, BACKGROUND_COST) * v, 1)], 1),
        # what a stack hypothesis pays for claiming samples that look just like the bare board
        "NB": np.concatenate(
            [zero, np.cumsum(np.maximum(BASE_CAP - cb, 0.0) * v * BOARD_CLAIM_WEIGHT, 1)], 1
        ),
    }
    H = len(HYPOTHESES)
    sel = np.arange(n_sq)
    cums["width"] = width_costs(model, widths, which) if widths is not None else np.zeros((n_sq, H))

    # coarse: all hypotheses, base as found, small top shifts
    all_h = np.broadcast_to(np.arange(H), (n_sq, H))
    coarse, _ = _stack_costs(model, which, base_idx, all_h, COARSE_SHIFTS, cums)
    per_h = coarse.min(axis=2)  # [n, H]
    keep = np.argsort(per_h, axis=1)[:, :REFINE_TOP]  # [n, K]

    # fine: the best few, base moved a little (a shadow or dark wood can fool the edge finder),
    # every offset in one call: the offsets ride along the hypothesis axis
    n_off = len(BASE_OFFSETS)
    K = keep.shape[1]
    b_all = np.clip(base_idx[:, None] + np.array(BASE_OFFSETS)[None, :], 1, T - 1)  # [n, O]
    rep = np.repeat(np.arange(n_sq), n_off)
    cost, idx = _stack_costs(
        model, which[rep], b_all.ravel(), keep[rep], np.arange(len(TOP_SHIFTS)), cums, rows=rep
    )
    D = cost.shape[2]
    cost = cost.reshape(n_sq, n_off, K, D).transpose(0, 2, 1, 3).reshape(n_sq, K, n_off * D)
    idx = (
        idx.reshape(n_sq, n_off, K, D, -1).transpose(0, 2, 1, 3, 4).reshape(n_sq, K, n_off * D, -1)
    )
    best_cost, best_idx = cost, idx
    best_base = np.broadcast_to(np.repeat(b_all, D, axis=1)[:, None, :], cost.shape)
    d_of = np.tile(np.arange(D), n_off)
    refined = best_cost.min(axis=2)  # [n, K]
    per_h[sel[:, None], keep] = np.minimum(per_h[sel[:, None], keep], refined)

    # Empty: bare board up to the far edge of the square, then anything.
    CB, CG = cums["CB"], cums["CG"]
    half = int(np.searchsorted(t, 0.5))
    empty_cost = CB[:, half] + (CG[:, T] - CG[:, half])

    flat_cost = best_cost.reshape(n_sq, -1)
    best = np.argmin(flat_cost, axis=1)
    k_best, od_best = np.unravel_index(best, best_cost.shape[1:])
    d_best = d_of[od_best]
    h_best = keep[sel, k_best]
    win_cost = flat_cost[sel, best]
    win_idx = best_idx[sel, k_best, od_best]  # [n, B+1]
    base_win = best_base[sel, k_best, od_best]

    # Top colour: the top face segment of the winner (its last segment).
    nseg = model.nseg[which, h_best]
    top_a = win_idx[sel, nseg - 1]
    top_b = win_idx[sel, nseg]
    P = pack  # [n, T+1, 5]
    top_n = np.maximum(P[sel, top_b, 0] - P[sel, top_a, 0], 1.0)
    top_col = (P[sel, top_b, 1:4] - P[sel, top_a, 1:4]) / top_n[:, None]
    # A wall's top edge is thin: use it only when enough of it is seen, else the whole stack.
    stack_n = np.maximum(P[sel, top_b, 0] - P[sel, base_win, 0], 1.0)
    stack_col = (P[sel, top_b, 1:4] - P[sel, base_win, 1:4]) / stack_n[:, None]
    thin = top_n < 3
    top_col[thin] = stack_col[thin]
    # How unlike the bare board the claimed stretch is (per sample): low for a dark piece on dark
    # wood, the case where "empty" and "a flat" are hard to tell (a calibration feature).
    end_win = win_idx[sel, nseg]
    claim_n = np.maximum(end_win - base_win, 1)
    contrast = (cums["CB"][sel, end_win] - cums["CB"][sel, base_win]) / claim_n

    return {
        "which": which,
        "best_cost": win_cost,
        "empty_cost": empty_cost,
        "h_best": h_best,
        "d_best": d_best,
        "per_h": per_h,
        "top_col": top_col,
        "base_t": t[base_win],
        "visible": v.mean(axis=1),
        "idx_best": win_idx,
        "keep": keep,
        "top_n": top_n,
        "contrast": contrast,
        "residual": win_cost / np.maximum(v.sum(axis=1), 1.0),
    }

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
confidences. Squares are read nearest-first, and what a decided stack hides from the camera is
masked out of the strips of the squares behind it.
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
TOP_SHIFTS = np.linspace(-0.12, 0.12, 9)  # top piece offset against the bottom piece, pitches
BASE_SHIFT_RANGE = (-0.13, 0.13)
BASE_OFFSETS = (
    -6,
    -3,
    0,
    3,
    6,
)  # samples around the edge finder's guess tried by the fit  # bottom piece offset from the centre searched by the edge finder
WALL_ANGLES = (0.0, 45.0, 90.0, -45.0)

# Cost scales, in squared BGR levels (profiles are float BGR 0..255).
BOARD_CAP = 900.0  # truncation of the board cost of one sample
BACKGROUND_COST = 380.0  # an unexplained sample behind the stack
SEGMENT_PENALTY = 500.0  # per fitted segment (more segments always fit better)
GAIN_RANGE = (0.55, 1.2)
LIGHT_SMOOTH = 0.15  # pitches either side over which the light on the board is averaged
KIND_PRIOR = {"flat": 0.0, "wall": 3000.0, "cap": 3000.0}
LAYER_PRIOR = 500.0
BOARD_CLAIM_WEIGHT = 1.0  # per sample a stack claims that looks like bare board
BASE_CAP = 150.0  # board cost above which a sample counts as "not board" when finding the base
SHIFT_PENALTY = 1500.0  # cost of the top piece sitting 0.1 pitch off the bottom one
EDGE_SAMPLES = 2  # samples either side of a boundary left out of the fit
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
        for s in range(S):
            r = self.radial[s]
            rho = self.rho[s]
            for h_i, hyp in enumerate(HYPOTHESES):
                slabs = stack_slabs(hyp, r, self.pieces)
                L = len(slabs)
                # pieces (not slabs) get the offsets: a pawn's slabs move together
                piece_of = [min(i, hyp.height - 1) for i in range(L)]
                nseg[s, h_i] = L + 1
                bottom_half[s, h_i] = slabs[0][2]
                z_hi = np.array([sl[1] for sl in slabs])
                halves = np.array([sl[2] for sl in slabs])
                frac = np.array([p / (hyp.height - 1) if hyp.height > 1 else 0.0 for p in piece_of])
                a_next = np.append(halves[1:], halves[-1])
                f_next = np.append(frac[1:], frac[-1])
                k = self._k(z_hi)
                for d_i, shift in enumerate(TOP_SHIFTS):
                    # the face of slab i ends where the next slab's face starts (same z); offsets
                    # are relative to the bottom piece's centre j0, added per frame
                    ends = (rho + shift * f_next - a_next) * k - rho
                    top_end = (rho + shift * frac[-1] + halves[-1]) * k[-1] - rho
                    out = [*ends, top_end]
                    out += [top_end] * (kmax + 1 - len(out))
                    bounds[s, h_i, d_i, :] = out
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


def board_cost(profile: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """Per-sample cost of "this is the bare board", tolerant to shadows and slow light changes.

    The best gain g in GAIN_RANGE scales the empty model onto the sample; the residual is truncated
    at BOARD_CAP. [S, T, 3] x 2 -> [S, T]
    """
    ee = np.einsum("stc,stc->st", empty, empty) + 1e-3
    g = np.clip(np.einsum("stc,stc->st", profile, empty) / ee, *GAIN_RANGE)
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


def _stack_costs(model, which, t, base_idx, rows, r0, P1, P2, N, CB, CG, NB):
    """Cost [n, H, D] and boundary indices [n, H, D, K+2] of every stack hypothesis, given the
    bottom piece's front edge (sample index per square)."""
    T = model.T
    n_sq = len(which)
    base_t = t[base_idx]
    # Boundaries for the stack hypotheses: the bottom piece's front edge sits at base_t, so its
    # centre j0 = base_t + bottom half extent.
    j0 = base_t[:, None] + model.bottom_half[which]  # [n, H]
    bounds = model.bounds_rel[which] + j0[:, :, None, None]  # [n, H, D, K+1]
    idx = np.clip(np.rint((bounds - t[0]) / model.dt), 0, T).astype(np.int64)
    first = np.broadcast_to(base_idx[:, None, None, None], (*idx.shape[:3], 1))
    idx = np.concatenate([first, idx], axis=3)  # [n, H, D, K+2]
    idx = np.maximum.accumulate(idx, axis=3)  # boundaries never go backwards

    # Samples right at a predicted boundary are a blend of both sides (lens blur, anti-aliasing):
    # they are left out of every segment and cost a flat EDGE_COST each, so no hypothesis gains
    # by parking an extra boundary on a blurred edge.
    m = EDGE_SAMPLES
    a, b = idx[..., :-1], idx[..., 1:]
    a2 = np.minimum(a + m, b)
    b2 = np.maximum(b - m, a2)
    excluded = (b - a) - (b2 - a2)
    cnt = N[rows, b2] - N[rows, a2]
    s1 = P1[rows, b2] - P1[rows, a2]  # [n, H, D, K+1, 3]
    s2 = P2[rows, b2] - P2[rows, a2]
    sse = s2 - np.einsum("...c,...c->...", s1, s1) / np.maximum(cnt, 1.0)
    seg_cost = sse.sum(axis=3) + EDGE_COST * excluded.sum(axis=3)
    end = idx[..., -1]
    front_end = np.maximum(base_idx - m, 0)
    front = (CB[np.arange(n_sq), front_end] + EDGE_COST * (base_idx - front_end))[:, None, None]
    behind_start = np.minimum(end + m, T)
    behind = CG[r0, T] - CG[r0, behind_start] + EDGE_COST * (behind_start - end)
    claimed = NB[r0, end] - NB[np.arange(n_sq), base_idx][:, None, None]
    cost = front + seg_cost + behind + claimed + SEGMENT_PENALTY * model.nseg[which][:, :, None]
    # Pieces are stacked roughly on top of each other: a large offset of the top piece against the
    # bottom one must pay for itself (else it trades against one layer more or less).
    cost = cost + SHIFT_PENALTY * (TOP_SHIFTS[None, None, :] / 0.1) ** 2
    cost = cost + model.prior[None, :, None]

    return cost, idx


def fit_squares(
    model: SquareModel,
    profile: np.ndarray,
    empty: np.ndarray,
    valid: np.ndarray,
    which: np.ndarray,
) -> dict[str, np.ndarray]:
    """Fit all hypotheses for the squares `which` (indices). Returns arrays over those squares.

    profile, empty: [S, T, 3] float32; valid: [S, T] bool (False where a nearer stack hides it).
    """
    t = model.t
    T = model.T
    light = illumination(empty, model.dt)
    prof = profile[which] / light[which][..., None]
    emp = empty[which] / light[which][..., None]
    val = valid[which]
    n_sq = len(which)
    cb = board_cost(prof, emp)  # [n, T]
    base_idx = _find_base(cb, val, t)  # [n]

    v = val.astype(np.float32)
    P1 = np.concatenate([np.zeros((n_sq, 1, 3), np.float32), np.cumsum(prof * v[..., None], 1)], 1)
    p2 = np.einsum("stc,stc->st", prof, prof) * v
    P2 = np.concatenate([np.zeros((n_sq, 1)), np.cumsum(p2, 1)], 1)
    N = np.concatenate([np.zeros((n_sq, 1)), np.cumsum(v, 1)], 1)
    CB = np.concatenate([np.zeros((n_sq, 1)), np.cumsum(cb * v, 1)], 1)
    CG = np.concatenate([np.zeros((n_sq, 1)), np.cumsum(np.minimum(cb, BACKGROUND_COST) * v, 1)], 1)
    # what a stack hypothesis pays for claiming samples that look just like the bare board
    nb = np.maximum(BASE_CAP - cb, 0.0) * v * BOARD_CLAIM_WEIGHT
    NB = np.concatenate([np.zeros((n_sq, 1)), np.cumsum(nb, 1)], 1)

    # The bottom piece's front edge: the edge finder's guess and a few samples either side (a
    # shadow or a dark piece on dark wood can fool it); the fit decides among them.
    rows = np.arange(n_sq)[:, None, None, None]
    r0 = rows[..., 0]
    best_cost = None
    best_idx = None
    best_base = None
    for off in BASE_OFFSETS:
        b_idx = np.clip(base_idx + off, 1, T - 1)
        cost, idx = _stack_costs(model, which, t, b_idx, rows, r0, P1, P2, N, CB, CG, NB)
        if best_cost is None:
            best_cost, best_idx = cost, idx
            best_base = np.broadcast_to(b_idx[:, None, None], cost.shape).copy()
        else:
            better = cost < best_cost
            best_cost = np.where(better, cost, best_cost)
            best_idx = np.where(better[..., None], idx, best_idx)
            best_base = np.where(better, b_idx[:, None, None], best_base)
    cost, idx = best_cost, best_idx

    # Empty: bare board up to the far edge of the square, then anything.
    half = int(np.searchsorted(t, 0.5))
    empty_cost = CB[:, half] + (CG[:, T] - CG[:, half])

    flat_cost = cost.reshape(n_sq, -1)
    best = np.argmin(flat_cost, axis=1)
    h_best, d_best = np.unravel_index(best, cost.shape[1:])
    best_cost = flat_cost[np.arange(n_sq), best]
    per_h = cost.min(axis=2)  # [n, H]

    # Top colour: the top face segment of the winner (last non-empty segment).
    sel = np.arange(n_sq)
    base_win = best_base[sel, h_best, d_best]
    base_t = t[base_win]
    nseg = model.nseg[which, h_best]
    top_a = idx[sel, h_best, d_best, nseg - 1]
    top_b = idx[sel, h_best, d_best, nseg]
    top_n = np.maximum(N[sel, top_b] - N[sel, top_a], 1.0)
    top_col = (P1[sel, top_b] - P1[sel, top_a]) / top_n[:, None]
    # A wall's top edge is thin: use it only when enough of it is seen, else the whole winner.
    stack_a = base_win
    stack_col = (P1[sel, top_b] - P1[sel, stack_a]) / np.maximum(
        N[sel, top_b] - N[sel, stack_a], 1
    )[:, None]
    thin = top_n < 3
    top_col[thin] = stack_col[thin]
    visible = v.mean(axis=1)

    return {
        "which": which,
        "best_cost": best_cost,
        "empty_cost": empty_cost,
        "h_best": h_best,
        "d_best": d_best,
        "per_h": per_h,
        "top_col": top_col,
        "base_t": base_t,
        "visible": visible,
        "idx_best": idx[sel, h_best, d_best],
    }

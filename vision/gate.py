"""Frame gates: is something moving, is a hand or arm over the board.

Hands: an arm reaching for a square always crosses the strip of bare wood between the grid and the
board's edge, where pieces never stand, and it crosses all of it: from the grid line out to the
board's edge and beyond. So the gate samples rows of that ring on the board plane every frame and
compares them with the empty board, and calls a hand only for a *band* of change that runs outwards
across most rows at one place along the edge, out to the outer rows (or a run along a row wider
than any stack). Scattered
changes (noise, glare, a piece pushed over the line) and changes hugging the grid (a tall edge stack
leaning over the ring in a tilted view; the reader says which stacks and how far) are not hands.

What counts as change at one ring sample, without assuming any colour:
- colour: unlike the empty board after allowing for light and shadow (a gain 0.5-1.25), both as
  followed on still boards and as first seen (a shadow the model took in may lift);
- hue, averaged over a few samples (dark skin in dim light can match the wood's brightness);
- darkness: a band of the ring much darker than the rest of it, across every voting row, with a
  changed colour in a couple of those rows (a shadow only darkens). This finds dark skin that has
  the wood's hue in dim light, where the colour test allows for shade.

The table: skin can have the wood's own colour, but the sleeve or arm behind it rarely matches the
table as well. Three rows beyond the board (learned from the start-up frames: the empty-board model
ends before them) catch a broad change crossing the table next to a change in the ring.

Motion history: a hand flagged on the last frame stays flagged while nothing in the picture moves
(a hand cannot leave without moving).

Cost: one remap of a few thousand points and vectorised arithmetic, 1-2 ms of CPU per frame.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.locate import BoardPose

MOTION_SCALE = 8  # motion is judged on a frame shrunk this much
MOTION_LEVEL = 18  # grey levels a pixel must change by
MOTION_SHARE = 0.004  # share of pixels that must change for "moving"

RING_OFFSETS = (0.12, 0.3, 0.5, 0.7, 0.9, 1.1, 1.3)  # pitches outside the grid (wood, markers)
RING_STEP = 0.05  # pitches between samples along a row
HELD_MIN_CHANGED = 3  # unexplained ring samples that keep a hand seen before flagged
RING_VOTING_FROM = 0.25  # pitches outside the grid: rows from here on decide
RING_GAIN = (0.5, 1.25)  # brightness changes allowed as light and shadow
RING_CHANGED = 150  # squared BGR distance (after gain) that counts as changed, at least ...
RING_CHANGED_REL = 0.01  # ... and this share of the empty board's squared brightness ...
# ... and this many times the camera's own noise: the median squared BGR distance between two
# still frames at the ring's samples (record bench seed 803, a dim room with a dark board: 45
# against 3-11 elsewhere; over 150 on 17 % of the samples, so from its second frame on the gate
# saw a hand on every still frame, never learned the empty board further, and the game recorded
# nothing). A chi-square of 3 channels passes 7 times its median once in a thousand.
NOISE_CHANGED = 8.0
NOISE_RATE = 0.1  # how fast the noise estimate follows, frame by still frame
RING_CHROMA_WINDOW = 2  # samples either side averaged for the hue test
RING_CHROMA = 0.045  # chromaticity change (share of one channel) that counts as changed
RING_CHROMA_MIN_SUM = 90.0  # B+G+R below which chromaticity is too noisy to use
RING_DARK = 0.7  # brightness (relative to the ring's median gain) that counts as dark ...
DARK_ROWS = 6  # ... when every voting row is dark (or changed) at one place ...
DARK_WITH_CHANGED = 2  # ... and this many of them changed colour too
BAND_WINDOW = 3  # samples either side along a row that count as "the same place"
BAND_ROWS = 4  # voting rows (of 6) changed at one place: an arm crossing the ring
FAR_OFFSETS = (1.7, 2.0, 2.3)  # pitches outside the grid: the table beyond the board
FAR_EXTEND = 1.0  # pitches the far rows run on past the grid's corners (arms cross there too)
FAR_SOLID = (4, 5)  # a table-row sample counts when 5 of the 9 around it changed ...
FAR_ROWS = 2  # ... in this many far rows (of 3) at one place ...
FAR_SUPPORT = 0.5  # ... with change or darkness in a voting ring row within this many pitches
RING_FOLLOW_RATE = 0.05  # how fast the ring's empty model follows slow light changes
RING_ARM_RUN = 1.5  # pitches of unbroken change along a voting row that only an arm makes
# A stack's shadow under a lamp can be deeper than RING_GAIN allows (the simulated lamp's up to
# 0.7; record bench seed 932, 4x4 at tilt 29: a wall put on a2's stack threw a shadow of gain
# 0.3-0.45 across the whole ring beside it, a "hand" on every frame for the last 7 s, and the
# game's last three plies were never judged). A sample only darker, its hue the wood's and light
# enough to tell (`SHADOW_MIN_SUM`), and no darker than SHADOW_DEEPEST, within reach of a
# stack's shadow (SHADOW_PER_HEIGHT times the top's height beyond its square), is that shadow.
# An arm there shows its hue, or crosses the table rows, or runs along the ring, or is darker.
SHADOW_DEEPEST = 0.2
SHADOW_PER_HEIGHT = 2.2  # a lamp as low as 25 degrees (tan 25 = 0.47)
SHADOW_DARKER = 0.9  # gain below which a sample counts as darkened
SHADOW_MIN_SUM = 30.0  # B+G+R below which not even a shadow's hue can be told


def _dilate_along(flags: np.ndarray, half: int) -> np.ndarray:
    """[rows, along, sides] bool -> True within `half` samples along a row of a True."""
    rows, along, sides = flags.shape
    flat = np.moveaxis(flags, 1, 2).reshape(rows * sides, along).astype(np.uint8)
    grown = cv2.dilate(flat, np.ones((1, 2 * half + 1), np.uint8))
    return np.moveaxis(grown.reshape(rows, sides, along), 2, 1) > 0


def _longest_run(flags: np.ndarray) -> int:
    """Longest run of True along axis 1 of [rows, along, sides]."""
    seqs = np.moveaxis(flags, 1, 2).reshape(-1, flags.shape[1])  # [rows * sides, along]
    padded = np.zeros((seqs.shape[0], seqs.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = seqs
    edges = np.diff(padded, axis=1)
    starts = np.nonzero(edges.ravel() == 1)[0]
    ends = np.nonzero(edges.ravel() == -1)[0]
    return int((ends - starts).max()) if len(starts) else 0


def _window_sum(x: np.ndarray, half: int) -> np.ndarray:
    """Sum over +-half samples along axis 1 of [rows, along, ...] (edges: what there is)."""
    c = np.concatenate([np.zeros_like(x[:, :1]), np.cumsum(x, axis=1)], axis=1)
    lo, hi = _window_ends(x.shape[1], half)
    return c[:, hi] - c[:, lo]


@functools.cache
def _window_ends(along: int, half: int) -> tuple[np.ndarray, np.ndarray]:
    """Each window's first and one-past-last sample (`_window_sum`): the same on every frame."""
    idx = np.arange(along)
    ends = np.clip(idx - half, 0, along), np.clip(idx + half + 1, 0, along)
    for end in ends:
        end.setflags(write=False)  # (shared by every caller)
    return ends


_ONES3 = np.ones(3, np.float32)


def _compare(
    ring: np.ndarray,
    e: np.ndarray,
    ee: np.ndarray,
    shape: tuple[int, int, int],
    window_n: np.ndarray,
    in_frame: np.ndarray,
    floor: float,
    noise_floor: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Samples [K, 3] against their empty model [K, 3] (ee: its squared norms), laid out as
    `shape` [rows, along, sides] -> (changed in colour beyond light and shadow, changed in hue,
    much darker than the rows' typical gain, darkened as a shadow darkens: `SHADOW_DEEPEST`),
    each [K] bool. `floor`: the least squared distance
    that counts as a change (`_unlike`); `noise_floor`: the least a darkening must exceed (the
    camera's noise alone, `NOISE_CHANGED`)."""
    gain = _gain(ring, e, ee)
    colour = _unlike(ring, e, ee, gain, floor)
    # Shadows keep the wood's hue; skin in dim light can match its brightness but not quite its
    # hue. Compare chromaticity where there is light enough to tell, over a few samples.
    ps, es = ring @ _ONES3, e @ _ONES3
    diff = ring / np.maximum(ps, 1)[:, None] - e / np.maximum(es, 1)[:, None]  # [K, 3]
    mean = _window_sum(diff.reshape(*shape, 3), RING_CHROMA_WINDOW) / window_n[..., None]
    # (the largest of three by hand: numpy's reduce over a last axis of three is slow)
    chroma = np.maximum(np.maximum(np.abs(mean[..., 0]), np.abs(mean[..., 1])),
                        np.abs(mean[..., 2])).reshape(-1)  # fmt: skip
    hue = (chroma > RING_CHROMA) & (ps > RING_CHROMA_MIN_SUM) & (es > RING_CHROMA_MIN_SUM)
    typical = float(np.median(gain[in_frame])) if in_frame.any() else 1.0
    # (a shadow on a dark table leaves too little light for the hue test, but the wood's hue
    # still shows, averaged over the window, down to SHADOW_MIN_SUM)
    shade = ((chroma <= RING_CHROMA) & (ps > SHADOW_MIN_SUM) & (es > RING_CHROMA_MIN_SUM)
             & (gain < SHADOW_DARKER) & (gain >= SHADOW_DEEPEST))  # fmt: skip
    # (and darker by more than the camera's noise: in a dim room a dark ring's samples scatter
    # by a third of their brightness, frame to frame)
    dark = (gain < RING_DARK * typical) & ((typical - gain) ** 2 * ee > noise_floor)
    return colour & in_frame, hue & in_frame, dark & in_frame, shade & in_frame


def _gain(ring: np.ndarray, e: np.ndarray, ee: np.ndarray) -> np.ndarray:
    """[K]: the scale of each model sample [K, 3] (`ee` its squared norms) closest to the sample."""
    # (einsum: numpy's axis-1 sums over three channels cost more than the arithmetic)
    return np.einsum("ij,ij->i", ring, e) / (ee + 1e-3)


def _unlike(
    ring: np.ndarray, e: np.ndarray, ee: np.ndarray, gain: np.ndarray, floor: float
) -> np.ndarray:
    """[K] bool: samples unlike their model [K, 3] however the light and shadow (`RING_GAIN`)
    scale it, by more than `floor` (squared BGR distance) and `RING_CHANGED_REL`; `gain` the
    best scale, `ee` the model's squared norms."""
    g = np.clip(gain, *RING_GAIN)
    resid = ring - g[:, None] * e
    return np.einsum("ij,ij->i", resid, resid) > np.maximum(floor, RING_CHANGED_REL * ee)


def every_nth_pixel(frame: np.ndarray, n: int) -> np.ndarray:
    """`frame[::n, ::n]` as a compact array. Nearest-neighbour shrinking by a whole factor picks
    the same pixels in 0.01-0.02 ms (1280x720, n = 8); every read used to pay numpy's strided
    reads twice instead (0.07 ms for the motion gate's grey copy, 0.2 for the blank check)."""
    h, w = frame.shape[:2]
    # (given the factor, OpenCV takes pixel floor(i * n): numpy's when the sizes round alike)
    small = cv2.resize(frame, None, fx=1 / n, fy=1 / n, interpolation=cv2.INTER_NEAREST)
    if small.shape[:2] != (-(-h // n), -(-w // n)):
        return np.ascontiguousarray(frame[::n, ::n])
    return small


class MotionGate:
    """Frame-to-frame change on a small grey copy. The first frame is never "moving"."""

    def __init__(self) -> None:
        self._previous: np.ndarray | None = None

    def update(self, small: np.ndarray) -> bool:
        """`small`: the frame shrunk MOTION_SCALE times (`every_nth_pixel`)."""
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        grey = cv2.GaussianBlur(grey, (3, 3), 0)
        previous, self._previous = self._previous, grey
        if previous is None or previous.shape != grey.shape:
            return False
        changed = cv2.absdiff(grey, previous) > MOTION_LEVEL
        return float(changed.mean()) > MOTION_SHARE


@dataclass
class HandEvidence:
    """What the gate saw in one frame (for the reason text, the benchmark and debug images)."""

    band_rows: int = 0  # most voting rows changed at one place along the edge
    dark_rows: int = 0  # most voting rows much darker than the ring at one place
    run_pitches: float = 0.0  # longest unbroken change along a voting row
    table_rows: int = 0  # most table rows changed at one place next to a change in the ring
    changed: np.ndarray | None = None  # [R] bool, per ring sample
    unexplained: np.ndarray | None = None  # [R] bool: changed and no stack or LED accounts for it
    far_changed: np.ndarray | None = None  # [F] bool, per table-row sample
    cause: str = ""  # "band", "dark", "run", "table", "held" or ""


class HandGate:
    """Watches the ring of bare wood around the grid."""

    def __init__(self, pose: BoardPose) -> None:
        self.pose = pose
        n = pose.size
        pts, offs = [], []
        along = np.arange(-0.05, n + 0.05 + 1e-9, RING_STEP)
        self.along_count = len(along)
        for off in RING_OFFSETS:
            for a in along:
                pts += [(a, -off), (a, n + off), (-off, a), (n + off, a)]
                offs += [off] * 4
        self.ring_pts = np.array(pts, dtype=np.float64)  # board plane, [R, 2]
        # The table beyond the board: the sleeve or arm crosses it on its way in. Not in the
        # empty-board model (which ends 1.5 pitches out), so learned from frames (`learn_far`).
        far_along = np.arange(-FAR_EXTEND, n + FAR_EXTEND + 1e-9, RING_STEP)
        self.far_count = len(far_along)
        far = []
        for off in FAR_OFFSETS:
            for a in far_along:
                far += [(a, -off), (a, n + off), (-off, a), (n + off, a)]
        self.far_pts = np.array(far, dtype=np.float64)
        # the ring sample nearest each far sample's place along its side
        self.far_to_near = np.clip(np.round((far_along + 0.05) / RING_STEP), 0, len(along) - 1)
        self.far_to_near = self.far_to_near.astype(np.int64)
        # The row hugging the grid also catches pieces pushed over the line and their shadows;
        # an arm crosses every row, so only the outer rows vote.
        self.voting = np.array(offs) >= RING_VOTING_FROM
        both = np.concatenate([self.ring_pts, self.far_pts])
        img = cv2.perspectiveTransform(both[None], pose.H_img_from_board)[0]
        w, h = pose.image_size
        inside = (img[:, 0] >= 0) & (img[:, 0] < w - 1) & (img[:, 1] >= 0) & (img[:, 1] < h - 1)
        R = len(self.ring_pts)
        self.in_frame, self.far_in_frame = inside[:R], inside[R:]
        self.map_x = img[:, 0].astype(np.float32)[None]
        self.map_y = img[:, 1].astype(np.float32)[None]
        self.empty: np.ndarray | None = None  # [R, 3], following the light (`follow`)
        self._empty_sq = np.zeros(0, np.float32)
        # ... and the bare ring as first given (`set_empty`), never followed: see `changed`
        self.bare: np.ndarray | None = None
        self._bare_sq = np.zeros(0, np.float32)
        ring_in = self.in_frame.reshape(len(RING_OFFSETS), self.along_count, 4)
        self._outer_in_frame = ring_in[-2:].any(axis=0)  # [A, 4]
        self.far_empty: np.ndarray | None = None  # [F, 3]
        self._far_learned = 0
        shape = (len(RING_OFFSETS), self.along_count, 4)
        self._window_n = _window_sum(np.ones(shape), RING_CHROMA_WINDOW)
        far_in = self.far_in_frame.reshape(len(FAR_OFFSETS), self.far_count, 4)
        self._far_rows_in_frame = np.maximum(far_in.sum(axis=0), 1)  # [Af, 4]; 0 rows: no vote
        self._far_window_n = _window_sum(
            np.ones((len(FAR_OFFSETS), self.far_count, 4)), RING_CHROMA_WINDOW
        )
        self._held = False  # a hand was flagged on the last frame
        # [R] bool: the ring samples unexplained on the last frame with no hand, which keep no
        # hand flagged (`check`, "held")
        self._unexplained_before = np.zeros(len(self.ring_pts), dtype=bool)
        # [R] bool: ring samples of the last frame only darkened, as a shadow darkens (`changed`)
        self._shade = np.zeros(len(self.ring_pts), dtype=bool)
        self.last = HandEvidence()
        # the camera's noise (`NOISE_CHANGED`), from consecutive still frames' samples
        self.noise = 0.0
        self._previous: np.ndarray | None = None  # the last still frame's samples

    # -- the empty board ---------------------------------------------------------------------------
    def set_empty(self, samples: np.ndarray) -> None:
        """The empty board at `ring_pts` ([R, 3] BGR, e.g. warped from the empty-board model)."""
        self.empty = samples.reshape(-1, 3).astype(np.float32)
        self._empty_sq = (self.empty * self.empty).sum(1)
        self.bare, self._bare_sq = self.empty.copy(), self._empty_sq.copy()

    def learn_far(self, frame: np.ndarray) -> None:
        """Average a frame of the empty board (start-up) into the model of the table rows (and
        keep its samples for the noise estimate)."""
        samples = self.sample(frame)
        self._follow_noise(samples, moving=False)
        far = samples[len(self.ring_pts) :]
        if self.far_empty is None:
            self.far_empty, self._far_learned = far, 1
        else:
            k = self._far_learned
            self.far_empty = (self.far_empty * k + far) / (k + 1)
            self._far_learned = k + 1

    def follow(self, ring: np.ndarray) -> None:
        """Follow slow light changes on a frame the reader trusts (no hand, nothing moving): blend
        the ring samples that still look like the empty board into it. Changed samples (a stack
        leaning over the ring, a shadow) are left alone."""
        R = len(self.ring_pts)
        far = ring[R:]
        if self.far_empty is None:  # after a bump: the table rows start from this frame
            self.far_empty = far.copy()
        elif self.last.far_changed is not None:
            keep = ~self.last.far_changed
            self.far_empty[keep] += RING_FOLLOW_RATE * (far[keep] - self.far_empty[keep])
        if self.empty is None or self.last.changed is None:
            return
        keep = ~self.last.changed & self.in_frame
        self.empty[keep] += RING_FOLLOW_RATE * (ring[:R][keep] - self.empty[keep])
        self._empty_sq = (self.empty * self.empty).sum(1)

    def _follow_noise(self, samples: np.ndarray, moving: bool) -> None:
        """Follow the camera's noise: the median squared distance between this still frame's
        samples and the last one's (the median: a hand over a few samples does not move it)."""
        if not moving and self._previous is not None:
            inside = np.concatenate([self.in_frame, self.far_in_frame])
            if inside.any():
                d2 = float(np.median(((samples - self._previous) ** 2).sum(axis=1)[inside]))
                first = self.noise == 0.0
                self.noise = d2 if first else (1 - NOISE_RATE) * self.noise + NOISE_RATE * d2
        self._previous = None if moving else samples

    @property
    def noise_floor(self) -> float:
        """The squared BGR distance the camera's noise alone stays under (`NOISE_CHANGED`)."""
        return NOISE_CHANGED * self.noise

    @property
    def floor(self) -> float:
        """The least squared BGR distance that counts as a change here and now."""
        return max(RING_CHANGED, self.noise_floor)

    def sample(self, frame: np.ndarray) -> np.ndarray:
        """This frame at the ring's samples, then the table rows': [R + F, 3] float32."""
        return cv2.remap(frame, self.map_x, self.map_y, cv2.INTER_LINEAR)[0].astype(np.float32)

    # -- per sample --------------------------------------------------------------------------------
    def changed(self, ring: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """-> ([R] bool ring samples unlike the empty board after allowing for light and shadow,
        [R] bool samples much darker than the ring as a whole).

        A change of colour must be one against the ring as followed AND against the bare ring
        as first seen: following the light on still boards, the model also takes in a stack's
        shadow that falls across the ring (within the gain allowed for shade, it is no change).
        When the stack goes, the wood is lit again, brighter than the model allows, but as it
        was when first seen. Against the followed model alone that was a hand, on every frame,
        so the model never followed back: fresh record bench seed 512 saw a hand for 27 s after
        a1's stack was spread, and lost its last 11 plies. (A change of hue is a change against
        either: light and shadow keep the wood's hue.)"""
        R = len(self.ring_pts)
        if self.empty is None or self.bare is None:
            self._shade = np.zeros(R, dtype=bool)
            return np.zeros(R, dtype=bool), np.zeros(R, dtype=bool)
        shape = (len(RING_OFFSETS), self.along_count, 4)
        now = ring[:R]
        colour, hue, dark, self._shade = _compare(
            now, self.empty, self._empty_sq, shape, self._window_n, self.in_frame, self.floor,
            self.noise_floor)  # fmt: skip
        # (a shadow, cast or lifted, keeps the wood's hue: only colour changes are looked at)
        lit = np.flatnonzero(colour & ~hue)
        if len(lit):
            bare, bare_sq = self.bare[lit], self._bare_sq[lit]
            colour[lit] = _unlike(now[lit], bare, bare_sq, _gain(now[lit], bare, bare_sq),
                                  self.floor)  # fmt: skip
        return colour | hue, dark

    def far_changed(self, samples: np.ndarray) -> np.ndarray:
        """[F] bool: table-row samples unlike the table (colour or hue; darkness is left out: the
        board's own shadow on the table moves with the light)."""
        F = len(self.far_pts)
        if self.far_empty is None:
            return np.zeros(F, dtype=bool)
        far, e = samples[len(self.ring_pts) :], self.far_empty
        shape = (len(FAR_OFFSETS), self.far_count, 4)
        ee = np.einsum("ij,ij->i", e, e)
        colour, hue, _dark, _shade = _compare(
            far, e, ee, shape, self._far_window_n, self.far_in_frame, self.floor,
            self.noise_floor)  # fmt: skip
        return colour | hue

    # -- per frame ---------------------------------------------------------------------------------
    def explained(
        self,
        changed: np.ndarray,
        claims: list[tuple[int, float, float, float]],
        lit: dict[str, tuple[int, int, int]] | None,
    ) -> np.ndarray:
        """[R] bool: changed samples a stack leaning over the ring or an LED's glow accounts
        for."""
        explained = np.zeros(len(changed), dtype=bool)
        cand = self.voting & changed
        if claims and cand.any():
            t_from = np.array([cl[1] for cl in claims])[:, None]
            t_to = np.array([cl[2] for cl in claims])[:, None]
            centres = self._centres(claims)
            d = centres - self.pose.camera_in_board[:2]
            r = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-6)
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
        return explained

    def _centres(self, claims: list[tuple[int, float, float, float]]) -> np.ndarray:
        """[C, 2]: the board-plane centres of the claimed squares."""
        idx = np.array([cl[0] for cl in claims])
        n = self.pose.size
        return np.stack([idx % n + 0.5, idx // n + 0.5], axis=1)

    def shadowed(
        self, changed: np.ndarray, claims: list[tuple[int, float, float, float]]
    ) -> np.ndarray:
        """[R] bool: changed samples of the last frame only darkened, as a shadow darkens
        (`changed`), within reach of a stack's shadow (`SHADOW_PER_HEIGHT`)."""
        out = np.zeros(len(changed), dtype=bool)
        cand = self.voting & changed & self._shade
        if not claims or not cand.any():
            return out
        centres = self._centres(claims)
        reach = SHADOW_PER_HEIGHT * np.array([cl[3] for cl in claims]) + 0.5
        away = np.abs(self.ring_pts[cand][None, :, :] - centres[:, None, :]).max(axis=2)
        out[np.nonzero(cand)[0]] = (away <= reach[:, None]).any(axis=0)
        return out

    def check(
        self,
        ring: np.ndarray,
        claims: list[tuple[int, float, float, float]],
        lit: dict[str, tuple[int, int, int]] | None = None,
        moving: bool = True,
    ) -> tuple[bool, str]:
        """-> (hand present, reason). `claims` from the square fit: stacks that may lean over.
        `moving`: whether the picture changed since the last frame (for the motion history).
        A claim is (square index, t_from, t_to, top height): see `reader._claims`."""
        self._follow_noise(ring, moving)
        changed, dark = self.changed(ring)
        explained = self.explained(changed | dark, claims, lit)
        # (a shadow excuses the ring, not the table: an arm's sleeve crosses the table rows next
        # to the ring whatever its skin looks like there)
        leaning = explained
        explained = explained | self.shadowed(changed, claims)
        unexplained = changed & ~explained & self.voting
        shape = (len(RING_OFFSETS), self.along_count, 4)
        grown = _dilate_along(unexplained.reshape(shape), BAND_WINDOW)
        rows_changed = grown.sum(axis=0)  # [A, 4]
        # An arm comes from outside: its band reaches the outer rows (where they are in view). A
        # stack pushed over the line, blurred, or read too low stops short of them.
        outer = grown[-2:].any(axis=0) | ~self._outer_in_frame
        band = int(np.where(outer, rows_changed, 0).max())
        # Dark across every row counts only where some rows also changed colour: a stack's shadow
        # under a low lamp can reach across the ring, but it only darkens the wood.
        dark_or_changed = (dark | changed) & ~explained & self.voting
        rows_dark = _dilate_along(dark_or_changed.reshape(shape), BAND_WINDOW).sum(axis=0)
        dark_band = int(np.where(rows_changed >= DARK_WITH_CHANGED, rows_dark, 0).max())
        # An arm is wider than any stack leaning over the edge: a long unbroken run of change
        # along the ring is a hand even where stacks could explain each piece of it.
        run = _longest_run((changed & self.voting).reshape(shape)) * RING_STEP
        # The table: an arm crossing the rows beyond the board, where the ring shows something
        # at the same place (a thing put down on the table touches no ring row).
        far_changed = self.far_changed(ring)
        far_shape = (len(FAR_OFFSETS), self.far_count, 4)
        # an arm is broad: only stretches mostly changed count (dark tables are noisy)
        solid = _window_sum(far_changed.reshape(far_shape).astype(np.float32), FAR_SOLID[0])
        solid = solid >= FAR_SOLID[1]
        far_rows = _dilate_along(solid, BAND_WINDOW).sum(axis=0)
        reach = round(FAR_SUPPORT / RING_STEP)
        touched = (dark | changed) & ~leaning & self.voting
        support = _dilate_along(touched.reshape(shape), reach).any(axis=0)  # [A, 4]
        far_rows = np.where(support[self.far_to_near], far_rows, 0)
        far = int(far_rows.max())
        # where the frame cuts the table rows off, the ones still in view must all show it
        table = bool((far_rows >= np.minimum(FAR_ROWS, self._far_rows_in_frame)).any())
        ev = HandEvidence(band, dark_band, run, far, changed, unexplained, far_changed)
        if band >= BAND_ROWS:
            ev.cause = "band"
        elif dark_band >= DARK_ROWS:
            ev.cause = "dark"
        elif run >= RING_ARM_RUN:
            ev.cause = "run"
        elif table:
            ev.cause = "table"
        elif (self._held and not moving
              and int((unexplained & ~self._unexplained_before).sum()) >= HELD_MIN_CHANGED):
            # nothing moved since the hand was seen and the ring still shows some of it: it has
            # not left. (A clear ring releases it without motion: no hand reaches the board
            # without crossing the ring, and the motion gate can miss a hand leaving between two
            # frames in dim light; record bench seed 9 lost its first ply to that.) Clear of
            # what it showed before the hand came: fresh record bench seed 1372 had 4 ring
            # samples beside a stack unexplained on every frame, and the hand that made the
            # game's last ply was "held" from then on, the ply never judged.
            ev.cause = "held"
        self.last = ev
        self._held = bool(ev.cause)
        if not self._held:
            self._unexplained_before = unexplained
        if ev.cause == "band":
            return True, f"hand or arm over the board edge ({band} of 6 ring rows changed)"
        if ev.cause == "dark":
            return True, "hand or arm over the board edge (a dark band across the ring)"
        if ev.cause == "run":
            return True, f"hand or arm over the board edge ({run:.1f} pitches of the ring)"
        if ev.cause == "table":
            return True, "hand or arm crossing the table into the board"
        if ev.cause == "held":
            return True, "hand or arm over the board (seen before, nothing has moved since)"
        return False, ""

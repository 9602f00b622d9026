"""`BoardReader`: the stateful reader. One frame in, one `BoardReading` out.

Per frame: validate -> motion -> locate (cheap check; full re-localisation only when the check
fails) -> sample the square strips -> fit every square (nearest first, masking what nearer stacks
hide) -> colours -> hand/arm gate -> update the slow models. Squares are never read while the
localisation is in doubt: the reading then has `board_found` False and no squares.

State it keeps (all small): the pose, the empty-board model (a board-plane image, so it survives a
bump of the camera), per-pose strip samples of that model, the two learned piece colours, the
previous small grey frame for motion.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision import appearance, geometry
from vision.calibration import Calibration, square_features
from vision.gate import HandGate, MotionGate
from vision.locate import BoardLocator, BoardNotFoundError, BoardPose, poses_differ
from vision.reading import BoardReading, SquareReading
from vision.squares import HYPOTHESES, PieceSet, SquareModel, fit_squares, measured_widths

EMPTY_PX_PER_PITCH = 40  # resolution of the stored empty-board model
EMPTY_MARGIN = 1.5
EMPTY_LEARN_FRAMES = 3  # frames averaged into the empty model when it is learned from the camera
DRIFT_RATE = 0.05  # how fast the empty model follows slow lighting changes
COLOR_RATE = 0.1
COLOR_MIN_SAMPLES = 3
RING_EXTRA_TOP = 0.3  # pitches: the hand gate takes every stack as this much taller
PIECE_SET_SQUARES = 12  # occupied squares seen before the piece shapes are settled


@dataclass
class ColorModel:
    """The two piece colours, learned from the pieces as they appear. Colours are normalised by the
    local light (the empty board's brightness there), so a hotspot does not turn dark into light."""

    centroids: dict[str, np.ndarray] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: {"light": 0, "dark": 0})

    @property
    def ready(self) -> bool:
        return all(self.counts[c] >= COLOR_MIN_SAMPLES for c in ("light", "dark"))

    def classify(
        self, colors: np.ndarray, white: float, black: float
    ) -> tuple[list[str], np.ndarray]:
        """colors [M, 3] normalised BGR -> labels and confidences [M]."""
        if len(colors) == 0:
            return [], np.zeros(0)
        luma = colors.mean(axis=1)
        if self.ready:
            dl = np.linalg.norm(colors - self.centroids["light"], axis=1)
            dd = np.linalg.norm(colors - self.centroids["dark"], axis=1)
            labels = ["light" if a < b else "dark" for a, b in zip(dl, dd, strict=True)]
            conf = np.abs(dl - dd) / (dl + dd + 1e-6)
            return labels, np.clip(0.5 + conf, 0.0, 1.0)
        # Not learned yet: split on brightness. Two clear groups -> the gap between them; one
        # group -> against the frame's own white and black (the markers' paper and ink).
        log_l = np.log(np.maximum(luma, 1.0))
        order = np.sort(log_l)
        threshold = None
        if len(order) >= 2:
            # two groups (Otsu on log brightness): the split with the largest between-group
            # variance, if the groups are clearly apart
            best, best_score = None, -1.0
            for i in range(1, len(order)):
                lo, hi = order[:i], order[i:]
                score = len(lo) * len(hi) * (hi.mean() - lo.mean()) ** 2
                if score > best_score:
                    best, best_score = i, score
            assert best is not None
            if order[best:].mean() - order[:best].mean() > np.log(2.0):
                threshold = float((order[best - 1] + order[best]) / 2)
        if threshold is None:
            threshold = float(np.log(max(black + 0.45 * (white - black), 1.0)))
        labels = ["light" if v > threshold else "dark" for v in log_l]
        conf = np.clip(0.5 + np.abs(log_l - threshold) / 0.6, 0.0, 1.0)
        return labels, conf

    def learn(self, colors: np.ndarray, labels: list[str]) -> None:
        for color in ("light", "dark"):
            pick = [c for c, lab in zip(colors, labels, strict=True) if lab == color]
            if not pick:
                continue
            mean = np.mean(pick, axis=0)
            if color not in self.centroids:
                self.centroids[color] = mean
            else:
                self.centroids[color] = (1 - COLOR_RATE) * self.centroids[color] + COLOR_RATE * mean
            self.counts[color] += len(pick)


class BoardReader:
    """Reads frames of one board. Not thread safe; one instance per camera."""

    def __init__(
        self,
        size: int,
        *,
        corners: np.ndarray | None = None,
        reference: np.ndarray | None = None,
        learn_empty: bool = True,
        calibration: Calibration | None = None,
        calibrated: bool = True,
    ) -> None:
        """`reference`: a frame of the empty board from this camera. Without one the reader takes
        the first still frames it sees as the empty board (`learn_empty`, for a camera watching a
        game from its start); a single photo of a game in progress needs `learn_empty=False`.

        Confidences come from `calibration` (default: the table shipped in vision/calibration.json).
        `calibrated=False` reports the raw margin-based confidences instead; only the calibration
        fit itself wants that (it fits on the features, which are the same either way)."""
        self.size = size
        self.locator = BoardLocator(size, corners)
        self.pose: BoardPose | None = None
        self.model: SquareModel | None = None
        self.empty_rect: np.ndarray | None = None  # float32 board-plane image of the empty board
        self.empty_profile: np.ndarray | None = None  # [S, T, 3] for the current pose
        self.colors = ColorModel()
        self.motion = MotionGate()
        self.hands: HandGate | None = None
        self.white = 230.0
        self.black = 30.0
        self._reference = reference
        self.learn_empty = learn_empty and reference is None
        self._learned_frames = EMPTY_LEARN_FRAMES if reference is not None else 0
        self.last_relocalise_ms = 0.0
        self.calibration = (calibration or _default_calibration()) if calibrated else None
        self.last_fits: dict[str, np.ndarray] | None = None
        # The piece set's shapes (square or round flats, cylinder or pawn capstones) are not known
        # until pieces are seen: every candidate is fitted until enough pieces decided it.
        self.pieces: PieceSet | None = None
        self._piece_votes: dict[PieceSet, float] = {}
        self._piece_squares = 0
        self._candidates: dict[PieceSet, SquareModel] = {}
        self._frame: np.ndarray | None = None  # the frame being read (for the cross lines)
        self._empty_rect_now: np.ndarray | None = None  # the empty model the frame is read against
        self._cross_cache: tuple[object, np.ndarray] = (None, np.zeros(0))
        self._lit: dict[str, tuple[int, int, int]] = {}

    # -- empty board model -------------------------------------------------------------------------
    def _rect_map(self, pose: BoardPose, board_pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ppp, m, n = EMPTY_PX_PER_PITCH, EMPTY_MARGIN, pose.size
        u = (board_pts[..., 0] + m) * ppp
        v = (n + m - board_pts[..., 1]) * ppp
        return u.astype(np.float32), v.astype(np.float32)

    def _warp_empty(self, frame: np.ndarray, pose: BoardPose) -> np.ndarray:
        ppp, m, n = EMPTY_PX_PER_PITCH, EMPTY_MARGIN, pose.size
        side = round((n + 2 * m) * ppp)
        B = np.array([[1 / ppp, 0, -m], [0, -1 / ppp, n + m], [0, 0, 1]], dtype=np.float64)
        return cv2.warpPerspective(
            frame, pose.H_img_from_board @ B, (side, side),
            flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE,
        ).astype(np.float32)  # fmt: skip

    def _profiles_from_rect(self, model: SquareModel, rect: np.ndarray) -> np.ndarray:
        mx, my = self._rect_map(model.pose, model.board_pts)
        S, T, A = model.board_pts.shape[:3]
        out = cv2.remap(rect, mx.reshape(S * T, A), my.reshape(S * T, A), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
        return out.mean(axis=1).reshape(S, T, -1).astype(np.float32)

    def _fallback_empty_rect(self, frame: np.ndarray, pose: BoardPose) -> np.ndarray:
        """No empty board seen yet: the bare wood around the grid, extended smoothly inwards.

        The wood between the grid and the markers never holds pieces; a plane fitted to its colour
        (per channel, robust to the odd outlier) stands in for the board under the pieces.
        """
        rect = self._warp_empty(frame, pose)
        n, ppp, m = pose.size, EMPTY_PX_PER_PITCH, EMPTY_MARGIN
        side = rect.shape[0]
        vv, uu = np.mgrid[0:side, 0:side]
        x = uu / ppp - m
        y = n + m - vv / ppp
        outside = (x < -0.05) | (x > n + 0.05) | (y < -0.05) | (y > n + 0.05)
        ring = outside & (x > -0.45) & (x < n + 0.45) & (y > -0.45) & (y < n + 0.45)
        A = np.stack([x[ring], y[ring], np.ones(int(ring.sum()))], axis=1)
        out = np.empty_like(rect)
        for c in range(rect.shape[2]):
            vals = rect[..., c][ring]
            keep = np.abs(vals - np.median(vals)) < 3 * (
                np.median(np.abs(vals - np.median(vals))) + 1
            )
            coef, *_ = np.linalg.lstsq(A[keep], vals[keep], rcond=None)
            out[..., c] = coef[0] * x + coef[1] * y + coef[2]
        return out

    # -- pose --------------------------------------------------------------------------------------
    def _set_pose(self, pose: BoardPose, frame: np.ndarray) -> None:
        self.pose = pose
        self.model = SquareModel(pose, self.pieces or PieceSet())
        self._candidates = {}
        self.hands = HandGate(pose)
        self._measure_paper(frame, pose)
        if self.empty_rect is None and self._reference is not None:
            ref_pose = BoardLocator(self.size, self.locator.given_corners).locate(self._reference)
            self.empty_rect = self._warp_empty(self._reference, ref_pose)
        if self.empty_rect is not None:
            self.empty_profile = self._profiles_from_rect(self.model, self.empty_rect)
            self.hands.set_empty(self._warp_empty_ring(self.empty_rect))
        else:
            self.empty_profile = None

    def _warp_empty_ring(self, rect: np.ndarray) -> np.ndarray:
        assert self.hands is not None and self.pose is not None
        mx, my = self._rect_map(self.pose, self.hands.ring_pts)
        return cv2.remap(rect, mx[None], my[None], cv2.INTER_LINEAR)[0].astype(np.float32)

    def _measure_paper(self, frame: np.ndarray, pose: BoardPose) -> None:
        """White and black levels from the markers (paper and ink), for colour decisions."""
        if pose.source != "markers":
            return
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        mask = np.zeros(grey.shape, np.uint8)
        for i in pose.markers_seen:
            quad = pose.project(
                np.hstack([geometry.marker_corners(pose.size, i), np.zeros((4, 1))])
            )
            cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 255)
        vals = grey[mask > 0]
        if len(vals) > 50:
            self.white = float(np.percentile(vals, 95))
            self.black = float(np.percentile(vals, 5))

    def _localise(self, frame: np.ndarray) -> tuple[bool, bool, str, bool]:
        """-> (found, relocalised, reason, a marker looked covered)."""
        if self.pose is not None:
            ok, total = self.locator.check(frame, self.pose)
            if total and ok == total:
                return True, False, "", False
            if total and ok >= min(3, total) and ok >= total - 1:
                # One marker patch changed but the rest hold: something covers it (a hand).
                return True, False, "", True
        start = time.process_time()
        try:
            pose = self.locator.locate(frame)
        except BoardNotFoundError as err:
            self.last_relocalise_ms = (time.process_time() - start) * 1000
            return False, False, err.reason, False
        self.last_relocalise_ms = (time.process_time() - start) * 1000
        moved = self.pose is not None and poses_differ(self.pose, pose)
        if self.pose is None or moved:
            self._set_pose(pose, frame)
        else:
            # same place, new patches (lighting changed): keep everything else
            self.pose.check_patches = pose.check_patches
        return True, moved, "", False

    # -- the frame ---------------------------------------------------------------------------------
    def read(
        self, frame: np.ndarray, lit: dict[str, tuple[int, int, int]] | None = None
    ) -> BoardReading:
        """Read one BGR frame. `lit`: squares whose LEDs glow now (name -> BGR), if known."""
        t0 = time.perf_counter()
        timings: dict[str, float] = {}

        def lap(name: str, since: float) -> float:
            now = time.perf_counter()
            timings[name] = (now - since) * 1000
            return now

        if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
            raise ValueError(
                f"frame must be an HxW or HxWx3 uint8 image, got {type(frame).__name__}"
            )
        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        if frame.dtype != np.uint8:
            raise ValueError(f"frame must be uint8, got {frame.dtype}")
        moving = self.motion.update(frame)
        t = lap("motion", t0)
        small = frame[::8, ::8]
        if float(small.mean()) < 12 or float(small.std()) < 3:
            return BoardReading(self.size, False, moving=moving, reason="frame too dark or blank",
                                timings_ms=timings)  # fmt: skip
        found, relocalised, reason, marker_covered = self._localise(frame)
        t = lap("locate", t)
        if not found or self.pose is None or self.model is None:
            return BoardReading(self.size, False, moving=moving, reason=reason or "board not found",
                                relocalised=relocalised, timings_ms=timings)  # fmt: skip
        model = self.model
        assert self.hands is not None
        profile = model.sample(frame)
        t = lap("sample", t)
        learning = False
        self._frame = frame
        if self.empty_profile is None and self.learn_empty and not moving:
            # Start-up: the board is empty (a game starts on an empty board); this frame is the
            # model, and the next few still-empty frames are averaged in.
            self._learn_empty(frame)
            self._learned_frames = 1
        if self.empty_profile is None:
            # Nothing known about the bare board: stand in with the wood around the grid, and
            # adopt this frame as the empty board if it turns out to hold no pieces.
            fallback = self._fallback_empty_rect(frame, self.pose)
            self._empty_rect_now = fallback
            empty = self._profiles_from_rect(model, fallback)
            self.hands.set_empty(self._warp_empty_ring(fallback))
            learning = True
        else:
            empty = self.empty_profile
            self._empty_rect_now = self.empty_rect
        self._lit = dict(lit or {})
        fits = self._fit_with_piece_set(profile, empty)
        model = self.model
        self.last_fits = fits
        t = lap("squares", t)

        # colours
        occupied = [s for s in range(len(model.names)) if not fits["empty"][s]]
        colors = fits["top_col"][occupied] if occupied else np.zeros((0, 3))
        labels, color_conf = self.colors.classify(colors, self.white, self.black)
        color_margin = np.zeros(len(model.names))
        color_margin[occupied] = color_conf - 0.5
        view = np.arctan2(np.abs(model.rho), model.cam_z)
        fits["features"] = square_features(fits, color_margin, view)
        if self.calibration is not None:
            # The calibrated probability, never above the raw margin mapping: the table is fitted
            # on the bench's simulated frames (separate positions: colours split by brightness,
            # stacks up to 6 everywhere), and where a frame is unlike them (a video whose colour
            # model has learned, a lone capstone read as a tall flat stack early in a game) a
            # small margin must still read as unsure. (The raw mapping is what is overconfident
            # where margins are large; where they are small it is about right or too low.)
            probs = self.calibration.probabilities(fits["features"])
            for attr in ("empty", "kind", "height"):
                fits[f"{attr}_conf"] = np.minimum(probs[attr], fits[f"{attr}_conf"])
            color_conf = np.minimum(probs["color"][occupied], color_conf)
        t = lap("colours", t)

        if learning:
            # against a stand-in for the empty board the ring test would cry wolf
            hand, hand_reason = False, ""
        else:
            ring = self.hands.sample(frame)
            claims = _claims(model, fits, RING_EXTRA_TOP)
            hand, hand_reason = self.hands.check(ring, claims, lit, moving=moving)
        occluded = hand or marker_covered
        t = lap("gate", t)

        squares: dict[str, SquareReading] = {}
        label_of = dict(zip(occupied, labels, strict=True))
        conf_of = dict(zip(occupied, color_conf, strict=True))
        for s, name in enumerate(model.names):
            if fits["empty"][s]:
                ec = float(fits["empty_conf"][s])
                squares[name] = SquareReading(True, confidence=ec, empty_confidence=ec)
            else:
                ec, kc, hc = (float(fits[k][s]) for k in ("empty_conf", "kind_conf", "height_conf"))
                cc = float(conf_of[s])
                squares[name] = SquareReading(
                    False, label_of[s], str(fits["kind"][s]), int(fits["height"][s]),
                    confidence=min(ec, kc, hc, cc), empty_confidence=ec, color_confidence=cc,
                    kind_confidence=kc, height_confidence=hc,
                )  # fmt: skip
        confidence = float(np.mean([sq.confidence for sq in squares.values()]))
        if occluded:
            confidence = 0.0

        # slow models: only from frames we trust
        if not occluded and not moving:
            if self._learned_frames < EMPTY_LEARN_FRAMES and not occupied and not learning:
                self._learn_empty(frame)
                self._learned_frames += 1
            elif not learning:
                self._drift(profile, fits)
                self.hands.follow(ring)
                if occupied:
                    self.colors.learn(colors, labels)
        timings["total"] = (time.perf_counter() - t0) * 1000
        why = hand_reason if hand else ("a marker is covered" if marker_covered else "")
        if learning and not why:
            why = (
                "no empty-board model (no --reference): read against the wood around the grid, "
                "no hand check"
            )
        signatures = appearance.signatures(model.t, profile)  # what changed is judged on these
        return BoardReading(
            size=self.size, board_found=True, occluded=occluded, moving=moving,
            confidence=confidence, relocalised=relocalised, squares=squares, reason=why,
            timings_ms=timings, appearance=dict(zip(model.names, signatures, strict=True)),
        )  # fmt: skip

    def _illumination(self, empty: np.ndarray) -> np.ndarray:
        """Local light per square relative to the board's median: [S]."""
        assert self.model is not None
        centre = np.searchsorted(self.model.t, 0.0)
        lum = empty[:, max(0, centre - 5) : centre + 5].mean(axis=(1, 2))
        return lum / max(float(np.median(lum)), 1.0)

    def _learn_empty(self, frame: np.ndarray) -> None:
        """Average this frame into the empty-board model (start-up frames only)."""
        assert self.pose is not None and self.model is not None and self.hands is not None
        rect = self._warp_empty(frame, self.pose)
        if self.empty_rect is None:
            self.empty_rect = rect
        else:
            n = max(self._learned_frames, 1)
            self.empty_rect = (self.empty_rect * n + rect) / (n + 1)
        self.empty_profile = self._profiles_from_rect(self.model, self.empty_rect)
        self.hands.set_empty(self._warp_empty_ring(self.empty_rect))
        self.hands.learn_far(frame)

    def _drift(self, profile: np.ndarray, fits: dict[str, np.ndarray]) -> None:
        """Follow slow light changes: blend the bare-board parts of this frame into the model."""
        assert self.empty_profile is not None and self.model is not None
        board = fits["board_mask"]
        self.empty_profile[board] = (1 - DRIFT_RATE) * self.empty_profile[
            board
        ] + DRIFT_RATE * profile[board]

    # -- squares -----------------------------------------------------------------------------------
    def _fit_with_piece_set(self, profile: np.ndarray, empty: np.ndarray) -> dict[str, np.ndarray]:
        """Fit with the known piece set, or with every candidate set until the pieces decided."""
        assert self.model is not None and self.pose is not None
        if self.pieces is not None:
            return self._fit_all(self.model, profile, empty)
        results = {}
        for pieces in (PieceSet(r, p) for r in (False, True) for p in (False, True)):
            if pieces not in self._candidates:
                self._candidates[pieces] = (
                    self.model if self.model.pieces == pieces else SquareModel(self.pose, pieces)
                )
            results[pieces] = self._fit_all(self._candidates[pieces], profile, empty)
        totals = {p: float(np.sum(f["cost"])) for p, f in results.items()}
        best = min(totals, key=lambda p: totals[p])
        occupied = int(np.sum(~results[best]["empty"]))
        for p, total in totals.items():
            self._piece_votes[p] = self._piece_votes.get(p, 0.0) + total
        self._piece_squares += occupied
        self.model = self._candidates[best]
        if self._piece_squares >= PIECE_SET_SQUARES:
            self.pieces = min(self._piece_votes, key=lambda p: self._piece_votes[p])
            self.model = self._candidates[self.pieces]
            self._candidates = {}
            return results[self.pieces]
        return results[best]

    def _widths(self, model: SquareModel) -> np.ndarray | None:
        if self._frame is None or self._empty_rect_now is None:
            return None
        cross = model.sample_cross(self._frame)
        empty_cross = self._cross_from_rect(model, self._empty_rect_now)
        return measured_widths(cross, empty_cross, model.cross_du)

    def _cross_from_rect(self, model: SquareModel, rect: np.ndarray) -> np.ndarray:
        key = (id(model), id(rect))
        if self._cross_cache[0] != key:
            mx, my = self._rect_map(model.pose, model.cross_pts)
            S, L, U = model.cross_pts.shape[:3]
            out = cv2.remap(rect, mx.reshape(S * L, U), my.reshape(S * L, U), cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
            self._cross_cache = (key, out.reshape(S, L, U, -1).astype(np.float32))
        return self._cross_cache[1]

    def _fit_all(
        self, model: SquareModel, profile: np.ndarray, empty: np.ndarray
    ) -> dict[str, np.ndarray]:
        """Fit every square and decide; claims (what each stack covers) for the hand gate."""
        # One pass. Masking what nearer stacks hide and refitting was tried and read worse on
        # the benchmark (a misread tall neighbour hides a square's own evidence), so the fit
        # models the whole strip instead.
        S = len(model.names)
        valid = np.ones((S, model.T), dtype=bool)
        widths = self._widths(model)
        glow = model.glow_directions(self._lit) if self._lit else None
        first = fit_squares(model, profile, empty, valid, np.arange(S), widths, glow)
        decided = _decide(model, first)
        decided["cost"] = np.minimum(decided["best_cost"], decided["empty_cost"])
        decided["claims"] = _claims(model, decided)
        decided["board_mask"] = _board_mask(model, decided, valid)
        return decided


def _decide(model: SquareModel, fit: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    which = fit["which"]
    n = len(which)
    kinds = model.kinds
    heights = model.heights
    per_h = fit["per_h"]
    best = fit["best_cost"]
    empty_cost = fit["empty_cost"]
    is_empty = empty_cost <= best
    h_best = fit["h_best"]
    scale = 2500.0  # cost units per unit of confidence margin
    margin_empty = np.abs(empty_cost - best)
    kind = kinds[h_best]
    height = heights[h_best]
    # best rival with another kind / another height
    other_kind = np.where(kinds[None, :] != kind[:, None], per_h, np.inf).min(axis=1)
    other_height = np.where(heights[None, :] != height[:, None], per_h, np.inf).min(axis=1)
    out = {
        "kind_margin": other_kind - best,
        "height_margin": other_height - best,
        "residual": fit["residual"],
        "contrast": fit["contrast"],
        "top_n": fit["top_n"],
        "empty": is_empty,
        "kind": np.where(is_empty, None, kind).astype(object),
        "height": np.where(is_empty, 0, height),
        "empty_conf": 1 - 0.5 * np.exp(-margin_empty / scale),
        "kind_conf": 1 - 0.5 * np.exp(-(other_kind - best) / scale),
        "height_conf": 1 - 0.5 * np.exp(-(other_height - best) / scale),
        "top_col": fit["top_col"],
        "best_cost": best,
        "empty_cost": empty_cost,
        "base_t": fit["base_t"],
        "h_best": h_best,
        "d_best": fit["d_best"],
        "idx_best": fit["idx_best"],
    }
    assert all(len(v) == n for v in out.values())
    return out


_CALIBRATION: Calibration | None = None


def _default_calibration() -> Calibration:
    global _CALIBRATION
    if _CALIBRATION is None:
        _CALIBRATION = Calibration.load()
    return _CALIBRATION


def _top_extent(model: SquareModel, s: int, h_i: int, extra: float = 0.0) -> float:
    z = HYPOTHESES[h_i].top_z + extra
    return float((model.rho[s] + 0.5) * model._k(z) - model.rho[s])


def _claims(
    model: SquareModel, decided: dict[str, np.ndarray], extra: float = 0.0
) -> list[tuple[int, float, float]]:
    """Per occupied square: (index, t_from, t_to) of the board-plane band it covers in the image.

    `extra`: treat every stack as this much taller (the hand gate must not take a stack that was
    read a layer or two too low for an arm)."""
    out = []
    for s in range(len(model.names)):
        if decided["empty"][s]:
            continue
        h_i = int(decided["h_best"][s])
        out.append((s, float(decided["base_t"][s]), _top_extent(model, s, h_i, extra)))
    return out


def _board_mask(
    model: SquareModel, decided: dict[str, np.ndarray], valid: np.ndarray
) -> np.ndarray:
    """[S, T] bool: samples that show the bare board (for the drift update)."""
    t = model.t
    mask = valid.copy()
    for s in range(len(model.names)):
        if decided["empty"][s]:
            mask[s] &= t <= 0.45
        else:
            mask[s] &= t < decided["base_t"][s] - 0.03
    return mask

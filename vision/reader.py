"""`BoardReader`: the stateful reader. One frame in, one `BoardReading` out.

Per frame: validate -> motion -> locate (cheap check; full re-localisation only when the check
fails) -> sample the square strips -> classify every square (`vision.views` samples through the
`vision.net` classifier: empty / flat / wall / capstone and the height) -> colours of the tops ->
calibrated confidences -> hand/arm gate -> update the slow models. Squares are never read while
the localisation is in doubt: the reading then has `board_found` False and no squares.

State it keeps (all small): the pose, the empty-board model (a board-plane image, so it survives a
bump of the camera), per-pose strip samples of that model, the two learned piece colours, the
previous small grey frame for motion.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision import appearance, geometry
from vision.calibration import Calibration, square_features
from vision.gate import MOTION_SCALE, HandGate, MotionGate, every_nth_pixel
from vision.locate import BoardLocator, BoardNotFoundError, BoardPose, poses_differ
from vision.net import KINDS, Ensemble, SquareNet
from vision.reading import BoardReading, SquareReading
from vision.squares import SquareModel, top_z
from vision.stack_net import StackNet
from vision.views import (
    EMPTY_MARGIN,
    EMPTY_PX_PER_PITCH,
    PLANE_HEIGHTS,
    SquareViews,
    board_to_model_px,
    mirror_index,
    warp_to_board,
)

EMPTY_LEARN_FRAMES = 3  # frames averaged into the empty model when it is learned from the camera
DRIFT_RATE = 0.05  # how fast the empty model follows slow lighting changes
MIN_DRIFT_SAMPLES = 200  # bare-board strip samples needed to measure the light
COLOR_RATE = 0.1
COLOR_MIN_SAMPLES = 3
RING_EXTRA_TOP = 0.3  # pitches: the hand gate takes every stack as this much taller


@dataclass
class ColorModel:
    """The two piece colours, learned from the pieces as they appear. Colours are normalised by the
    local light (the empty board's brightness there), so a hotspot does not turn dark into light.

    A top is seen in one of two lights: a flat shows its top face, turned to the lamp; a wall or a
    capstone shows a side. A black piece's top face can look mid-grey while its wall's side looks
    near black, and a white wall's shaded side grey. So the colours are learned from flats' faces
    only; a side is judged by its hue against the two face colours (shading changes brightness,
    not hue), or, where the two colours share a hue, among the sides in view or against the
    markers' paper and ink."""

    centroids: dict[str, np.ndarray] = field(default_factory=dict)  # faces: colour -> BGR
    counts: dict[str, int] = field(default_factory=lambda: {"light": 0, "dark": 0})

    @property
    def ready(self) -> bool:
        return all(self.counts[c] >= COLOR_MIN_SAMPLES for c in COLOURS)

    def classify(
        self, colors: np.ndarray, kinds: list[str], white: float, black: float,
        upper: np.ndarray | None = None,
    ) -> tuple[list[str], np.ndarray]:
        """colors [M, 3] normalised BGR of tops of these kinds -> labels and confidences [M].

        `upper` [M, 3]: the colour of each wall's and capstone's upward face (its top edge, its
        top), NaN where not seen; judged against the flats' faces, which it shares its light
        with, as a second opinion on the side (`_second_opinion`)."""
        labels = np.full(len(colors), "dark", dtype=object)
        conf = np.zeros(len(colors))
        faces = np.array([k == "flat" for k in kinds], dtype=bool)
        face_centres = None  # (dark, light) in _colour_space
        if self.ready:
            centres = np.stack([self.centroids[c] for c in COLOURS])
            face_centres = _colour_space(centres)
        if faces.any():
            if self.ready:
                got = _nearest(colors[faces], centres)
            else:
                got = _two_clusters(colors[faces]) or _by_paper(colors[faces], white, black)
                face_centres = _centres(colors[faces], list(got[0]))
            labels[faces], conf[faces] = got
        sides = ~faces
        if sides.any():
            side_colors = colors[sides]
            enough = len(side_colors) >= MIN_SIDES_TO_SPLIT
            got = _by_hue(side_colors, face_centres) if face_centres is not None else None
            if got is not None and enough and (got[1] < HUE_SURE).any():
                split = _two_clusters(side_colors)
                if split is not None:
                    got = _unsure_hue_by_split(got, split)
            if got is None and enough:
                got = _two_clusters(side_colors)
            labels[sides], conf[sides] = got or _by_paper(side_colors, white, black)
            if upper is not None and face_centres is not None:
                labels[sides], conf[sides] = _second_opinion(
                    (labels[sides], conf[sides]), upper[sides], face_centres)
        return list(labels), conf

    def learn(self, colors: np.ndarray, kinds: list[str], labels: list[str]) -> None:
        """Follow the face colours (flats only, see the class docstring)."""
        for color in COLOURS:
            pick = [c for c, k, lab in zip(colors, kinds, labels, strict=True)
                    if lab == color and k == "flat"]  # fmt: skip
            if not pick:
                continue
            mean = np.mean(pick, axis=0)
            old = self.centroids.get(color)
            self.centroids[color] = (
                mean if old is None else (1 - COLOR_RATE) * old + COLOR_RATE * mean
            )
            self.counts[color] += len(pick)


COLOURS = ("dark", "light")
MIN_HUE_GAP = 0.15  # weighted shares: two colours this close in hue cannot be told by hue
MIN_SIDES_TO_SPLIT = 4  # two walls in two lights (one lit, one shaded) are not two colours
HUE_SURE = 0.8  # a side's hue call below this gives way to the split of the sides in view
MIN_CENTRE_GAP = 0.5  # in _colour_space: about 1.65x in brightness


def _nearest(x: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Label points [M, D] by the nearer of two centres [2, D] (dark, light), in whatever space
    both are given; confidence from the margin."""
    d = np.linalg.norm(x[:, None, :] - centres[None], axis=2)
    near = d.argmin(axis=1)
    return np.array(COLOURS, dtype=object)[near], _margin(d, near)


def _margin(d: np.ndarray, near: np.ndarray) -> np.ndarray:
    """[M] confidence of picking column `near` of distances d [M, 2]: 0.5 on the fence, 1 on a
    centre."""
    own, other = d[np.arange(len(d)), near], d[np.arange(len(d)), 1 - near]
    return np.clip(0.5 + (other - own) / (other + own + 1e-6), 0.0, 1.0)


def _centres(colors: np.ndarray, labels: list[str]) -> np.ndarray | None:
    """The two labelled groups' centres in _colour_space (dark, light), if both are present."""
    x = _colour_space(colors)
    lab = np.array(labels, dtype=object)
    if not all((lab == c).any() for c in COLOURS):
        return None
    return np.stack([x[lab == c].mean(axis=0) for c in COLOURS])


def _by_hue(colors: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Label by hue alone (the shares, not the brightness) against two centres; None when the two
    centres have the same hue."""
    hue = centres[:, 1:]
    if float(np.linalg.norm(hue[0] - hue[1])) < MIN_HUE_GAP:
        return None
    return _nearest(_colour_space(colors)[:, 1:], hue)


def _unsure_hue_by_split(
    hue: tuple[np.ndarray, np.ndarray], split: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Sides the hue is unsure of (below HUE_SURE) take their label from the sides' own split in
    view, at the lower of the two confidences. Hue is the better judge of a side on its own
    (shading changes brightness, not hue); but a near-black side's hue is mostly noise, and a
    dark red set under a warm lamp had its walls' sides called light by hue at 0.55-0.7 frame
    after frame, while its sides in view fell into two groups three times apart in brightness
    (600 frames of seed 21: walls' colours wrong 43 -> 24 of 1,953, none wrong at >= 0.9 more)."""
    labels, conf = hue[0].copy(), hue[1].copy()
    unsure = conf < HUE_SURE
    labels[unsure] = split[0][unsure]
    conf[unsure] = np.minimum(conf[unsure], split[1][unsure])
    return labels, conf


SURE_AT_MOST = 0.995  # an opinion counts at most this sure when two are weighed


def _second_opinion(
    side: tuple[np.ndarray, np.ndarray], upper: np.ndarray, face_centres: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Weigh each side's colour call against its upward face's (a wall's top edge, a capstone's
    top), judged against the flats' faces (`face_centres`, in _colour_space).

    A side's light depends on which way it faces: under a lamp a white wall's shaded side and a
    black wall's lit one can be the same grey (bench seed 1, installation 20: called at 0.995
    the wrong way). An upward face is lit as a flat's top is, so its colour and brightness both
    say which set it is from; but it is thin (a wall's edge is 0.15 pitch) and catches glints.
    Each call is an independent opinion: their log odds add."""
    labels, conf = side[0].copy(), side[1].copy()
    seen = np.isfinite(upper).all(axis=1)
    if not seen.any():
        return labels, conf
    up_labels, up_conf = _nearest(_colour_space(upper[seen]), face_centres)

    def logit(p: np.ndarray) -> np.ndarray:
        p = np.clip(p, 0.5, SURE_AT_MOST)
        return np.log(p / (1 - p))

    agree = up_labels == labels[seen]
    odds = logit(conf[seen]) + np.where(agree, 1.0, -1.0) * logit(up_conf)
    labels[seen] = np.where(odds >= 0, labels[seen], up_labels)
    conf[seen] = 1.0 / (1.0 + np.exp(-np.abs(odds)))
    return labels, conf


def _by_paper(colors: np.ndarray, white: float, black: float) -> tuple[np.ndarray, np.ndarray]:
    """Against the frame's own white and black (the markers' paper and ink)."""
    log_l = np.log(np.maximum(colors.mean(axis=1), 1.0))
    threshold = float(np.log(max(black + 0.45 * (white - black), 1.0)))
    labels = np.where(log_l > threshold, "light", "dark").astype(object)
    return labels, np.clip(0.5 + np.abs(log_l - threshold) / 0.6, 0.0, 1.0)


CHROMA_WEIGHT = 5.0  # a 0.1 change of a colour share counts like 50 % in brightness
CHROMA_DAMP = 30.0  # added to the channel sum: the shares of a near-black colour are mostly noise
MIN_SEPARATION = 2.5  # cluster centres this many spreads apart are two piece colours


def _colour_space(colors: np.ndarray) -> np.ndarray:
    """[M, 3] BGR -> [M, 3] log brightness and the blue and red shares (weighted). Shading moves a
    colour along the first axis only: a wall's side is darker than a flat's top, same shares."""
    luma = np.log(np.maximum(colors.mean(axis=1), 1.0))
    shares = colors[:, [0, 2]] / (colors.sum(axis=1, keepdims=True) + CHROMA_DAMP)
    return np.column_stack([luma, CHROMA_WEIGHT * shares])


def _two_clusters(colors: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Split the tops into two colour clusters (2-means, started from the best split by
    brightness alone); None when they do not fall clearly into two. The brighter one is "light"."""
    if len(colors) < 2:
        return None
    x = _colour_space(colors)
    luma = np.sort(x[:, 0])
    # Otsu on brightness: the cut with the largest between-group variance
    n, below = len(luma), np.cumsum(luma)[:-1]
    i = np.arange(1, n)
    scores = i * (n - i) * ((below[-1] + luma[-1] - below) / (n - i) - below / i) ** 2
    cut = luma[int(np.argmax(scores)) + 1]
    centres = np.stack([x[x[:, 0] < cut].mean(axis=0), x[x[:, 0] >= cut].mean(axis=0)])
    before = None
    for _ in range(10):
        d = np.linalg.norm(x[:, None, :] - centres[None], axis=2)
        near = d.argmin(axis=1)
        if near.min() == near.max():
            return None
        if before is not None and np.array_equal(near, before):
            break  # settled: the centres would come out as they are
        centres, before = np.stack([x[near == c].mean(axis=0) for c in (0, 1)]), near
    spread = float(np.mean(np.min(d, axis=1))) + 0.03
    gap = float(np.linalg.norm(centres[0] - centres[1]))
    if gap < MIN_SEPARATION * spread or gap < MIN_CENTRE_GAP:
        return None
    light = int(np.argmax(centres[:, 0]))
    labels = np.where(near == light, "light", "dark").astype(object)
    return labels, _margin(d, near)


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
        self.gain = np.ones(3, np.float32)  # light now / light in the empty model, per channel
        self._gain_repeated = np.zeros(0, np.float32)  # `_in_light`
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
        self._empty_rect_now: np.ndarray | None = None  # the empty model the frame is read against
        self._lit: dict[str, tuple[int, int, int]] = {}
        self._tone_cache: tuple[object, float, np.ndarray] = (None, 1.0, np.ones(3))
        self.net = _default_net()
        self.stack_net = _default_stack_net()
        self.pair_calls: tuple[np.ndarray, np.ndarray] | None = None  # `classify_views`
        self.views: SquareViews | None = None

    # -- empty board model -------------------------------------------------------------------------
    def _profiles_from_rect(self, model: SquareModel, rect: np.ndarray) -> np.ndarray:
        mx, my = board_to_model_px(model.board_pts, model.pose.size)
        S, T, A = model.board_pts.shape[:3]
        out = cv2.remap(rect, mx.reshape(S * T, A), my.reshape(S * T, A), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
        return out.mean(axis=1).reshape(S, T, -1).astype(np.float32)

    def _fallback_empty_rect(self, frame: np.ndarray, pose: BoardPose) -> np.ndarray:
        """No empty board seen yet: the bare wood around the grid, extended smoothly inwards.

        The wood between the grid and the markers never holds pieces; a plane fitted to its colour
        (per channel, robust to the odd outlier) stands in for the board under the pieces.
        """
        rect = warp_to_board(frame, pose)
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
        self.model = SquareModel(pose)
        self.views = SquareViews(pose)
        self.hands = HandGate(pose)
        self._measure_paper(frame, pose)
        if self.empty_rect is None and self._reference is not None:
            ref_pose = BoardLocator(self.size, self.locator.given_corners).locate(self._reference)
            self.empty_rect = warp_to_board(self._reference, ref_pose)
        if self.empty_rect is not None:
            self.empty_profile = self._profiles_from_rect(self.model, self.empty_rect)
            self.hands.set_empty(self._warp_empty_ring(self.empty_rect))
        else:
            self.empty_profile = None

    def _warp_empty_ring(self, rect: np.ndarray) -> np.ndarray:
        assert self.hands is not None and self.pose is not None
        mx, my = board_to_model_px(self.hands.ring_pts, self.pose.size)
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
        small = every_nth_pixel(frame, MOTION_SCALE)
        moving = self.motion.update(small)
        t = lap("motion", t0)
        if _dark_or_blank(small):
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
            self.hands.set_empty(self._warp_empty_ring(fallback))
            learning = True
        else:
            self._empty_rect_now = self.empty_rect
        self._lit = dict(lit or {})
        fits = self._classify_squares(frame)
        self.last_fits = fits
        t = lap("squares", t)

        # colours
        occupied = [s for s in range(len(model.names)) if not fits["empty"][s]]
        colors = fits["top_col"][occupied] if occupied else np.zeros((0, 3))
        top_kinds = [str(fits["kind"][s]) for s in occupied]
        upward = fits["upward_col"][occupied] if occupied else np.zeros((0, 3))
        labels, color_conf = self.colors.classify(colors, top_kinds, self.white, self.black,
                                                  upward)  # fmt: skip
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

        squares = _square_readings(model.names, fits, occupied, labels, color_conf)
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
                    self.colors.learn(colors, top_kinds, labels)
        timings["total"] = (time.perf_counter() - t0) * 1000
        why = hand_reason if hand else ("a marker is covered" if marker_covered else "")
        if learning and not why:
            why = (
                "no empty-board model (no --reference): read against the wood around the grid, "
                "no hand check"
            )
        # what changed is judged on these
        signatures = appearance.signatures(model.t, profile, fits["ground"])
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
        rect = warp_to_board(frame, self.pose)
        if self.empty_rect is None:
            self.empty_rect = rect
            self.gain = np.ones(3, np.float32)
        else:
            n = max(self._learned_frames, 1)
            self.empty_rect = (self.empty_rect * n + rect) / (n + 1)
        self.empty_profile = self._profiles_from_rect(self.model, self.empty_rect)
        self.hands.set_empty(self._warp_empty_ring(self.empty_rect))
        self.hands.learn_far(frame)

    def _drift(self, profile: np.ndarray, fits: dict[str, np.ndarray]) -> None:
        """Follow slow light changes: how much brighter or darker (per channel) the bare board
        looks now than in the empty-board model, measured on the strip samples that show bare
        board and followed slowly. The classifier sees the empty model times this gain, so an
        evening's fading daylight does not turn the whole board into "changed"."""
        assert self.empty_profile is not None and self.model is not None
        board = fits["board_mask"]
        if int(board.sum()) < MIN_DRIFT_SAMPLES:
            return
        now = np.median(profile[board] / np.maximum(self.empty_profile[board], 1.0), axis=0)
        self.gain = ((1 - DRIFT_RATE) * self.gain + DRIFT_RATE * now).astype(np.float32)

    # -- squares -----------------------------------------------------------------------------------
    def classify_views(
        self, frame: np.ndarray, views: SquareViews
    ) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray]:
        """`views`' samples of `frame`, read against the empty-board model under the light and
        LEDs of the frame being (or last) read, and the classifier's P(kind), P(height) for them
        (`classify`). The reader's own views on every frame; other views (moved off the squares'
        centres: bench/vision_centring.py) of the same frame alike."""
        assert self.net is not None
        samples, features = self.view_features(frame, views)
        p_kind, p_height = classify(self.net, features)
        # the hand gate's stack claims are made of the pair's own calls: the stack net was never
        # shown a hand, and where it reads one as a taller stack the claim would excuse the arm
        # (bench seed 1, frame 25/9 on a first try)
        self.pair_calls = (p_kind, p_height)
        if self.stack_net is not None:
            p_kind, p_height = with_stack_net(self.stack_net, features, p_kind, p_height)
        return samples, p_kind, p_height

    def view_features(
        self, frame: np.ndarray, views: SquareViews
    ) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
        """`views`' samples of `frame` against the empty-board model (`classify_views`), and
        the classifier's input made of them [S, N_FEATURES]."""
        assert self._empty_rect_now is not None
        pf, pe, vf, ve, ef = views.sample(frame, self._empty_rect_now)
        samples = (pf, self._in_light(pe), vf, self._in_light(ve), ef)  # (views keep pe, ve)
        return samples, views.features(samples, self._lit)

    def _in_light(self, empty_samples: np.ndarray) -> np.ndarray:
        """Empty-board samples [..., 3] (BGR) times the light's gain now, per channel. Flat,
        against the gain repeated along them: numpy's broadcast over a last axis of three costs
        three times as much (0.35 against 0.1 ms for the plane grid of 8x8)."""
        n = empty_samples.size
        repeated = self._gain_repeated
        if len(repeated) < n or not np.array_equal(repeated[:3], self.gain):
            repeated = self._gain_repeated = np.tile(self.gain, n // 3)
        return (empty_samples.reshape(-1) * repeated[:n]).reshape(empty_samples.shape)

    def _classify_squares(self, frame: np.ndarray) -> dict[str, np.ndarray]:
        """Every square through the classifier; the top colour sampled where it says the top is."""
        assert self.views is not None and self.model is not None
        samples, p_kind, p_height = self.classify_views(frame, self.views)
        S = len(self.views.names)
        rows = np.arange(S)
        p_empty = p_kind[:, 0]
        empty = p_empty >= 0.5
        kind_p = p_kind[:, 1:] / np.maximum(1 - p_empty, 1e-6)[:, None]  # given occupied
        kind_i, height, tops = _top_calls(p_kind, p_height)
        kind = np.array([KINDS[k] for k in kind_i], dtype=object)
        grey, wood = self._board_tone()
        top_col = _top_colours(samples, kind, height, grey, wood)
        upward = _upward_faces(samples, kind, height, grey, wood)
        # the hand gate's claims: the pair's own tops (`classify_views`), these where the stack
        # net changed nothing
        assert self.pair_calls is not None
        pair_kind, pair_height = self.pair_calls
        claims = tops if pair_kind is p_kind else _top_calls(pair_kind, pair_height)[2]
        decided = {
            "empty": empty,
            "kind": np.where(empty, None, kind).astype(object),
            "height": np.where(empty, 0, height),
            "empty_conf": np.maximum(p_empty, 1 - p_empty),
            "kind_conf": kind_p[rows, kind_i - 1],
            "height_conf": p_height[rows, height - 1],
            "kind_p": kind_p,  # given occupied
            "height_p": p_height,
            "top_col": top_col,
            "upward_col": upward,
            "top_z": np.where(empty, 0.0, tops),
            "claim_z": np.where(empty, 0.0, claims),
            # where a stack starts on its strip: the front edge of a centred piece, a little
            # forward (pieces sit off centre)
            "base_t": np.full(S, -0.45),
            # the board-plane grid of the views (height 0): the footprints of the signatures
            "ground": samples[0][:, 0],
        }
        decided["board_mask"] = _board_mask(self.model, decided)
        return decided

    def _board_tone(self) -> tuple[float, np.ndarray]:
        """The empty board inside the grid: its median brightness (colours are taken relative to
        the light on the board there) and its median BGR (what glare is told from light by)."""
        assert self._empty_rect_now is not None and self.pose is not None
        rect = self._empty_rect_now
        if self._tone_cache[0] is not rect:  # the array itself: an id() can be reused
            ppp, m, n = EMPTY_PX_PER_PITCH, EMPTY_MARGIN, self.pose.size
            a, b = round(m * ppp), round((m + n) * ppp)
            grid = rect[a:b, a:b]
            grey = max(float(np.median(grid.mean(axis=2))), 1.0)
            colour = np.median(grid.reshape(-1, 3), axis=0).astype(np.float64)
            self._tone_cache = (rect, grey, colour)
        return self._tone_cache[1], self._tone_cache[2]


# loaded once per process, on first use (a reader per camera shares them)
_default_net = functools.cache(Ensemble.load)
_default_calibration = functools.cache(Calibration.load)
_mirror = functools.cache(mirror_index)
MIRROR_BELOW = 0.95  # a square the classifier is less sure of is read mirrored too
_default_stack_net = functools.cache(StackNet.load)
# The stack net reads a square the pair takes for occupied (at least this likely) and is less
# sure of than this of its kind or its height: squares it is surer of gain next to nothing from
# it, and each square read costs about 0.3 ms. On 91,419 occupied squares neither had been
# trained on, reading it on all of them: kinds wrong 1,132 -> 674, heights right 87.14 ->
# 88.02 %; only where the pair gave the kind under 0.99 or the height under 0.7 (29 % of them):
# 675 and 87.96 %.
STACK_OCCUPIED_ABOVE = 0.1
STACK_KIND_BELOW = 0.99
STACK_HEIGHT_BELOW = 0.7


def classify(net: SquareNet | Ensemble, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Squares' views [S, N_FEATURES] -> (P(kind) [S, 4], P(height) [S, 8]), as the pair reads
    them (the reader then averages the stack net in: `with_stack_net`). A square and its mirror
    image across the line of sight look alike to the camera (the training symmetry): where the
    classifier is unsure, it reads the mirrored view too and the two are averaged (bench: +0.13
    points of squares, +0.16 of heights, ~0.2 ms)."""
    p_kind, p_height = net.predict(features)
    unsure = np.flatnonzero(
        (p_kind.max(axis=1) < MIRROR_BELOW) | (p_height.max(axis=1) < MIRROR_BELOW)
    )
    if len(unsure):
        mk, mh = net.predict(features[unsure][:, _mirror()])
        p_kind[unsure] = (p_kind[unsure] + mk) / 2
        p_height[unsure] = (p_height[unsure] + mh) / 2
    return p_kind, p_height


def with_stack_net(
    stack_net: StackNet, features: np.ndarray, p_kind: np.ndarray, p_height: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The pair's P(kind), P(height) (`classify`) with the stack net's kind (given occupied) and
    height averaged in on the squares the pair takes for occupied and is not sure of
    (`STACK_*`; session 34: on squares neither was trained on, a third fewer kinds wrong than the
    pair alone). Whether a square is empty stays the pair's. New arrays where any square was
    asked; the ones given, untouched, where none was."""
    occupied = 1.0 - p_kind[:, 0]
    given = p_kind[:, 1:] / np.maximum(occupied, 1e-6)[:, None]
    ask = np.flatnonzero((occupied > STACK_OCCUPIED_ABOVE) & (
        (given.max(axis=1) < STACK_KIND_BELOW) | (p_height.max(axis=1) < STACK_HEIGHT_BELOW)))
    if not len(ask):
        return p_kind, p_height
    sk, sh = stack_net.predict(features[ask])
    p_kind, p_height = p_kind.copy(), p_height.copy()
    p_kind[ask, 1:] = occupied[ask, None] * (given[ask] + sk) / 2
    p_height[ask] = (p_height[ask] + sh) / 2
    return p_kind, p_height


def _square_readings(
    names: list[str], fits: dict[str, np.ndarray], occupied: list[int], labels: list[str],
    color_conf: np.ndarray,
) -> dict[str, SquareReading]:
    """Every square's reading from the fits (`_classify_squares`, confidences calibrated) and the
    occupied squares' colours. (Arrays are turned into lists once: element by element, numpy's
    scalars cost more than the readings.)"""
    kind_p = _with_calls_at(fits["kind_p"], fits["kind_conf"]).tolist()
    height_p = _with_calls_at(fits["height_p"], fits["height_conf"]).tolist()
    # an empty square's kind is the kind it would be, should a piece be there after all (tracking
    # offers a piece half seen as that kind); on a bare square, noise
    lean_p = fits["kind_p"] / np.maximum(fits["kind_p"].sum(axis=1, keepdims=True), 1e-12)
    lean = lean_p.tolist()
    empty, kinds, heights = (fits[k].tolist() for k in ("empty", "kind", "height"))
    empty_conf, kind_conf, height_conf = (
        fits[k].tolist() for k in ("empty_conf", "kind_conf", "height_conf"))
    label_of = dict(zip(occupied, labels, strict=True))
    conf_of = dict(zip(occupied, np.asarray(color_conf).tolist(), strict=True))
    squares: dict[str, SquareReading] = {}
    for s, name in enumerate(names):
        ec = empty_conf[s]
        if empty[s]:
            squares[name] = SquareReading(True, confidence=ec, empty_confidence=ec,
                                          kind_probabilities=tuple(lean[s]))  # fmt: skip
            continue
        kc, hc, cc = kind_conf[s], height_conf[s], conf_of[s]
        squares[name] = SquareReading(
            False, label_of[s], str(kinds[s]), int(heights[s]),
            confidence=min(ec, kc, hc, cc), empty_confidence=ec, color_confidence=cc,
            kind_confidence=kc, height_confidence=hc, kind_probabilities=tuple(kind_p[s]),
            height_probabilities=tuple(height_p[s]),
        )  # fmt: skip
    return squares


def _dark_or_blank(small: np.ndarray) -> bool:
    """A frame (shrunk) too dark, or too even, to hold a board: a covered lens, a dead camera."""
    mean, spread = cv2.meanStdDev(small)  # per channel, far quicker than numpy's (0.01 ms)
    overall = float(mean.mean())
    deviation = float(np.sqrt(max(float((spread**2 + mean**2).mean()) - overall**2, 0.0)))
    return overall < 12 or deviation < 3


def _with_calls_at(p: np.ndarray, confidence: np.ndarray) -> np.ndarray:
    """[S, K] the classifier's distributions `p`, each with its call (its most likely entry) at
    the (calibrated) `confidence` [S] and the rest shared as the classifier shares it: what the
    reading says, and which answer it leans to next. (Calibration only knows how far the call
    itself is to be trusted.) No other answer is made likelier than the call: where calibration
    lowered the call below a runner-up's share, the runner-up is held at the call's and the rest
    goes to the others. All squares at once: it runs on every frame."""
    S, K = p.shape
    rows, call = np.arange(S), p.argmax(axis=1)
    c = np.asarray(confidence, np.float64)[:, None]
    rest = p.astype(np.float64)
    rest[rows, call] = 0.0
    total = rest.sum(axis=1, keepdims=True)
    even = np.full((S, K), 1.0 / (K - 1))
    rest = np.where(total > 1e-9, rest / np.maximum(total, 1e-12), even)
    rest[rows, call] = 0.0
    others = np.minimum(rest * (1.0 - c), c)
    room = c - others
    room[rows, call] = 0.0
    left = 1.0 - c[:, 0] - others.sum(axis=1)
    space = room.sum(axis=1)
    fill = np.minimum(1.0, left / np.maximum(space, 1e-12))
    share = np.where((left > 0) & (space > 0), fill, 0.0)
    out = others + room * share[:, None]
    out[rows, call] = c[:, 0]
    # (float32, as stored in a readings file: a replay then sees what the live tracker saw)
    return (out / out.sum(axis=1, keepdims=True)).astype(np.float32)


def _top_colours(
    samples: tuple[np.ndarray, ...], kind: np.ndarray, height: np.ndarray, board_grey: float,
    board_colour: np.ndarray | None = None,
) -> np.ndarray:
    """[S, 3] colour of each square's top piece, relative to the light on the board there.

    Taken from the plane grid at the height of the top: a flat's top face (3 x 3 samples about
    the centre), a wall's or capstone's body a little above its foot (the 3 samples on the radial
    line; for a wall the 3 across it instead when their ends look more like their centre: a wall
    standing across the line of sight is thin along it, and seen from above two of the three
    radial samples fell on the board beside it)."""
    pf, pe = samples[0], samples[1]
    S = len(kind)
    is_flat = kind == "flat"
    above_foot = np.where(is_flat, 1, np.where(kind == "wall", 2, 3))
    z = np.minimum(height.astype(int) - 1 + above_foot, len(PLANE_HEIGHTS) - 1)
    rows = np.arange(S)
    f = pf[rows, z, 4:7, 4:7]  # [S, 3 along r, 3 across, BGR]
    e = pe[rows, z, 4:7, 4:7]
    colour = _unlit(f, e, board_grey, board_colour)
    # (medians of an odd count: the middle of the sorted samples, as np.median gives them at
    # a fraction of its cost on such short axes)
    face = np.sort(colour.reshape(S, 9, 3), axis=1)[:, 4]
    # a wall is thin: its line of samples is the one along it (the radial line, or across it),
    # the one whose ends look like its centre; across it the ends show the board beside it
    along, across = colour[:, :, 1], colour[:, 1, :]  # [S, 3, BGR]

    def spread(line: np.ndarray) -> np.ndarray:  # how unlike its centre a line's ends look
        ends, centre = np.maximum(line[:, [0, 2]], 1.0), np.maximum(line[:, 1:2], 1.0)
        return np.abs(np.log(ends / centre)).sum(axis=(1, 2))

    wall_across = (kind == "wall") & (spread(across) < spread(along))  # a capstone is round
    line = np.where(wall_across[:, None, None], across, along)
    body = np.sort(line, axis=1)[:, 1]
    return np.where(is_flat[:, None], face, body).astype(np.float32)


CLIPPED = 245.0  # a channel this bright may be clipped: no use for telling glare from light
GLARE_MIN = 10.0  # grey levels: less glare than this is left in (the fit's own noise)
GLARE_MAX = 0.6  # at most this share of the empty board's brightness is taken for glare
MIN_CHROMA = 8.0  # grey levels: a board about this grey cannot tell glare from light


def _unlit(
    f: np.ndarray, e: np.ndarray, board_grey: float, board_colour: np.ndarray | None
) -> np.ndarray:
    """Frame samples f [..., 3] relative to the light that falls there, from the empty board's
    samples e [..., 3] along the same rays (1 = the board's median brightness, `board_grey`).

    Light multiplies, glare adds: a lamp reflected in the varnish lays the same white over the
    wood and over a piece. Divided out as if it were light, glare turned dark flats under it
    light, frame after frame (600 bench frames, seed 1: 17 colours wrong of 43). With the
    board's colour (`board_colour`, BGR: wood is never grey) each empty-board sample is fitted
    as `a * board_colour + g` over its unclipped channels: a is the light, g the glare, which
    is taken off the frame's sample before it is divided by the light. A grey board, or too
    few unclipped channels, leaves glare in, as does a fit of less than GLARE_MIN."""
    if board_colour is None:
        light = np.maximum(e.sum(axis=-1) / (3 * board_grey), 0.05)
        return f / light[..., None]
    glare = glare_of(e, board_colour)
    light = np.maximum((e.mean(axis=-1) - glare) / board_grey, 0.05)
    return np.maximum(f - glare[..., None], 0.0) / light[..., None]


def glare_of(e: np.ndarray, board_colour: np.ndarray) -> np.ndarray:
    """The glare (grey levels, added to every channel) in empty-board samples e [..., 3] of a
    board whose colour is `board_colour` (BGR): each sample fitted as `a * board_colour + g`
    over its unclipped channels (`_unlit`); 0 where the fit cannot tell (a grey board, too few
    unclipped channels) or finds less than GLARE_MIN, and at most GLARE_MAX of the sample's
    brightness."""
    use = ((e < CLIPPED) & (board_colour < CLIPPED)).astype(np.float64)  # [..., 3]
    n = np.maximum(use.sum(axis=-1), 1e-9)
    b_mean = (use * board_colour).sum(axis=-1) / n
    e_mean = (use * e).sum(axis=-1) / n
    b_centred = (board_colour - b_mean[..., None]) * use
    chroma = (b_centred**2).sum(axis=-1)
    a = (b_centred * (e - e_mean[..., None])).sum(axis=-1) / np.maximum(chroma, 1e-9)
    glare = e_mean - a * b_mean
    fitted = (use.sum(axis=-1) >= 2) & (chroma >= MIN_CHROMA**2) & (glare >= GLARE_MIN)
    return np.where(fitted, np.minimum(glare, GLARE_MAX * e.mean(axis=-1)), 0.0)


UPWARD_FACE_Z = 5  # planes (0.75 pitch) above a piece's foot: a wall's top edge (at 0.7, just
# under: a ray through the square's centre there lands on the edge at any tilt up to 40 degrees);
# a capstone's top (at 0.8, just above: the ray passes into its top face)


def _upward_faces(
    samples: tuple[np.ndarray, ...], kind: np.ndarray, height: np.ndarray, board_grey: float,
    board_colour: np.ndarray,
) -> np.ndarray:
    """[S, 3] colour of each wall's top edge and capstone's top, relative to the light there
    (as `_top_colours`), NaN for other squares and where the plane grid does not reach it.

    The one sample at the square's centre: a wall's edge is 0.15 pitch wide, about one grid
    step, and stands whichever way the wall was turned (sampled as the median of the 3 x 3 about
    the centre, 118 of 2,253 walls' and capstones' colours came out wrong; the centre alone, 30)."""
    pf, pe = samples[0], samples[1]
    S = len(kind)
    z = height.astype(int) - 1 + UPWARD_FACE_Z
    tall = ((kind == "wall") | (kind == "cap")) & (z < len(PLANE_HEIGHTS))
    out = np.full((S, 3), np.nan, dtype=np.float32)
    rows = np.flatnonzero(tall)
    if len(rows):
        f = pf[rows, z[rows], 5, 5]
        e = pe[rows, z[rows], 5, 5]
        out[rows] = _unlit(f, e, board_grey, board_colour)
    return out


def _claims(
    model: SquareModel, decided: dict[str, np.ndarray], extra: float = 0.0
) -> list[tuple[int, float, float, float]]:
    """Per occupied square: (index, t_from, t_to) of the board-plane band it covers in the image,
    and the height of its top (pitches: how far its shadow may reach).

    `extra`: treat every stack as this much taller (the hand gate must not take a stack that was
    read a layer or two too low for an arm)."""
    out = []
    for s in range(len(model.names)):
        if decided["empty"][s]:
            continue
        z = float(decided["claim_z"][s]) + extra
        out.append((s, float(decided["base_t"][s]), model.top_extent(s, z), z))
    return out


def _top_calls(p_kind: np.ndarray, p_height: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each square's called kind (its index in KINDS) and height, and the height its top stands
    at (`top_z`), as if occupied: ([S], [S], [S])."""
    kind_i = p_kind[:, 1:].argmax(axis=1) + 1  # (the same as given occupied)
    height = p_height.argmax(axis=1) + 1
    tops = np.array([top_z(KINDS[k], h) for k, h in zip(kind_i, height, strict=True)])
    return kind_i, height, tops


def _board_mask(model: SquareModel, decided: dict[str, np.ndarray]) -> np.ndarray:
    """[S, T] bool: samples that show the bare board (for the drift update)."""
    t = model.t
    mask = np.ones((len(model.names), model.T), dtype=bool)
    for s in range(len(model.names)):
        if decided["empty"][s]:
            mask[s] &= t <= 0.45
        else:
            mask[s] &= t < decided["base_t"][s] - 0.03
    return mask

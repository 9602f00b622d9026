"""What a reading says about each square, as probabilities to average and score.

vision reports, per square, a best guess plus confidences (`vision.reading.SquareReading`). Tracking
turns each guess into soft evidence:

    p_occupied      probability the square holds at least one piece
    p_light         probability the top piece is light (player 1), given the square is occupied
    p_kind          probabilities of the top piece being a flat / wall / capstone (on a square
                    read empty: what the reader leans to, should a piece be there after all)
    height          estimated stack height (pieces) and how much to trust it (0 = not at all)
    height_p        P(height = 1, 2, ... K), where the reader gave its whole belief; its last
                    entry is "K pieces or more" (vision's tallest class: it learns a stack of 10
                    as 8), so a stack taller than K, read right, reads K (`readable`)

A confidence c for a reported value v means "v with probability c"; the rest of the probability is
spread over the other values as the reader spread it, where it says (its kind and height
distributions), else evenly. Averaging these over the frames of a stable window gives the evidence
that inference scores every candidate ply against. Duck-typed on purpose: anything with vision's
attribute names works, so tracking never depends on how vision computes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

KINDS = ("flat", "wall", "cap")
WALL_CAP_DOUBT = 0.3  # share of a wall-or-capstone call that may be the other one


@dataclass(frozen=True)
class SquareEvidence:
    p_occupied: float
    p_light: float
    p_kind: tuple[float, float, float]  # flat, wall, cap
    height: float
    height_weight: float
    # P(height = 1, 2, ...) given occupied, where the reader gave its whole belief (scoring then
    # weighs every height by it, not only the call)
    height_p: tuple[float, ...] | None = None
    # per kind (flat, wall, cap): how sure the reader is of the kind it calls (its calibrated
    # confidence, no surer than its own probability), 0 for the kinds it does not call. Unlike
    # `p_kind` it carries no doubt between wall and capstone: it says when a call settles a
    # placement's kind (`TrackerConfig.kind_sure`)
    kind_sure: tuple[float, float, float] = (0.0, 0.0, 0.0)
    # the reader's call taken back (`unseen.UNREAD`): scoring then weighs nothing here either
    # way, as where there is no reading at all
    unread: bool = False

    @property
    def occupied(self) -> bool:
        return self.p_occupied >= 0.5

    def readable(self, height: int) -> int:
        """`height` as the reader can tell it: its tallest class stands for that many pieces or
        more, so a stack of 10 read right is read 8 (fresh bench seed 6173, 4x4: a stack of 9
        grown to 10, read 8 surely, was taken for a misread two pieces short, and the spread
        that built it was revised by hindsight into one that left it 7 high). Unchanged where
        the reader gave no distribution (its tallest is then not known)."""
        return height if self.height_p is None else min(height, len(self.height_p))

    def label(self) -> str:
        """Best guess as text: `.` empty, else height + L/D + S/C (like vision's diagrams)."""
        if not self.occupied:
            return "."
        kind = "".join(k for k, p in zip(("", "S", "C"), self.p_kind, strict=True)
                       if p == max(self.p_kind))[:1]
        return f"{round(self.height)}{'L' if self.p_light >= 0.5 else 'D'}{kind}"


# How far apart two frames may be on a square and still count as "the same reading".
SAME_TOP_MIN_CONFIDENCE = 0.6
HEIGHT_CHANGE = 2.0  # pieces: a smaller change in the reported height is not "the board changed"


def square_evidence(square) -> SquareEvidence:
    """One vision `SquareReading` (duck-typed) -> soft evidence."""
    empty_conf = _clip(getattr(square, "empty_confidence", square.confidence))
    whole = getattr(square, "kind_probabilities", None)
    if square.empty:
        # What the top would be if a piece is there after all: the reader's lean, where it gives
        # one, counted as far as the square may be occupied (`square_cost`), so a piece it half
        # saw is offered as the kind it saw (fresh bench seed 3144: a light capstone on light
        # wood, read empty at 0.5-0.9 and a capstone at 0.85-0.99, was asked about as a flat)
        lean = _standing_doubt([_clip(p) for p in whole]) if whole is not None else None
        return SquareEvidence(
            p_occupied=1.0 - empty_conf,
            p_light=0.5,
            p_kind=lean or (1 / 3, 1 / 3, 1 / 3),
            height=0.0,
            height_weight=0.0,
        )
    color_conf = _clip(getattr(square, "color_confidence", square.confidence))
    kind_conf = _clip(getattr(square, "kind_confidence", square.confidence))
    height_conf = _clip(getattr(square, "height_confidence", square.confidence))
    p_light = color_conf if square.color == "light" else 1.0 - color_conf
    if whole is not None:
        p_kind = [_clip(p) for p in whole]
    else:  # the call alone: the rest shared evenly
        rest = (1.0 - kind_conf) / 2
        p_kind = [kind_conf if k == square.kind else rest for k in KINDS]
    called = KINDS.index(square.kind) if square.kind in KINDS else None
    sure = min(kind_conf, p_kind[called]) if called is not None else 0.0
    return SquareEvidence(
        p_occupied=empty_conf,
        p_light=p_light,
        p_kind=_standing_doubt(p_kind),
        height=float(square.height),
        height_weight=height_conf,
        height_p=_heights(getattr(square, "height_probabilities", None)),
        kind_sure=tuple(sure if k == called else 0.0 for k in range(3)),  # type: ignore[arg-type]
    )


def _standing_doubt(p_kind: list[float]) -> tuple[float, float, float]:
    """A wall and a capstone are both tall and, seen from some angles, alike: a reader's call
    between the two is trusted only so far, so a doubtful one is asked about, never guessed."""
    flat, wall, cap = p_kind
    return (flat, wall * (1 - WALL_CAP_DOUBT) + cap * WALL_CAP_DOUBT,
            cap * (1 - WALL_CAP_DOUBT) + wall * WALL_CAP_DOUBT)  # fmt: skip


def board_evidence(reading) -> dict[str, SquareEvidence]:
    """A whole reading (vision `BoardReading`, duck-typed) -> evidence per square name."""
    return {name: square_evidence(sq) for name, sq in reading.squares.items()}


def average(frames: Iterable[Mapping[str, SquareEvidence]]) -> dict[str, SquareEvidence]:
    """Mean evidence over several frames (height weighted by its own confidence)."""
    frames = list(frames)
    if not frames:
        return {}
    out: dict[str, SquareEvidence] = {}
    for name in frames[0]:
        items = [frame[name] for frame in frames if name in frame]
        n = len(items)
        p_occ = sum(e.p_occupied for e in items) / n
        # Colour, kind and height only mean something on frames that saw a piece.
        seen = [e for e in items if e.p_occupied >= 0.5] or items
        m = len(seen)
        p_light = sum(e.p_light for e in seen) / m
        p_kind = tuple(sum(e.p_kind[i] for e in seen) / m for i in range(3))
        weight = sum(e.height_weight for e in seen)
        height = (
            sum(e.height * e.height_weight for e in seen) / weight
            if weight > 0
            else sum(e.height for e in seen) / m
        )
        whole = [e.height_p for e in seen if e.height_p is not None]
        height_p = (tuple(sum(col) / len(whole) for col in zip(*whole, strict=True))
                    if whole else None)  # fmt: skip
        # (a kind called on some frames only is as sure as its share of them)
        kind_sure = tuple(sum(e.kind_sure[i] for e in seen) / m for i in range(3))
        out[name] = SquareEvidence(p_occ, p_light, p_kind, height, weight / m,  # type: ignore[arg-type]
                                   height_p, kind_sure)  # type: ignore[arg-type]
    return out


def differs(a: SquareEvidence, b: SquareEvidence) -> bool:
    """Do two frames confidently disagree about a square? (used by the stability gate)

    Only confident disagreements count, so a flickering low-confidence guess does not hold the gate
    shut forever; a real change (a piece placed, a stack moved) is confident in both frames.
    """
    hi, lo = SAME_TOP_MIN_CONFIDENCE, 1 - SAME_TOP_MIN_CONFIDENCE
    if (a.p_occupied >= hi and b.p_occupied <= lo) or (a.p_occupied <= lo and b.p_occupied >= hi):
        return True
    if a.p_occupied < hi or b.p_occupied < hi:
        return False
    if (a.p_light >= hi and b.p_light <= lo) or (a.p_light <= lo and b.p_light >= hi):
        return True
    ka, kb = a.p_kind.index(max(a.p_kind)), b.p_kind.index(max(b.p_kind))
    if ka != kb and a.p_kind[ka] >= hi and b.p_kind[kb] >= hi:
        return True
    # Heights flicker by a piece between frames even on a still board (they are the hardest thing
    # to read), and every real ply happens under a hand, which the gate watches for anyway.
    return (
        abs(a.height - b.height) >= HEIGHT_CHANGE
        and a.height_weight >= hi
        and b.height_weight >= hi
    )


OCCUPANCY_FLIP = 0.8  # the reader this sure of a piece there and not there (in either order)
FLIP_MIN_CHANGE = 0.1  # ... and the square's look changed at least this much (`change.changes`)
FLIP_OVER_NOISE = 4.0  # ... and this many times the board's median change (`change.board_noise`)


def lost_sight(now: SquareEvidence | None, then: SquareEvidence | None) -> bool:
    """Did the reader read a piece on the square then, and no longer now?"""
    return now is not None and then is not None and then.p_occupied >= 0.5 > now.p_occupied


def occupancy_flipped(now: SquareEvidence, then: SquareEvidence) -> bool:
    """Is the reader sure a piece came to or went from the square between the two readings?"""
    came = min(now.p_occupied, 1 - then.p_occupied)
    went = min(1 - now.p_occupied, then.p_occupied)
    return max(came, went) >= OCCUPANCY_FLIP


def flipped_squares(
    now: Mapping[str, SquareEvidence], then: Mapping[str, SquareEvidence]
) -> set[str]:
    """The squares where the reader is sure a piece came or went between two boards' readings."""
    return {sq for sq, ev in now.items() if sq in then and occupancy_flipped(ev, then[sq])}


def _heights(p) -> tuple[float, ...] | None:
    """A reader's height distribution (normalised: a stored one may have lost a little)."""
    if p is None:
        return None
    clipped = [_clip(x) for x in p]
    total = sum(clipped)
    return tuple(x / total for x in clipped) if total > 0 else None


def _clip(value: float) -> float:
    return min(1.0, max(0.0, float(value)))

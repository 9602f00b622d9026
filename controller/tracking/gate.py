"""The stability gate: a reading is considered only once the board has been still for a while.

A frame passes the gate's first test when vision found the board and saw no hand and no motion
(`reading.clean`). The gate then waits until clean frames have agreed (no square confidently
changed)
for `hold_s` seconds; a hand in view, motion, a lost board or a confident change restarts the wait.
This is what keeps the intermediate states of a spread out: while a stack is being spread a hand is
over the board, and when it leaves for a moment in the middle, the half-spread board still has to
hold for `hold_s` before anything looks at it (and then it matches no legal ply: nothing commits).

Default `hold_s = 0.6` s: at 5 fps that is the first still frame plus three more that agree (the
anchors in the field notes are 0.5-1.0 s; 0.6 leaves room for a 1.0 s p95 latency budget).

Time is an argument (the reading's timestamp, in seconds), never a clock read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.tracking.change import CHANGED_ABOVE, changes, mean_signatures
from controller.tracking.evidence import SquareEvidence, average, board_evidence, differs

DEFAULT_HOLD_S = 0.6
# Appearance signatures are averaged over only the newest few frames: enough to take the sensor
# noise down, short enough that a change of light on a still board (LEDs lit after a commit) is
# soon part of the reference that the next ply is compared against.
APPEARANCE_FRAMES = 4


@dataclass
class StableReading:
    """Evidence averaged over the frames of a still window."""

    evidence: dict[str, SquareEvidence]
    since: float  # timestamp of the first frame of the window
    at: float  # timestamp of the latest frame
    frames: int
    fresh: bool  # True on the first frame the window counts as stable
    # a hand was over the board since the last stable window (a ply needs one; a change of light
    # or a nudge does not)
    after_hand: bool = False
    # ... or, with no hand flagged, something moved: a nudge, or a hand the hand gate missed (one
    # that only reaches the far edge: fresh bench seed 1881, tilt 40, a wall put on the far corner
    # with two frames of motion and none of a hand)
    after_motion: bool = False
    # mean appearance signature per square over the newest frames (None: the reader gives none)
    appearance: dict | None = None


@dataclass
class StabilityGate:
    hold_s: float = DEFAULT_HOLD_S
    max_frames: int = 15  # averaging window cap (the newest frames)
    _window: list[dict[str, SquareEvidence]] = field(default_factory=list)
    _looks: list = field(default_factory=list)  # appearance signatures of the same frames
    _since: float | None = None
    _announced: bool = False
    _hand_seen: bool = False  # since the last stable window was announced
    _motion_seen: bool = False  # likewise
    last_reason: str = ""

    def reset(self, reason: str) -> None:
        self._window.clear()
        self._looks.clear()
        self._since = None
        self._announced = False
        self.last_reason = reason

    def feed(self, reading, t: float) -> StableReading | None:
        """Take one frame's reading at time `t`; the stable evidence once it has held, else None."""
        self._hand_seen |= bool(reading.occluded)
        self._motion_seen |= bool(getattr(reading, "moving", False))
        if not reading.board_found or not reading.squares:
            self.reset("board not found")
            return None
        if reading.occluded:
            self.reset("hand over the board")
            return None
        if reading.moving:
            self.reset("motion")
            return None
        if getattr(reading, "relocalised", False):
            self.reset("camera moved")  # the frames before show the board from elsewhere
        evidence = board_evidence(reading)
        looks = getattr(reading, "appearance", None)
        if self._window:
            previous = self._window[-1]
            if evidence.keys() != previous.keys() or self._changed(evidence, looks):
                self.reset("board changed")
        if self._since is None:
            self._since = t
        self._window.append(evidence)
        del self._window[: -self.max_frames]
        self._looks.append(looks)
        del self._looks[:-APPEARANCE_FRAMES]
        if t - self._since + 1e-9 < self.hold_s:
            self.last_reason = "waiting for the board to hold still"
            return None
        fresh = not self._announced
        after_hand = fresh and self._hand_seen
        after_motion = fresh and self._motion_seen and not self._hand_seen
        if fresh:
            self._hand_seen = self._motion_seen = False
        self._announced = True
        self.last_reason = "stable"
        return StableReading(
            evidence=average(self._window),
            since=self._since,
            at=t,
            frames=len(self._window),
            fresh=fresh,
            after_hand=after_hand,
            after_motion=after_motion,
            appearance=mean_signatures(self._looks),
        )

    def _changed(self, evidence: dict[str, SquareEvidence], looks) -> bool:
        """Did the board change since the previous frame?

        With appearance signatures, by what the squares look like: the reader's answers may
        flicker on a square nobody touched (a flat read as a capstone one frame in three), which
        would hold the gate shut for as long as the flicker lasts. Without, by the reader's
        confident answers (`differs`).
        """
        before = self._looks[-1] if self._looks else None
        if looks is not None and before is not None:
            return max(changes(looks, before).values(), default=0.0) >= CHANGED_ABOVE
        previous = self._window[-1]
        return any(differs(evidence[name], previous[name]) for name in evidence)

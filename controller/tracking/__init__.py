"""Camera readings -> plies: stability gate, move inference, takeback, resync. Pure logic, no I/O.

    from controller.tracking import Tracker, Commit, Ask
    tracker = Tracker(Position(5))
    decisions = tracker.step(reading, t)      # reading: vision.reading.BoardReading, t: seconds

See `tracker.py` for how a board is judged and `gate.py` for when a board counts as still;
`change.py` and `by_change.py` score a board by what changed since the last one, and the
tracker's parts handle the boards no one ply fits: `held.py` (a spread under way), `pairs.py`
(two plies at once), `unseen.py` (a ply the camera did not see clearly), `revisions.py` (a
recent close call revised), `catch_up.py` (plies played on while the board was out of sync).
"""

from __future__ import annotations

from controller.tracking.decisions import (
    Ask,
    Candidate,
    Commit,
    Decision,
    Desync,
    GameOver,
    Illegal,
    PlayedOn,
    Resynced,
    Takeback,
    Withdrawn,
)
from controller.tracking.gate import DEFAULT_HOLD_S, StabilityGate, StableReading
from controller.tracking.tracker import Evaluation, Hypothesis, Tracker, TrackerConfig

__all__ = [
    "DEFAULT_HOLD_S",
    "Ask",
    "Candidate",
    "Commit",
    "Decision",
    "Desync",
    "Evaluation",
    "GameOver",
    "Hypothesis",
    "Illegal",
    "PlayedOn",
    "Resynced",
    "StabilityGate",
    "StableReading",
    "Takeback",
    "Tracker",
    "TrackerConfig",
    "Withdrawn",
]

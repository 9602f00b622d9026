"""Running figures for `/api/health`: camera fps, vision latency, link and journal status.

Fed by the pipeline as things happen (times come from the injected clock), read by the web layer.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


@dataclass
class CameraHealth:
    source: str = "none"
    state: str = "absent"  # absent | starting | ok | no_frames | retrying
    error: str = ""
    frames: int = 0
    last_frame_at: float | None = None
    _stamps: deque = field(default_factory=lambda: deque(maxlen=30))

    def frame(self, now: float) -> None:
        self.frames += 1
        self.last_frame_at = now
        self._stamps.append(now)
        self.state, self.error = "ok", ""

    def fps(self, now: float) -> float:
        recent = [t for t in self._stamps if now - t <= 5.0]
        if len(recent) < 2:
            return 0.0
        return (len(recent) - 1) / max(recent[-1] - recent[0], 1e-6)

    def as_dict(self, now: float) -> dict[str, Any]:
        age = None if self.last_frame_at is None else round(now - self.last_frame_at, 3)
        return {"source": self.source, "state": self.state, "error": self.error,
                "fps": round(self.fps(now), 2), "frames": self.frames, "last_frame_age_s": age}


@dataclass
class VisionHealth:
    board_found: bool = False
    occluded: bool = False
    reason: str = ""
    _latency_ms: deque = field(default_factory=lambda: deque(maxlen=50))

    def reading(self, latency_ms: float, board_found: bool, occluded: bool, reason: str) -> None:
        self._latency_ms.append(latency_ms)
        self.board_found, self.occluded, self.reason = board_found, occluded, reason

    def as_dict(self) -> dict[str, Any]:
        values = list(self._latency_ms)
        p50, p95 = _percentile(values, 0.5), _percentile(values, 0.95)
        return {"board_found": self.board_found, "occluded": self.occluded, "reason": self.reason,
                "latency_ms_p50": None if p50 is None else round(p50, 1),
                "latency_ms_p95": None if p95 is None else round(p95, 1)}


@dataclass
class LinkHealth:
    port: str = "none"
    state: str = "absent"  # absent | connecting | ready | lost
    firmware: str = ""
    error: str = ""
    frames_acked: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"port": self.port, "state": self.state, "firmware": self.firmware,
                "error": self.error, "frames_acked": self.frames_acked}


@dataclass
class JournalHealth:
    path: str = ""
    state: str = "ok"  # ok | error
    error: str = ""
    games: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "state": self.state, "error": self.error, "games": self.games}


@dataclass
class Health:
    camera: CameraHealth = field(default_factory=CameraHealth)
    vision: VisionHealth = field(default_factory=VisionHealth)
    link: LinkHealth = field(default_factory=LinkHealth)
    journal: JournalHealth = field(default_factory=JournalHealth)
    recording: str = "idle"  # idle | recording | paused (camera) | desync | over
    # what the camera's tracker is doing: none | resuming (after a restart, until the board shows
    # the journal's position) | tracking | asking | illegal | desync | over
    tracker: str = "none"

    def as_dict(self, now: float) -> dict[str, Any]:
        ok = (self.journal.state == "ok" and self.camera.state in ("ok", "absent")
              and self.link.state in ("ready", "absent"))
        return {"status": "ok" if ok else "degraded", "recording": self.recording,
                "tracker": self.tracker,
                "camera": self.camera.as_dict(now), "vision": self.vision.as_dict(),
                "link": self.link.as_dict(), "journal": self.journal.as_dict()}

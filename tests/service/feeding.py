"""A camera pipeline without a camera, and its tracker fed readings at the camera's frame rate,
in service tests."""

from __future__ import annotations

from pathlib import Path

from controller.service.camera import CameraPipeline
from controller.service.config import Settings
from controller.tracking import Tracker

FPS = 5


class Feeder:
    """`feed(reading, seconds)`: that reading, frame after frame, to `tracker`; -> its decisions."""

    def __init__(self, tracker: Tracker) -> None:
        self.tracker, self.t = tracker, 0.0

    def feed(self, reading, seconds: float) -> list:
        out = []
        for _ in range(round(seconds * FPS)):
            out += self.tracker.step(reading, self.t)
            self.t += 1 / FPS
        return out


class _StoppedClock:
    def monotonic(self) -> float:
        return 0.0


def idle_pipeline(data_dir: Path) -> CameraPipeline:
    """A `CameraPipeline` with no frame source and a clock that stands still: for driving its
    tracker by hand."""
    return CameraPipeline(lambda: None, settings=Settings(data_dir=data_dir), clock=_StoppedClock())

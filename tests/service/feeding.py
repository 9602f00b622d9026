"""Feeding a camera's tracker readings at the camera's frame rate, in service tests."""

from __future__ import annotations

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

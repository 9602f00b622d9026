"""Bug reports: the camera's last minute, kept as it was read, saved in one file, replayed anywhere.

When the board records a ply wrong, what a developer needs is what the camera read in the minute
before, and the game the tracker judged it against. The camera pipeline keeps both in a ring
(`CaptureRing`): every reading with its time and the game's position (TPS) at that moment, and a
JPEG of the view once a second. `write_capture` saves the ring as one zip a user can send:

    readings.npz    the readings (`vision.readings_file`, the benchmark's format)
    timeline.json   per reading its time (the service's clock, s) and the game's position (TPS),
                    the tracker's gate setting, and the plies the service recorded in the window
    game.ptn        the whole game as the service recorded it so far
    about.json      when, the user's note, the camera, the tracker's state
    frames/*.jpg    the camera's view, one frame a second over the last `FRAMES_KEPT` seconds

`replay_capture` gives the readings to a fresh tracker from the window's first position, frame by
frame at their times, as `takboard capture replay FILE` does: a bug seen once on a board becomes a
test anyone can run (the same readings give the same decisions; the tracker is pure logic).
"""

from __future__ import annotations

import io
import json
import re
import time
import zipfile
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.tak import Position
from controller.tracking import Decision, Tracker, TrackerConfig

CAPTURE_SECONDS = 60.0  # the readings kept: a minute covers a few plies and the lead-up to them
FRAME_EVERY_S = 1.0
FRAMES_KEPT = 15  # JPEGs (about 50 KB each at 960 px wide): enough to see what the hands did
JPEG_WIDTH = 960
NAME = re.compile(r"^capture-\d{8}-\d{6}(-\d+)?\.zip$")


@dataclass
class Moment:
    """One frame as the tracker was given it."""

    t: float  # the service's monotonic clock, seconds
    reading: Any  # vision.reading.BoardReading
    tps: str  # the game's position the reading was judged against


@dataclass
class CaptureRing:
    """The last `seconds` of readings, and a JPEG a second of the last `frames_kept` seconds."""

    seconds: float = CAPTURE_SECONDS
    frames_kept: int = FRAMES_KEPT
    moments: deque = field(default_factory=deque)
    jpegs: deque = field(default_factory=deque)  # (t, JPEG bytes)

    def add(self, t: float, reading, tps: str) -> None:
        if self.moments and self.moments[-1].reading.size != reading.size:
            self.moments.clear()  # another board size: one file holds one size
        self.moments.append(Moment(t, reading, tps))
        while self.moments and self.moments[0].t < t - self.seconds:
            self.moments.popleft()

    def snapshot(self) -> CaptureRing:
        """A copy that the ring's later additions do not touch (to write it in another thread)."""
        return CaptureRing(self.seconds, self.frames_kept, deque(self.moments), deque(self.jpegs))

    def wants_jpeg(self, t: float) -> bool:
        return not self.jpegs or t - self.jpegs[-1][0] >= FRAME_EVERY_S

    def add_jpeg(self, t: float, frame: np.ndarray) -> None:
        scale = min(1.0, JPEG_WIDTH / frame.shape[1])
        if scale < 1.0:
            frame = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if ok:
            self.jpegs.append((t, buf.tobytes()))
            while len(self.jpegs) > self.frames_kept:
                self.jpegs.popleft()


def capture_name(folder: Path, now: float) -> Path:
    """A new file name in `folder` from the wall clock (never from a request)."""
    stem = "capture-" + time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    path, n = folder / f"{stem}.zip", 1
    while path.exists():
        path, n = folder / f"{stem}-{n}.zip", n + 1
    return path


def write_capture(folder: Path, ring: CaptureRing, *, game_ptn: str, recorded: list[str],
                  about: dict[str, Any], hold_s: float, now: float) -> Path:  # fmt: skip
    """Save `ring` as a zip in `folder` (written to a temporary name, then renamed: a reader never
    sees half a file). ValueError when the camera has read nothing yet."""
    from vision.readings_file import save_readings

    moments = list(ring.moments)
    if not moments:
        raise ValueError("the camera has not read the board yet: nothing to capture")
    folder.mkdir(parents=True, exist_ok=True)
    path = capture_name(folder, now)
    readings = io.BytesIO()
    save_readings(readings, moments[0].reading.size, [m.reading for m in moments], recorded,
                  f"takboard capture {path.name}")  # fmt: skip
    start = moments[0].t
    # the service's clock as the tracker had it (not rounded, not shifted: the replay gives the
    # tracker the very same numbers, so a hold that ended on a frame ends on it again)
    timeline = {"times": [m.t for m in moments],
                "positions": [m.tps for m in moments], "hold_s": hold_s,
                "recorded": recorded}  # fmt: skip
    partial = path.with_suffix(".part")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("readings.npz", readings.getvalue())
        z.writestr("timeline.json", json.dumps(timeline))
        z.writestr("game.ptn", game_ptn)
        z.writestr("about.json", json.dumps(about, indent=1))
        for t, jpeg in ring.jpegs:
            if t >= start:  # (views from before the readings kept: another game's)
                z.writestr(f"frames/{t - start:07.1f}s.jpg", jpeg)
    partial.replace(path)
    return path


@dataclass
class Capture:
    """A capture file, read back."""

    size: int
    readings: list
    times: list[float]
    positions: list[str]
    hold_s: float
    recorded: list[str]
    about: dict[str, Any]


def load_capture(path: Path) -> Capture:
    """ValueError naming the file and what is wrong with it."""
    from vision.readings_file import load_readings

    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
            missing = {"readings.npz", "timeline.json", "about.json"} - names
            if missing:
                raise ValueError(f"no {', '.join(sorted(missing))} in it")
            size, readings, recorded = load_readings(io.BytesIO(z.read("readings.npz")))
            timeline = json.loads(z.read("timeline.json"))
            about = json.loads(z.read("about.json"))
    except (OSError, zipfile.BadZipFile, json.JSONDecodeError, KeyError, ValueError) as error:
        raise ValueError(f"{path}: not a takboard capture ({error})") from None
    times, positions = timeline.get("times", []), timeline.get("positions", [])
    if not (len(times) == len(positions) == len(readings)) or not readings:
        raise ValueError(f"{path}: not a takboard capture ({len(readings)} readings, "
                         f"{len(times)} times, {len(positions)} positions)")  # fmt: skip
    for i, tps in enumerate(dict.fromkeys(positions)):  # (each position once)
        try:
            Position.from_tps(tps)
        except (TypeError, ValueError) as bad:  # (TakError is a ValueError)
            raise ValueError(f"{path}: position {i + 1} of the capture is not a TPS ({bad})"
                             ) from None  # fmt: skip
    return Capture(size, readings, [float(t) for t in times], list(positions),
                   float(timeline.get("hold_s", TrackerConfig().hold_s)), recorded, about)


@dataclass
class Step:
    """One frame of a replay: what the tracker decided, and whether the service's game moved
    there by something other than the camera (an answer, a correction, a ply typed in)."""

    index: int
    t: float
    decisions: list[Decision]
    adopted: str | None = None  # the service's position, taken over at this frame


def replay_capture(capture: Capture) -> Iterator[Step]:
    """The capture's readings through a fresh tracker from its first position (which first waits
    for the board to show that position, as after a restart). Where the service's game changed
    and the tracker's did not follow (a question answered from the page, a correction), the
    tracker is started again from the service's position, as the service does on a resync."""
    config = TrackerConfig(hold_s=capture.hold_s)
    tracker = Tracker(Position.from_tps(capture.positions[0]), config, resume=True)
    for i, (reading, t, tps) in enumerate(zip(capture.readings, capture.times, capture.positions,
                                              strict=True)):  # fmt: skip
        adopted = None
        if i and tps != capture.positions[i - 1] and tps != tracker.position.tps():
            tracker = Tracker(Position.from_tps(tps), config)
            adopted = tps
        yield Step(i, t, tracker.step(reading, t), adopted)

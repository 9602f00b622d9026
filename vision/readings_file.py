"""Readings stored in a file: what the reader read, frame by frame, kept so that the tracker can be
given exactly the same readings again without rendering or reading a picture (a game takes a minute
to render and read; its readings replay in seconds).

One compressed .npz per game: per frame the reading's flags and confidence, per square its answers
and confidences (float64, as read), its appearance signature (the strip's bins float32, the
footprint float16, both as read) and, on occupied squares, the reader's distributions over kinds
and heights (on squares read empty, over kinds: its lean; float32, as read; files from before
footprints or distributions have none, and load without them), and, when the game's true plies
are known (a rendered game), those as PTN. Made by `bench/record.py --save-readings DIR` and by
the service's bug reports (`controller/service/capture.py`); replayed (`StoredReader`) by
`bench/replay.py`, `takboard capture replay` and the tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np

from vision.appearance import BINS, FOOTPRINT
from vision.geometry import square_name
from vision.net import MAX_HEIGHT
from vision.reading import BoardReading, SquareReading

COLORS = (None, "light", "dark")  # stored as their index
KINDS = (None, "flat", "wall", "cap")
FLAGS = ("board_found", "occluded", "moving", "relocalised")


class StoredReader:
    """A reader that gives back stored readings, one per frame, in order (the frame itself is
    not looked at): what a recorder, or the running board's camera pipeline, is given to replay
    a readings file. It has no pose: nothing is drawn over the frame."""

    pose = None

    def __init__(self, readings: Sequence[BoardReading], size: int | None = None) -> None:
        self.readings = iter(readings)
        self.size = size

    def read(self, frame, lit=None) -> BoardReading:
        """The next stored reading (`lit`, the LEDs lit, was already in the light read)."""
        return next(self.readings)


def _names(size: int) -> list[str]:
    return [square_name(f, r) for f in range(size) for r in range(size)]


def save_readings(path: Path | str | BinaryIO, size: int, readings: Sequence[BoardReading],
                  plies: Sequence[str], source: str) -> None:  # fmt: skip
    names = _names(size)
    F, S = len(readings), len(names)
    flags = np.zeros((F, len(FLAGS)), bool)
    confidence = np.zeros(F)
    # read (0: not read, 1: a piece, 2: empty), colour, kind, height
    answers = np.zeros((F, S, 4), np.int8)
    confidences = np.zeros((F, S, 5))
    looks = np.full((F, S, BINS, 3), np.nan, np.float32)
    # the footprints after the strips' bins (`vision.appearance`), where the reader gave them, on
    # the frames tracking compares (a hand's or motion's are never: half the file's size kept);
    # float16 holds the reader's values exactly
    footprints = np.full((F, S, FOOTPRINT**2, 3), np.nan, np.float16)
    # the reader's whole belief on occupied squares (kinds, heights 1..8), where it gave one, and
    # its lean over kinds on squares read empty
    kind_p = np.full((F, S, len(KINDS) - 1), np.nan, np.float32)
    height_p = np.full((F, S, MAX_HEIGHT), np.nan, np.float32)
    for i, r in enumerate(readings):
        flags[i] = [getattr(r, f) for f in FLAGS]
        confidence[i] = r.confidence
        for j, name in enumerate(names):
            sq = r.squares.get(name)
            if sq is not None:
                answers[i, j] = (1 + sq.empty, COLORS.index(sq.color), KINDS.index(sq.kind),
                                 sq.height)  # fmt: skip
                confidences[i, j] = (sq.confidence, sq.empty_confidence, sq.color_confidence,
                                     sq.kind_confidence, sq.height_confidence)  # fmt: skip
                if sq.kind_probabilities is not None:
                    kind_p[i, j] = sq.kind_probabilities
                if sq.height_probabilities is not None:
                    heights = sq.height_probabilities[:MAX_HEIGHT]
                    height_p[i, j, : len(heights)] = heights
            if r.appearance is not None and name in r.appearance:
                look = np.asarray(r.appearance[name])
                looks[i, j] = look[:BINS]
                if len(look) > BINS and r.clean:
                    footprints[i, j] = look[BINS:]
    extra = {} if np.isnan(footprints).all() else {"footprints": footprints}
    np.savez_compressed(path, size=size, flags=flags, confidence=confidence, answers=answers,
                        confidences=confidences, looks=looks, kind_p=kind_p, height_p=height_p,
                        plies=np.array(list(plies), str),
                        source=np.array(source), **extra)  # fmt: skip


def load_readings(path: Path | str | BinaryIO) -> tuple[int, list[BoardReading], list[str]]:
    """(board size, the readings frame by frame, the plies played as PTN). `path` may be an open
    binary file (a capture's `readings.npz`, read from its zip)."""
    try:
        with np.load(path) as stored:
            data = {key: stored[key] for key in stored.files}  # (each access would unzip again)
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: not a readings file ({error})") from error
    needed = {"size", "flags", "confidence", "answers", "confidences", "looks", "plies"}
    missing = needed - set(data)
    if missing:
        raise ValueError(f"{path}: not a readings file (no {', '.join(sorted(missing))})")
    size = int(data["size"])
    names = _names(size)
    # (files written before the readers gave whole distributions have none)
    kind_p, height_p = data.get("kind_p"), data.get("height_p")
    footprints = data.get("footprints")  # (and before the signatures had footprints, none)
    readings = []
    for i in range(len(data["flags"])):
        squares = {}
        appearance = {}
        for j, name in enumerate(names):
            read, color, kind, height = (int(v) for v in data["answers"][i, j])
            if read:
                c = [float(x) for x in data["confidences"][i, j]]
                squares[name] = SquareReading(
                    empty=read == 2, color=COLORS[color], kind=KINDS[kind], height=height,
                    confidence=c[0], empty_confidence=c[1], color_confidence=c[2],
                    kind_confidence=c[3], height_confidence=c[4],
                    kind_probabilities=_distribution(kind_p, i, j),
                    height_probabilities=_distribution(height_p, i, j),
                )  # fmt: skip
            look = data["looks"][i, j]
            if not np.isnan(look).any():
                if footprints is not None and not np.isnan(footprints[i, j]).any():
                    look = np.concatenate([look, footprints[i, j].astype(np.float32)])
                appearance[name] = look
        flags = dict(zip(FLAGS, (bool(f) for f in data["flags"][i]), strict=True))
        readings.append(BoardReading(size, confidence=float(data["confidence"][i]),
                                     squares=squares, appearance=appearance or None,
                                     **flags))  # fmt: skip
    return size, readings, [str(p) for p in data["plies"]]


def _distribution(stored: np.ndarray | None, frame: int, square: int) -> tuple[float, ...] | None:
    if stored is None or np.isnan(stored[frame, square]).all():
        return None
    return tuple(float(x) for x in stored[frame, square])

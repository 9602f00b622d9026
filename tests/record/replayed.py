"""Readings the real reader made of a rendered game, stored so a test can feed them to the tracker
again without rendering (a game takes a minute to render and read; its readings replay in
seconds, and give the tracker exactly what it was given then).

One .npz per game: per frame the reading's flags, per square its answers and confidences (float64,
as read) and its appearance signature (float32, as read); the game's true plies as PTN. Made by
`python tests/record/replayed.py SEED games/seedSEED.npz` (a bench game, rendered and read as
`bench/record.py` does: about half a minute). A reader or renderer change makes other readings:
the stored ones stay what they were, a fixed case for the tracker.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from controller.tracking.synthetic import square_names
from vision.appearance import BINS
from vision.reading import BoardReading, SquareReading

COLORS = (None, "light", "dark")
KINDS = (None, "flat", "wall", "cap")
FLAGS = ("board_found", "occluded", "moving", "relocalised")


def save_readings(path, size: int, readings: list[BoardReading], plies: list[str], source: str):
    names = square_names(size)
    F, S = len(readings), len(names)
    flags = np.zeros((F, len(FLAGS)), bool)
    confidence = np.zeros(F)
    answers = np.zeros((F, S, 4), np.int8)  # read (0/1), colour, kind, height
    confidences = np.zeros((F, S, 5))
    looks = np.full((F, S, BINS, 3), np.nan, np.float32)
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
            if r.appearance is not None and name in r.appearance:
                looks[i, j] = r.appearance[name]
    np.savez_compressed(path, size=size, flags=flags, confidence=confidence, answers=answers,
                        confidences=confidences, looks=looks, plies=np.array(plies),
                        source=np.array(source))  # fmt: skip


def load_readings(path: Path) -> tuple[int, list[BoardReading], list[str]]:
    """(board size, the readings frame by frame, the plies played)."""
    with np.load(path) as stored:
        data = {key: stored[key] for key in stored.files}  # (each access would unzip again)
        size = int(data["size"])
        names = square_names(size)
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
                    )  # fmt: skip
                look = data["looks"][i, j]
                if not np.isnan(look).any():
                    appearance[name] = look
            flags = dict(zip(FLAGS, (bool(f) for f in data["flags"][i]), strict=True))
            readings.append(BoardReading(size, confidence=float(data["confidence"][i]),
                                         squares=squares, appearance=appearance or None,
                                         **flags))  # fmt: skip
        return size, readings, [str(p) for p in data["plies"]]


def capture(seed: int, path: Path, fps: float = 5.0, quick: float = 0.0) -> None:
    """Render bench game `seed` as `bench/record.py` does (`quick`: its `--quick-replies`) and
    store what the reader read."""
    import random

    from controller.tracking.script import random_game, timeline
    from vision.reader import BoardReader
    from vision.sim import Hand, Scene, random_setup, render

    rng = random.Random(seed)  # the bench's draws, in its order
    size, length, tilt = rng.choice((4, 5, 6, 7)), rng.randint(20, 60), rng.uniform(0.0, 40.0)
    truth = random_game(size, length, rng)
    shots = list(timeline(size, truth, rng, fps=fps, quick_rate=quick))
    camera, look = random_setup(seed, size, tilt_deg=tilt)
    hand_rng = random.Random(seed * 7 + 1)
    skin = tuple(hand_rng.randint(40, 230) for _ in range(3))
    sleeve = tuple(hand_rng.randint(15, 240) for _ in range(3))
    reader = BoardReader(size)
    readings = []
    for k, shot in enumerate(shots):
        hands = [] if shot.hand is None else [
            Hand(tip=shot.hand.tip, from_side=shot.hand.side, height=shot.hand.height,
                 skin=skin, sleeve=sleeve)]  # fmt: skip
        scene = Scene(size, shot.stacks, hands=hands)
        readings.append(reader.read(render(scene, camera, look, seed=seed * 1000 + k, t=k / fps)))
    save_readings(path, size, readings, [p.ptn() for p in truth],
                  f"bench/record.py game seed {seed} (tilt {tilt:.1f}), {fps:g} fps")  # fmt: skip


if __name__ == "__main__":  # python tests/record/replayed.py SEED OUT.npz [QUICK_REPLIES]
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    quick = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    capture(int(sys.argv[1]), Path(sys.argv[2]), quick=quick)

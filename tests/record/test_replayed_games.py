"""Games the real reader read (rendered by the simulated camera, `tests/record/games/`), replayed
through the recorder: the tracker gets exactly the readings it got in the benchmark."""

from __future__ import annotations

from pathlib import Path

from replayed import load_readings

from controller.commands.record import Recorder
from controller.tak import Ply

GAMES = Path(__file__).parent / "games"
FPS = 5.0


class Replay:
    """A reader that gives back the stored readings, one per frame, in order."""

    def __init__(self, readings) -> None:
        self.readings = iter(readings)

    def read(self, frame):
        return next(self.readings)


def replay(name: str) -> tuple[Recorder, list[Ply]]:
    size, readings, plies = load_readings(GAMES / name)
    recorder = Recorder(size, Replay(readings))
    for k in range(len(readings)):
        recorder.feed(None, k / FPS)
    recorder.finish()
    return recorder, [Ply.from_ptn(p) for p in plies]


def test_a_close_call_revised_by_hindsight_is_not_revised_back_and_forth():
    # fresh bench seed 207 (5x5, tilt 1.0): a wall or capstone placed on d2 at ply 24 was asked
    # about; a later board fitted its ply better with the other reading, and then, weighed
    # differently, with the first again: Sd2 / Cd2 / Sd2 ... until the recorder's stack overflowed
    recorder, truth = replay("seed207.npz")
    recorded = [note.ply for note in recorder.notes]
    assert len(recorded) == len(truth) == 30
    silent = [i + 1 for i, (note, ply) in enumerate(zip(recorder.notes, truth, strict=True))
              if note.ply != ply and not note.uncertain]  # fmt: skip
    assert silent == []

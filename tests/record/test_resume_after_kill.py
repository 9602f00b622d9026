"""The recorder killed mid-game (SIGKILL, a real child process) and restarted from the journal.

The child records a scripted game from readings made from the true board (the tracker and the
journal are the parts under test here; the pictures are covered by the end-to-end tests). Killed
after a few plies, it is started again on the same frames with `resume`: it must wait for the board
to show the journal's position, then record the rest, so the journal ends with the whole game.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap

import pytest

from controller.store import Journal
from controller.tracking.script import random_game

SEED, SIZE, LENGTH = 11, 5, 16

CHILD = textwrap.dedent(
    f"""
    import random, sys
    from controller.commands.record import Recorder
    from controller.store import Journal
    from controller.tracking.script import random_game, timeline
    from controller.tracking.synthetic import hand_reading, noisy, scene_reading

    class ShotReader:
        def __init__(self):
            self.rng = random.Random(5)
        def read(self, shot):
            if shot.hand is not None:
                return hand_reading({SIZE})
            return noisy(scene_reading({SIZE}, shot.stacks), self.rng, misread=0.02)

    db, resume = sys.argv[1], sys.argv[2] == "resume"
    rng = random.Random({SEED})
    game = random_game({SIZE}, {LENGTH}, rng)
    journal = Journal(db)
    gid = journal.in_progress()[0].id if resume else journal.new_game(size={SIZE})
    recorder = Recorder({SIZE}, ShotReader(), journal=journal, game_id=gid)
    for k, shot in enumerate(timeline({SIZE}, game, rng)):
        for event in recorder.feed(shot, k / 5):
            print(type(event.decision).__name__, event.describe(), flush=True)
    print("end", flush=True)
    """
)


def _truth() -> list[str]:
    return [p.ptn() for p in random_game(SIZE, LENGTH, random.Random(SEED))]


@pytest.mark.slow
def test_recorder_killed_mid_game_resumes_from_the_journal(tmp_path):
    db = tmp_path / "takboard.db"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db), "new"],
                             stdout=subprocess.PIPE, text=True)  # fmt: skip
    commits = 0
    try:
        for line in child.stdout:
            commits += line.startswith(("Commit", "Ask"))
            if commits == 6:
                os.kill(child.pid, signal.SIGKILL)
                break
    finally:
        child.wait(timeout=30)
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    with Journal(db) as journal:
        (summary,) = journal.in_progress()
        kept = [e.ply.ptn() for e in journal.game(summary.id).plies]
    assert len(kept) >= 6 and kept == _truth()[: len(kept)]

    done = subprocess.run([sys.executable, "-c", CHILD, str(db), "resume"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    kinds = [line.split()[0] for line in done.stdout.splitlines()]
    assert kinds[0] == "Desync"  # the empty board at the start is not the journal's position
    assert "Resynced" in kinds and "Takeback" not in kinds
    first_commit = kinds.index("Commit") if "Commit" in kinds else len(kinds)
    assert kinds.index("Resynced") < first_commit
    with Journal(db) as journal:
        (summary,) = journal.games()
        assert [e.ply.ptn() for e in journal.game(summary.id).plies] == _truth()

"""A real child process appending plies is killed with SIGKILL at random points; nothing it reported
as committed may be lost, the file must stay consistent, and the game must resume on restart."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from controller.store import Journal

# The child: resume the game in progress (or start one), append random legal plies forever, and
# print each ply's number only after `append_ply` has returned (i.e. once it is durable). Each
# report is one write of a whole line: with PYTHONUNBUFFERED set (as on CI machines) `print` writes
# its pieces one by one, and a kill between them once left half a line for the parent to read.
CHILD = textwrap.dedent(
    """
    import random, sys
    from controller.store import Journal
    db, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    journal = Journal(db)
    games = journal.in_progress()
    gid = games[0].id if games else journal.new_game(size=6, players=("crash", "test"))
    position = journal.position(gid)
    def report(line):
        sys.stdout.write(line + "\\n")
        sys.stdout.flush()
    report(f"ready {gid} {position.ply_count}")
    while True:
        plies = list(position.legal_plies)
        if not plies:
            journal.finish(gid, position.outcome() or "0-0")
            report("over")
            break
        ply = rng.choice(plies)
        number = journal.append_ply(gid, ply)
        position.play(ply)
        report(f"{number} {ply.ptn()}")
    """
)


def run_child_until_killed(db, seed: int, kill_after: int, rng: random.Random):
    """Start the child, let it report `kill_after` committed plies, then SIGKILL it mid-append."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db), str(seed)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        ready = child.stdout.readline().split()
        assert ready[0] == "ready", ready
        reported: list[tuple[int, str]] = []
        for _ in range(kill_after):
            line = child.stdout.readline()
            if not line or line.startswith("over"):
                break
            number, ptn = line.split()
            reported.append((int(number), ptn))
        # kill at a random instant inside the next append (a few hundred microseconds to ms)
        spin = rng.randrange(0, 20000)
        while spin:
            spin -= 1
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
        assert child.returncode == -signal.SIGKILL
        # lines the child printed before dying but we had not read yet were reported too
        for line in child.stdout.read().splitlines():
            if line and not line.startswith("over"):
                number, ptn = line.split()
                reported.append((int(number), ptn))
        return int(ready[1]), int(ready[2]), reported
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_sigkill_mid_append_loses_no_committed_ply_and_the_game_resumes(tmp_path, seed):
    rng = random.Random(seed)
    db = tmp_path / "takboard.db"
    committed: list[str] = []
    game_id = None
    for round_ in range(4):
        gid, start_count, reported = run_child_until_killed(
            db, seed * 100 + round_, rng.randint(3, 25), rng
        )
        game_id = game_id or gid
        assert gid == game_id, "the restarted process resumes the same game"
        assert start_count >= len(committed), "a restart lost committed plies"
        with sqlite3.connect(db) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with Journal(db) as journal:
            stored = [e.ply.ptn() for e in journal.game(gid).plies]
            position = journal.position(gid)  # replays: every stored ply is legal, in order
        numbers = [n for n, _ in reported]
        assert numbers == list(range(start_count + 1, start_count + 1 + len(reported)))
        committed = stored[:start_count] + [p for _, p in reported]
        # everything reported is on disk; at most the one ply in flight may be there too
        assert stored[: len(committed)] == committed
        assert len(stored) - len(committed) in (0, 1)
        committed = stored
        assert position.ply_count == len(stored)
    assert len(committed) >= 4

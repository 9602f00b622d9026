"""`bench/record.py --quick-replies`: whole games in which some plies are answered at once (no still
board between the two), through the recorder, on the tracker's own readings (no pictures: seconds,
not minutes). Each pair must be found and recorded; none may be lost or written wrong unmarked."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from controller.tak import Ply
from controller.tracking.script import timeline

ROOT = Path(__file__).resolve().parents[2]


def test_quick_replies_drop_the_still_board_after_some_plies_never_two_in_a_row():
    plies = [Ply.from_ptn(p) for p in ["a1", "e5", "c3", "c2", "b3", "d3", "b2", "d2", "b4"]]
    shots = list(timeline(5, plies, random.Random(2), quick_rate=0.6))
    still_after = {s.done for s in shots if s.still}
    skipped = [n for n in range(1, len(plies)) if n not in still_after]
    assert skipped, "a share of 0.6 answers some plies at once"
    assert all(b - a > 1 for a, b in itertools.pairwise(skipped))
    assert len(plies) in still_after  # the last ply is always followed by a still board
    # 0: the seeded games are what they always were (no random draw made for it)
    assert list(timeline(5, plies, random.Random(2))) == list(
        timeline(5, plies, random.Random(2), quick_rate=0.0))


@pytest.mark.slow
def test_games_with_quick_replies_are_recorded_every_ply(tmp_path):
    out = tmp_path / "quick.json"
    done = subprocess.run(
        [sys.executable, "bench/record.py", "--reader", "synthetic", "--seed", "304", "--games",
         "2", "--quick-replies", "0.2", "--json", str(out)],
        capture_output=True, text=True, timeout=600, cwd=ROOT)  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    summary = result["summary"]
    assert summary["quick_replies"] == 0.2 and "answered at once" in done.stdout
    assert summary["plies_exact_pct"] == 100.0 and summary["silent_errors"] == 0
    assert summary["desyncs"] == 0

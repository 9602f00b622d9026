"""The engine's benchmark scripts run end to end (tiny budgets: the figures come from bench/)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=300, cwd=ROOT
    )


def test_match_script_plays_paired_openings_and_writes_its_score(tmp_path):
    out = tmp_path / "match.json"
    done = run(
        "bench/match.py", "--opponent", "random", "--games", "3", "--depth", "1", "--json", str(out)
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    assert result["games"] == 4  # rounded up to whole pairs: each opening with both colours
    assert result["wins"] + result["draws"] + result["losses"] == 4
    assert 0.0 <= result["ci95"][0] <= result["score"] <= result["ci95"][1] <= 1.0
    assert "4/4 games" in done.stderr  # the progress bar


def test_engine_speed_script_reports_every_position(tmp_path):
    out = tmp_path / "engine.json"
    done = run("bench/engine.py", "--time", "0.05", "--repeat", "1", "--json", str(out))
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text())["rows"]
    assert {r["position"] for r in rows} == {"5x5 a", "5x5 b", "6x6 a", "6x6 b"}
    assert all(r["nodes_per_s"] > 0 and r["depth"] >= 2 for r in rows)

"""`bench/record.py --save-readings` and `bench/replay.py`: a benchmark game's readings, stored,
replay through the recorder to exactly the game the benchmark recorded (the tracker is given
the same readings, frame for frame), and a replay run is compared with an earlier one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vision.readings_file import load_readings, save_readings

ROOT = Path(__file__).resolve().parents[2]
GAMES = Path(__file__).parent / "games"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=900,
                          cwd=ROOT)  # fmt: skip


@pytest.mark.slow
def test_a_game_replayed_from_its_saved_readings_is_recorded_as_the_benchmark_recorded_it(
    tmp_path,
):
    # bench seed 316: 4x4, 20 plies, tilt 32, rendered and read (about half a minute)
    bench = run("bench/record.py", "--seed", "316", "--games", "1", "--quiet",
                "--save-readings", str(tmp_path / "readings"), "--json", str(tmp_path / "b.json"))
    assert bench.returncode == 0, bench.stderr
    saved = tmp_path / "readings" / "seed316.npz"
    size, readings, plies = load_readings(saved)
    played = json.loads((tmp_path / "b.json").read_text())["games"][0]
    assert size == 4 and len(plies) == played["plies"] == 20 and len(readings) == played["frames"]

    replay = run("bench/replay.py", str(saved), "--json", str(tmp_path / "r.json"))
    assert replay.returncode == 0, replay.stderr
    replayed = next(iter(json.loads((tmp_path / "r.json").read_text())["games"].values()))
    for figure in ("recorded", "exact", "unsure", "silent_errors", "illegal_reports", "desyncs",
                   "first_error"):  # fmt: skip
        assert replayed[figure] == played[figure], figure


def test_a_replay_run_lists_the_games_whose_figures_changed_since_an_earlier_run(tmp_path):
    game = GAMES / "seed1565-start.npz"  # 21 plies, one asked about and wrong
    first = run("bench/replay.py", str(game), "--all", "--json", str(tmp_path / "before.json"))
    assert first.returncode == 0, first.stderr
    assert "seed1565-start.npz" in first.stdout and "20/21" in first.stdout
    summary = "replayed 1 games, 21 plies: 20 exact (95.24 %), 0 games perfect, 0 silent"
    assert summary in first.stdout

    same = run("bench/replay.py", str(game), "--against", str(tmp_path / "before.json"))
    assert "0 of 1 games changed" in same.stdout

    # the same readings with the true plies one shorter: the figures differ, and it is listed
    # (stored in another folder: the game is matched by its file name)
    size, readings, plies = load_readings(game)
    save_readings(tmp_path / "seed1565-start.npz", size, readings, plies[:-1], "test")
    changed = run("bench/replay.py", str(tmp_path / "seed1565-start.npz"),
                  "--against", str(tmp_path / "before.json"))  # fmt: skip
    assert changed.returncode == 0, changed.stderr
    assert "1 of 1 games changed" in changed.stdout
    assert "(20, 0, 3, 21) -> (19, 0, 3, 21)" in changed.stdout  # the 21st ply: one too many


def test_replay_says_what_is_wrong_with_a_path_or_a_file(tmp_path):
    missing = run("bench/replay.py", str(tmp_path / "nowhere"))
    assert missing.returncode != 0 and "nowhere: no such file or folder" in missing.stderr
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    junk = run("bench/replay.py", str(tmp_path / "junk.npz"))
    assert junk.returncode != 0 and "junk.npz: not a readings file" in junk.stderr
    assert "Traceback" not in junk.stderr


def test_a_replay_run_is_compared_with_the_games_as_bench_record_ran_them(tmp_path):
    game = GAMES / "seed1565-start.npz"
    size, readings, plies = load_readings(game)
    save_readings(tmp_path / "seed1565.npz", size, readings, plies, "test")
    # bench/record.py --json: a list of games by seed (as `--save-readings` names their files)
    ran = {"seed": 1565, "size": size, "plies": 21, "recorded": 21, "exact": 21, "unsure": 3,
           "silent_errors": 0, "first_error": ""}  # fmt: skip
    (tmp_path / "record.json").write_text(json.dumps({"summary": {}, "games": [ran]}))
    out = run("bench/replay.py", str(tmp_path / "seed1565.npz"),
              "--against", str(tmp_path / "record.json"))  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "1 of 1 games changed" in out.stdout and "(21, 0, 3, 21) -> (20, 0, 3, 21)" in out.stdout

    (tmp_path / "other.json").write_text(json.dumps({"games": [{"seed": 1}]}))
    bad = run("bench/replay.py", str(game), "--against", str(tmp_path / "other.json"))
    assert bad.returncode == 2 and "other.json: not a --json file" in bad.stderr


def test_the_count_questions_bench_says_which_share_of_the_heights_surprise_puts_them_right():
    # fresh bench seed 5063's first 473 frames: one count question, `4d1<22` against `4d1<13`
    # (and two more counts), tied on cost but for the reader's height probabilities
    game = GAMES / "seed5063-start.npz"
    out = run("bench/count_questions.py", str(game), "--shares", "0", "0.25")
    assert out.returncode == 0, out.stderr
    assert "1 games, 1 count questions, the ply played among the candidates in 1" in out.stdout
    rows = {line.split()[0]: line.split()[1] for line in out.stdout.splitlines()[2:]}
    assert rows == {"0.00": "0", "0.25": "1"}  # right first: without the surprise, and with it

    missing = run("bench/count_questions.py", str(GAMES / "no-such-game.npz"))
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr


def test_the_kind_questions_bench_says_how_the_stone_prior_would_order_them():
    # fresh bench seed 1481's first 205 frames: three kind questions, one of them (ply 14, a
    # wall the reader leaned to) ordered right only without the stones' prior
    out = run("bench/kind_questions.py", str(GAMES / "seed1481-start.npz"))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "1 games, 3 kind questions, the stone played among the candidates in 3"
    assert lines[1].split()[-3:] == ["2", "/", "3"]  # with the prior
    assert lines[2].split()[-3:] == ["3", "/", "3"]  # without: the tracker's order
    assert lines[3].strip() == ("seed1481-start.npz ply 14: played Sb4, first b4 with the prior, "
                                "Sb4 without")  # fmt: skip

    missing = run("bench/kind_questions.py", str(GAMES / "no-such-game.npz"))
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr

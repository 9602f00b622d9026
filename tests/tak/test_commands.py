"""`takboard perft`, `takboard check` and `takboard show` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from controller import cli

DATA = Path(__file__).resolve().parents[1] / "data" / "tak"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_perft_prints_the_count_on_the_last_line(capsys):
    code, out, _ = run(capsys, "perft", "--size", "4", "--depth", "3")
    assert code == 0 and out.splitlines()[-1] == "7440"


def test_perft_from_tps_with_divide(capsys):
    code, out, _ = run(capsys, "perft", "--depth", "2", "--divide", "--tps", "x3/x3/x3 1 1")
    lines = out.splitlines()
    assert code == 0 and lines[-1] == "72"
    assert len(lines) == 10 and all(line.endswith(" 8") for line in lines[:-1])


def test_perft_rejects_bad_tps_and_sizes(capsys):
    code, _, err = run(capsys, "perft", "--depth", "1", "--tps", "x3/x3 1 1")
    assert code == 2 and "TPS" in err
    code, _, err = run(capsys, "perft", "--depth", "1", "--size", "9")
    assert code == 2 and "board size 9" in err


def test_check_passes_good_files_and_exits_zero(capsys):
    files = [str(p) for p in sorted(DATA.glob("*.ptn")) if p.name != "corrupt.ptn"]
    code, out, err = run(capsys, "check", *files)
    assert code == 0
    assert out.count(": ok,") == 9
    assert "9 games checked, 0 failed" in err


def test_check_reports_each_failure_precisely_and_exits_one(capsys):
    code, out, _ = run(capsys, "check", str(DATA / "corrupt.ptn"))
    assert code == 1
    lines = out.splitlines()
    assert 'game 1: FAIL ply 7 "12d4-12": drops sum to 3 but count is 12' in lines[0]
    assert 'game 2: FAIL ply 10 "b4": played after the game was decided (R-0 at ply 9)' in lines[1]
    assert "game 3: FAIL recorded result F-0 but the board says the game is not over" in lines[2]
    assert "game 4: FAIL recorded result R-0" in lines[3]
    assert 'game 5: FAIL ply 5 "a1+": a1 is controlled by black' in lines[4]


def test_check_json_has_one_object_per_game_with_the_agreed_keys(capsys):
    code, out, _ = run(capsys, "check", "--json", str(DATA / "corrupt.ptn"), str(DATA / "komi.ptn"))
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and len(rows) == 7
    keys = {"index", "tags", "ok", "plies", "error", "error_ply", "result_recorded", "result_board"}
    assert all(keys <= set(row) for row in rows)
    first = rows[0]
    assert (first["index"], first["ok"], first["plies"], first["error_ply"]) == (1, False, 6, 7)
    assert first["tags"]["Player1"] == "p1"
    assert rows[1]["result_board"] == "R-0" and rows[1]["result_recorded"] == "R-0"
    assert rows[5] == {**rows[5], "ok": True, "error": None, "result_board": "1/2-1/2"}


def test_check_reads_playtak_game_rows(capsys):
    code, out, _ = run(capsys, "check", "--json", str(DATA / "playtak-rows.jsonl"))
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [r["ok"] for r in rows] == [True, False, True, False]
    assert rows[0]["tags"]["Player1"] == "Abacus" and rows[0]["result_board"] == "R-0"
    assert rows[1]["tags"]["Komi"] == "2"
    assert (
        rows[1]["error"] == 'ply 7 "M B1 B3 1 0": every drop must be at least 1 stone, got (1, 0)'
    )
    assert rows[3]["error"] == 'ply 6 "M D4 C4 1": c4 is a capstone: nothing moves onto it'


def test_check_a_bad_json_line_fails_that_game_only(tmp_path, capsys):
    path = tmp_path / "rows.jsonl"
    good = '{"size": 3, "notation": "P A1,P C3", "result": "", "komi": 0}'
    path.write_text(good + "\n{not json\n")
    code, out, _ = run(capsys, "check", "--json", str(path))
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and rows[0]["ok"] and not rows[1]["ok"] and "not JSON" in rows[1]["error"]


def test_check_missing_file_is_a_clear_error(capsys):
    code, _, err = run(capsys, "check", "no/such/file.ptn")
    assert code == 2 and "cannot read no/such/file.ptn" in err


def test_show_tps_prints_a_board(capsys):
    code, out, _ = run(capsys, "show", "x3/x,12S,x/2,x,1 1 4")
    assert code == 0
    assert "2 |      | 12S  |      |" in out
    assert "move 4, white (1) to move" in out


def test_show_a_game_at_a_ply(capsys):
    code, out, _ = run(capsys, "show", str(DATA / "dragon-clause.ptn"))
    assert code == 0 and "game over: 0-R" in out
    code, out, _ = run(capsys, "show", str(DATA / "komi.ptn"), "--game", "2", "--ply", "2")
    assert code == 0 and "after ply 2" in out and "1,x3/2,x3/x4/x4 1 2" in out


def test_show_stops_at_an_illegal_ply_and_says_so(capsys):
    code, out, err = run(capsys, "show", str(DATA / "corrupt.ptn"), "--game", "5")
    assert code == 1 and 'stopped before ply 5 "a1+"' in err
    assert "after ply 4" in out


def test_show_rejects_nonsense(capsys):
    code, _, err = run(capsys, "show", "nonsense")
    assert code == 2 and "neither a file nor a TPS" in err


def test_console_script_check_exit_status():
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "check", str(DATA / "corrupt.ptn")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and "5 failed" in done.stderr

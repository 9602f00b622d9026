"""bench/vision.py end to end on a few frames: the reliability table, the calibration fit and the
fit of the classifier's shared basis."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.vision import bench_installations
from vision.calibration import FEATURES, Calibration

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "bench/vision.py", *args],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip


def test_bench_reports_a_reliability_table_per_attribute(tmp_path):
    out = tmp_path / "vision.json"
    done = run("--frames", "4", "--json", str(out))
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text())
    rel = figures["reliability"]
    assert set(rel) == {"empty", "color", "kind", "height"}
    # the bump at the end is noticed, and its read timed (the best of three readers' reads)
    assert figures["bumps_noticed"] == "1/1" and figures["relocalise_ms_max"] > 0
    for table in rel.values():
        assert sum(b["calls"] for b in table["buckets"]) == table["calls"]
        for bucket in table["buckets"]:
            assert bucket["from"] <= bucket["mean_confidence"] <= bucket["to"]
            assert 0.0 <= bucket["accuracy"] <= 1.0
    assert "confidence reliability" in done.stdout


def test_calibration_fit_writes_a_loadable_table_and_refuses_the_bench_seed(tmp_path):
    out = tmp_path / "cal.json"
    done = run("--fit-calibration", str(out), "--frames", "6", "--seeds", "5")
    assert done.returncode == 0, done.stderr
    table = Calibration.load(out)
    assert all(len(c) == len(FEATURES) for c in table.coef.values())
    assert "--seeds 5" in table.source
    refused = run("--fit-calibration", str(out), "--frames", "6", "--seeds", "1")
    assert refused.returncode == 2 and "bench seed" in refused.stderr


def test_basis_fit_writes_a_basis_the_reader_takes_and_refuses_the_bench_seed(tmp_path):
    from vision.net import MEMBERS, Ensemble

    out = tmp_path / "basis.npz"
    done = run("--fit-basis", str(out), "--frames", "6", "--seeds", "6", "--rank", "24")
    assert done.returncode == 0, done.stderr
    assert "keeps" in done.stdout and "calls changed" in done.stdout
    basis = Ensemble.load(MEMBERS, basis=out).basis  # fitted to the shipped nets: no warning
    assert basis is not None and basis.shape == (24, 256)
    refused = run("--fit-basis", str(out), "--frames", "6", "--seeds", "1")
    assert refused.returncode == 2 and "bench seed" in refused.stderr


def test_centring_study_reads_the_bench_s_frames_its_shipped_row_the_bench_s_figure(tmp_path):
    """bench/vision_centring.py draws the same frames as bench/vision.py (`bench_installations`)
    and reads them with the same reader: its "shipped" heights are the benchmark's own."""
    bench, study = tmp_path / "bench.json", tmp_path / "study.json"
    done = run("--frames", "20", "--json", str(bench))
    assert done.returncode == 0, done.stderr
    done = subprocess.run(
        [sys.executable, "bench/vision_centring.py", "--frames", "20", "--miss", "1e-9", "0.3",
         "--json", str(study)],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    figures = json.loads(study.read_text())
    assert figures["stacks"] > 50
    heights = figures["height_right"]
    assert heights["shipped"] == json.loads(bench.read_text())["height_exact_tilted"]
    along = heights["  along the line of sight only"]
    # a piece found to within a billionth of a pitch is the oracle; one missed by 0.3 pitch (two
    # layers' worth along the line of sight) reads worse than the square's own view
    assert heights["  along, missed by 1e-09 pitch"] == along
    assert heights["  along, missed by 0.3 pitch"] < heights["shipped"] <= along
    assert "centred on the top piece" in done.stdout and "missed by 0.3 pitch" in done.stdout


def test_centring_study_refuses_a_miss_of_no_error():
    done = subprocess.run([sys.executable, "bench/vision_centring.py", "--miss", "0"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)  # fmt: skip
    assert done.returncode == 2 and "--miss 0.0: errors must be above 0 pitch" in done.stderr


def test_error_anatomy_lists_every_wrong_square_and_draws_the_worst_installations(tmp_path):
    out = tmp_path / "errors"
    done = subprocess.run(
        [sys.executable, "bench/vision_errors.py", "-o", str(out), "--frames", "30"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads((out / "errors.json").read_text())
    rows = found["rows"]
    # the first 30 frames of seed 1 hold wrong squares (a light wall read empty among them)
    assert rows and found["wrong"] == len(rows) == sum(found["by_cause"].values())
    assert all(r["truth"] != r["read"] for r in rows)
    assert found["squares"] > 20 * len(rows)
    worst = {w["installation"] for w in found["worst_installations"]}
    frames = {(r["installation"], r["frame"]) for r in rows if r["installation"] in worst}
    pictures = sorted(p.name for p in out.glob("*.png"))
    assert pictures == sorted(f"inst{i:03d}_frame{k}.png" for i, k in frames)
    assert f"wrong squares (colour+kind): {len(rows)} of" in done.stdout


def test_error_causes_name_what_is_wrong():
    from bench.vision_errors import cause
    from vision.reading import SquareReading

    empty = SquareReading(True)
    wall = SquareReading(False, "light", "wall", 1)
    assert cause(wall, wall) is None and cause(empty, empty) is None
    assert cause(wall, empty) == "missed" and cause(empty, wall) == "imagined"
    assert cause(wall, SquareReading(False, "dark", "flat", 1)) == "colour"
    assert cause(wall, SquareReading(False, "light", "flat", 2)) == "wall -> flat"


def test_the_speed_bench_reads_with_both_readers_and_counts_the_calls_they_differ_on():
    done = subprocess.run(
        [sys.executable, "bench/vision_speed.py", "--against", "HEAD", "--frames", "4"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    then, now = (float(line.split(":")[1].split()[0]) for line in lines[1:3])
    assert then > 0 and now > 0
    differ, of = (int(x) for x in lines[3].rsplit(":", 1)[1].split(" of "))
    assert of == sum(len(s.scenes) * s.size**2 for s in bench_installations(4, 1))
    vision_changed = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "vision"], cwd=ROOT)
    if vision_changed.returncode == 0:  # the reader at HEAD is the working tree's: same calls
        assert differ == 0

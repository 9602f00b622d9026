"""`takboard vision render`: a TPS position becomes a camera frame whose truth is that position."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from controller import cli
from controller.commands.vision import tps_to_scene

TPS = "2,x4/x,12C,x3/x2,1S,21,x/x5/x4,1 1 6"


def test_tps_becomes_stacks_bottom_to_top_light_for_player_one():
    scene = tps_to_scene(TPS)
    assert scene.size == 5
    assert scene.stacks["a5"] == [("dark", "flat")]
    assert scene.stacks["b4"] == [("light", "flat"), ("dark", "cap")]
    assert scene.stacks["c3"] == [("light", "wall")]
    assert scene.stacks["d3"] == [("dark", "flat"), ("light", "flat")]
    assert scene.stacks["e1"] == [("light", "flat")]
    assert len(scene.stacks) == 5


def test_render_writes_the_frame_and_its_truth(tmp_path, capsys):
    out, truth_path = tmp_path / "frame.png", tmp_path / "truth.json"
    args = ["vision", "render", TPS, "-o", str(out), "--seed", "3", "--tilt", "30", "--hand"]
    assert cli.main([*args, "--leds", "c3=ff8800", "--truth", str(truth_path)]) == 0
    assert "tilt 30.0 deg" in capsys.readouterr().out
    image = cv2.imread(str(out))
    assert image.shape == (720, 1280, 3)
    truth = json.loads(truth_path.read_text())
    assert truth["size"] == 5 and truth["hand_present"]
    assert truth["squares"]["b4"] == {
        "empty": False, "color": "dark", "kind": "cap", "height": 2,
        "occluded": truth["squares"]["b4"]["occluded"],
        "visible": truth["squares"]["b4"]["visible"],
    }  # fmt: skip
    assert truth["squares"]["a1"]["empty"]


def test_render_same_seed_same_file(tmp_path):
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    assert cli.main(["vision", "render", TPS, "-o", str(a), "--seed", "5"]) == 0
    assert cli.main(["vision", "render", TPS, "-o", str(b), "--seed", "5"]) == 0
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["x5/x5 1 1"], "x5/x5 1 1"),
        ([TPS, "--tilt", "55"], "--tilt 55"),
        ([TPS, "--leds", "z9=ff0000"], "z9"),
        ([TPS, "--leds", "a1=red"], "RRGGBB"),
        ([TPS, "--truth", "/nonexistent-dir/t.json"], "folder /nonexistent-dir does not exist"),
        ([TPS, "--truth", "truth.txt"], "use .json"),
    ],
)
def test_render_refuses_bad_input_clearly(tmp_path, capsys, args, message):
    assert cli.main(["vision", "render", *args, "-o", str(tmp_path / "f.png")]) == 2
    assert message in capsys.readouterr().err


def test_render_refuses_an_unknown_image_type_before_rendering(tmp_path, capsys):
    assert cli.main(["vision", "render", TPS, "-o", str(tmp_path / "frame.foo")]) == 2
    assert "unknown file type '.foo'" in capsys.readouterr().err
    assert not (tmp_path / "frame.foo").exists()


GAME = Path(__file__).parents[1] / "data" / "tak" / "club-6x6.ptn"


def test_film_replays_plies_with_hands_and_truth(tmp_path, capsys):
    out, truth = tmp_path / "frames", tmp_path / "truth.jsonl"
    args = ["vision", "film", str(GAME), "-o", str(out), "--plies", "2", "--fps", "6"]
    assert cli.main([*args, "--width", "320", "--height", "180", "--truth", str(truth)]) == 0
    assert "2 plies of game 1" in capsys.readouterr().out
    lines = [json.loads(line) for line in truth.read_text().splitlines()]
    frames = sorted(out.glob("*.png"))
    assert len(frames) == len(lines) and cv2.imread(str(frames[0])).shape == (180, 320, 3)
    plies = [line["ply"] for line in lines]
    assert plies == sorted(plies) and plies[0] == 0 and plies[-1] == 2
    # each ply happens under a hand, and the board is clean (no hand) before and after it
    for k in (1, 2):
        first = plies.index(k)
        assert lines[first]["hand_over_board"]
        assert any(not line["hand"] for line in lines[:first])  # a clean board came before
    assert not lines[-1]["hand"]
    assert lines[-1]["tps"].startswith("1,x5/")  # a6 is player 2's first placement: a light flat


def test_film_writes_a_video_the_video_source_reads_back(tmp_path):
    from vision.sources import open_source

    out = tmp_path / "game.avi"
    args = ["vision", "film", str(GAME), "-o", str(out), "--plies", "1", "--fps", "5"]
    assert cli.main([*args, "--width", "320", "--height", "180"]) == 0
    source = open_source(str(out))
    frames = list(source.frames())
    assert len(frames) > 10 and frames[0].shape == (180, 320, 3)
    assert source.ended


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere.ptn", "-o", "x.avi"], "nowhere.ptn"),
        ([str(GAME), "-o", "x.avi", "--game", "7"], "no game 7"),
        ([str(GAME), "-o", "x.mov"], "use .avi, .mp4 or a folder"),
        ([str(GAME), "-o", "x.avi", "--fps", "0"], "--fps 0"),
    ],
)
def test_film_refuses_bad_input_clearly(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["vision", "film", *args]) == 2
    assert message in capsys.readouterr().err

"""End to end: games rendered by the simulated camera into a folder of frames, recorded by
`takboard record` through the real vision reader and the tracker, compared with the game played.

Each test renders a short game (a few seconds of CPU); together they cover a clean game with its
debug images, a hand resting over the board for 10 s, the camera bumped mid-game, and a reply
made before the board was still.
"""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import cv2
import pytest

pytest.importorskip("vision.reader", reason="the vision reader has not landed on this branch yet")

from controller import cli
from controller.tak import Ply, ptn
from controller.tracking.script import HandPose, Shot, timeline
from vision.sim import Hand, Scene, random_setup, render

FPS = 5
# An installation the vision reader reads well today (seeded room, lamp light, camera 30 degrees
# from vertical); the shots (hands, pauses) vary per test.
ROOM, TILT = 11, 30.0
GAME = ["e5", "a1", "b2", "d4", "c3", "Sd3", "b2>", "Cb4", "c3-", "e4", "2c2<11"]


def render_folder(folder: Path, shots: list[Shot], size: int, bump_at: int | None = None) -> None:
    camera, look = random_setup(ROOM, size, tilt_deg=TILT)
    folder.mkdir(parents=True)
    for k, shot in enumerate(shots):
        if bump_at is not None and k == bump_at:
            # knocked: the rig turns 3 degrees and slides a little; the reader must find it again
            camera = dataclasses.replace(
                camera, yaw_deg=camera.yaw_deg + 3.0, roll_deg=camera.roll_deg + 1.0,
                target=(camera.target[0] + 0.15, camera.target[1] - 0.1))  # fmt: skip
        hands = [] if shot.hand is None else [
            Hand(tip=shot.hand.tip, from_side=shot.hand.side, height=shot.hand.height)]  # fmt: skip
        image = render(Scene(size, shot.stacks, hands=hands), camera, look, seed=k, t=k / FPS)
        cv2.imwrite(str(folder / f"frame_{k:04d}.png"), image)


def shots_of(size: int, plies: list[str], seed: int) -> list[Shot]:
    game = [Ply.from_ptn(p) for p in plies]
    return list(timeline(size, game, random.Random(seed), fps=FPS, two_motion_rate=0.0))


def checked(out: Path, plies: list[str]) -> int:
    """Every ply recorded, none wrong without its `?` (whose comment must name the true ply).
    Returns how many were recorded exactly."""
    moves = ptn.parse_game(out.read_text()).moves
    assert len(moves) == len(plies), [m.ply.ptn() for m in moves]
    exact = 0
    for number, (move, truth) in enumerate(zip(moves, plies, strict=True), start=1):
        if move.ply == Ply.from_ptn(truth):
            exact += 1
            continue
        assert move.annotation == "?", f"silent error at ply {number}: {move.ply.ptn()} for {truth}"
        assert truth in " ".join(move.comments_after), move.comments_after
    return exact


@pytest.mark.slow
def test_clean_game_is_recorded_exactly_with_debug_images(tmp_path, capsys):
    shots = shots_of(5, GAME, seed=11)
    render_folder(tmp_path / "frames", shots, 5)
    out, debug = tmp_path / "game.ptn", tmp_path / "debug"
    status = cli.main(["record", str(tmp_path / "frames"), "--size", "5", "--komi", "2",
                       "-o", str(out), "--debug", str(debug)])  # fmt: skip
    assert status == 0
    assert checked(out, GAME) >= len(GAME) - 1
    game = ptn.parse_game(out.read_text())
    assert game.tag("Size") == "5" and game.tag("Komi") == "2"
    err = capsys.readouterr().err
    assert "frames" in err and f"recorded {len(GAME)} plies" in err  # bar + summary
    said = re.findall(r"camera (\d+) deg from vertical, squares \d+ px \(good\)", err)
    assert len(said) == 1 and abs(int(said[0]) - TILT) <= 2  # where the camera is, said once
    assert len(re.findall(r"light pieces \d+ \(delta E\) from the board", err)) == 1
    assert len(re.findall(r"bare board clipped on [\d.]+ % of the grid", err)) == 1
    assert len(re.findall(r"glare at most \d+ grey levels on a square \(good\)"
                          r"|a light reflects off the board on", err)) == 1
    folders = sorted(p.name for p in debug.iterdir())
    assert len(folders) == len(GAME)  # one per ply: commits, and an ask if a ply was unsure
    assert all("_commit_" in name or "_ask_" in name for name in folders)
    assert len(list((debug / folders[0]).glob("*.png"))) >= 5  # frames before, at and after


@pytest.mark.slow
def test_hand_resting_over_the_board_for_ten_seconds_records_nothing_extra(tmp_path):
    plies = GAME[:5]
    shots = shots_of(5, plies, seed=4)
    # after ply 3 has been recorded, a hand rests over the board for 10 s, leaves, the board is
    # still again for a second, then the game goes on
    rest_from = max(i for i, s in enumerate(shots) if s.done == 3 and s.still) + 1
    board = shots[rest_from - 1]
    resting = Shot(board.stacks, HandPose((2.4, 2.6), "south", 1.6), 3, False)
    shots[rest_from:rest_from] = [resting] * (10 * FPS) + [board] * (6 * FPS // 5)
    render_folder(tmp_path / "frames", shots, 5)
    out = tmp_path / "game.ptn"
    assert cli.main(["record", str(tmp_path / "frames"), "--size", "5", "-o", str(out),
                     "--quiet"]) == 0  # fmt: skip
    assert checked(out, plies) >= len(plies) - 1


@pytest.mark.slow
def test_camera_bumped_mid_game_loses_no_ply(tmp_path):
    plies = GAME[:5]
    shots = shots_of(5, plies, seed=6)
    bump_at = next(i for i, s in enumerate(shots) if s.done == 3 and not s.still)
    render_folder(tmp_path / "frames", shots, 5, bump_at=bump_at)
    out = tmp_path / "game.ptn"
    assert cli.main(["record", str(tmp_path / "frames"), "--size", "5", "-o", str(out),
                     "--quiet"]) == 0  # fmt: skip
    assert checked(out, plies) >= len(plies) - 1


@pytest.mark.slow
def test_a_reply_made_before_the_board_was_still_is_recorded_as_two_plies(tmp_path, capsys):
    plies = GAME[:6]
    shots = shots_of(5, plies, seed=5)
    # the hand that played d4 (ply 4) leaves as the next comes in to play c3: no still board
    shots = [s for s in shots if not (s.still and s.done == 4)]
    render_folder(tmp_path / "frames", shots, 5)
    out = tmp_path / "game.ptn"
    assert cli.main(["record", str(tmp_path / "frames"), "--size", "5", "-o", str(out),
                     "--quiet"]) == 0  # fmt: skip
    assert checked(out, plies) == len(plies)
    moves = ptn.parse_game(out.read_text()).moves
    assert [m.annotation for m in moves[3:5]] == ["?", "?"]  # asked about, as a pair
    assert "two plies at once: d4 then c3" in " ".join(moves[3].comments_after)
    assert "recorded d4? then c3? (two plies at once" in capsys.readouterr().err


@pytest.mark.slow
def test_video_file_is_recorded_like_a_folder(tmp_path):
    plies = GAME[:4]
    shots = shots_of(5, plies, seed=8)
    render_folder(tmp_path / "frames", shots, 5)
    frames = sorted((tmp_path / "frames").glob("*.png"))
    first = cv2.imread(str(frames[0]))
    video = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), FPS,
                             (first.shape[1], first.shape[0]))  # fmt: skip
    for path in frames:
        writer.write(cv2.imread(str(path)))
    writer.release()
    out = tmp_path / "game.ptn"
    assert cli.main(["record", str(video), "--size", "5", "--fps", "5", "-o", str(out),
                     "--quiet"]) == 0  # fmt: skip
    assert checked(out, plies) >= len(plies) - 1


@pytest.mark.slow
def test_a_recording_that_ends_out_of_sync_says_from_when_and_what_is_missing(tmp_path, capsys):
    # after ply 4 a stack is knocked over and scattered where no ply could put its pieces, and
    # the frames end before the board is put back: the PTN holds the 4 plies, and the user is
    # told that nothing after them was recorded, and where the board differed
    plies = GAME[:4]
    shots = shots_of(5, plies, seed=5)
    last = shots[-1]
    scattered = {sq: st for sq, st in last.stacks.items() if sq != "b2"}
    scattered["c4"] = [("light", "flat")]
    scattered["a3"] = [("light", "flat")]
    shots += [Shot(scattered, None, len(plies), True)] * 30  # 6 s, never put back
    render_folder(tmp_path / "frames", shots, 5)
    out = tmp_path / "game.ptn"
    assert cli.main(["record", str(tmp_path / "frames"), "--size", "5", "-o", str(out),
                     "--quiet"]) == 0  # fmt: skip
    assert checked(out, plies) == len(plies)
    err = capsys.readouterr().err
    assert "at the end: the board has not matched the game since t=" in err
    assert "nothing after ply 4 (d4) was recorded; the board differed on" in err

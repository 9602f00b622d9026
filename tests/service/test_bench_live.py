"""`bench/live.py`: stored games through the running board, every question answered with the ply
played. A game's figures come out as the board recorded it, and bad paths and files are said,
not thrown."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.live import LiveResult, _answer, replay_live
from controller.service.board import BoardService
from controller.service.config import Settings
from controller.store import Journal
from controller.tak import Ply
from controller.tracking.pairs import TwoPlies

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "tests" / "record" / "games"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "bench/live.py", *args], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)  # fmt: skip


@pytest.mark.slow
def test_a_stored_game_is_played_on_the_live_board_and_scored(tmp_path):
    # fresh bench seed 5430's first 595 frames: 45 plies, the last recorded `2b4>` for `3b4>`
    # and marked by the second look (tests/service/test_second_look.py)
    out = run(str(GAMES / "seed5430-start.npz"), "--json", str(tmp_path / "live.json"),
              "--quiet")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "plies recorded exactly   97.78 %   (44 of 45)" in out.stdout
    assert "silent errors            0" in out.stdout
    assert "seed5430-start.npz" in out.stdout
    assert "ply 45: recorded 2b4>?, played 3b4>" in out.stdout
    figures = json.loads((tmp_path / "live.json").read_text())
    summary = figures["summary"]
    assert summary["games"] == 1 and summary["plies_exact"] == 44 and summary["silent_errors"] == 0
    assert summary["games_timed"] == 1  # its timeline replayed from the seed in its name
    (game,) = figures["games"].values()
    assert game["questions"] >= 1 and game["unsure"] == 1 and not game["perfect"]


def test_bench_live_says_what_is_wrong_with_a_path_or_a_file(tmp_path):
    missing = run(str(tmp_path / "nowhere"))
    assert missing.returncode != 0 and "nowhere: no such file or folder" in missing.stderr
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    junk = run(str(tmp_path / "junk.npz"), "--quiet")
    assert junk.returncode == 2 and "junk.npz: not a readings file" in junk.stderr
    assert "Traceback" not in junk.stderr


@pytest.mark.slow
def test_a_spread_whose_pieces_were_not_seen_to_land_is_not_recorded_wrong_quietly_live():
    # fresh bench seed 6035's first 540 frames: `d2+` put a dark flat on d3 that the reader
    # never saw; the board held back `d2<` and, when the next ply came, committed it quietly:
    # three plies wrong, none marked. The next ply showed where the flat went, and the players
    # are asked (tests/record/test_replayed_games.py has the offline recorder's side).
    result = replay_live(GAMES / "seed6035-start.npz")
    assert result.silent_errors == 0
    assert result.exact == result.recorded == result.plies == 41


@pytest.mark.slow
def test_boards_the_camera_asked_wrongly_about_are_set_right_by_the_players_not_quietly_wrong(
    monkeypatch,
):
    # fresh bench seed 3865 (its first 603 frames): "b3> then c4<" was asked for `b3>` then
    # `b2-`; the players typed `b3>`, and `c4<` was recorded after it. Seed 5040: `b4`, never
    # seen, then "c4- then c2>" asked for `c2>` then `c4-`; `b4` typed, and the board asked
    # about kept as the one to compare the next to, losing both plies. Each answer typed now
    # has the board judged afresh: no ply recorded wrong without a mark.
    pair = replay_live(GAMES / "seed3865-start.npz")
    assert pair.typed >= 1 and pair.silent_errors == 0 and pair.perfect
    unseen = replay_live(GAMES / "seed5040.npz")
    assert unseen.typed >= 1 and unseen.silent_errors == 0
    # ... while an answer typed that explains the board by itself keeps the camera's picture of
    # the board (seed 6106's first 191 frames: `2b2>11` typed for "b2> then b2>"; judged afresh
    # from the reader's own answers, the board read wrong on d1 and d2 stalled the game). The
    # question offers `2b2>11` now (a top's colour misread), so it is asked as it was then.
    picked = replay_live(GAMES / "seed6106-start.npz")
    assert picked.typed == 0 and picked.perfect
    monkeypatch.setattr(TwoPlies, "_colour_misread_instead", lambda self: [])
    alone = replay_live(GAMES / "seed6106-start.npz")
    assert alone.typed == 1 and alone.perfect and alone.illegal_reports == 0


@pytest.mark.slow
def test_players_who_answer_late_and_play_on_meanwhile_get_every_ply_right(tmp_path):
    # fresh bench seed 729's first frames (16 plies), every question answered 3 s after it is
    # asked, the game going on meanwhile as it was recorded: the board judged against the
    # board asked about, without the ply asked about, recorded 5 plies wrong without a mark
    # (and the answer after them). Now the boards seen while the question waited are judged in
    # turn once it is answered.
    late = replay_live(GAMES / "seed729-start.npz", answer_after=3.0)
    assert late.questions >= 1 and late.silent_errors == 0
    assert late.perfect and late.exact == late.plies == 16
    # the command line's flag is that delay, and the figures say so
    out = run(str(GAMES / "seed729-start.npz"), "--answer-after", "3", "--quiet", "--json",
              str(tmp_path / "late.json"))  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "late.json").read_text())["summary"]["answer_after_s"] == 3.0


@pytest.mark.slow
def test_a_spread_asked_about_and_then_played_past_is_not_taken_for_one_left_unfinished():
    # fresh bench seed 6056 (7x7, tilt 24), every question answered 3 s late: `e5+` was asked
    # about, and `d5+` played before the answer. From the board before the question, `e5+`
    # still explained the new board best: taken for the spread asked about finished after the
    # question (its pieces in a hand when asked), the question was withdrawn, the board judged
    # from there fitted nothing, and the game ended two plies short. A ply asked about is named
    # by the answer: the board is kept and judged after it.
    late = replay_live(GAMES / "seed6056.npz", answer_after=3.0)
    assert late.questions >= 1 and late.silent_errors == 0
    assert late.perfect and late.illegal_reports == 0


@pytest.mark.parametrize(("made_when_asked", "named"), [(2, ["a1", "b1"]), (1, ["a1"])])
def test_the_bench_players_name_every_ply_they_had_made_when_the_question_came_up(
    tmp_path, made_when_asked, named
):
    # asked "a1 then b1" or "a1" alone: players who had made both when the question came up
    # pick the pair (the first ply alone says b1 was not played); players who had made a1 only
    # pick it alone, though they have played b1 by the time they answer (it comes after)
    async def scenario() -> list[str]:
        settings = Settings(data_dir=tmp_path, size=5, fps=5.0)
        board = BoardService(settings=settings, journal=Journal(tmp_path / "games.db"))
        await board.new_game(size=5, komi=0, players=("", ""), opening="swap")
        a1, b1 = Ply.from_ptn("a1"), Ply.from_ptn("b1")
        asked = await board.ask([a1, a1], [0.0, 0.1], "two plies at once", then=[None, b1])
        picked: list[int | Ply] = []
        resolve = board.resolve

        async def noted(ambiguity_id, choice):
            picked.append(choice)
            return await resolve(ambiguity_id, choice)

        board.resolve = noted  # type: ignore[method-assign]
        await _answer(board, [a1, b1], 2, LiveResult(5, 2), made_when_asked)
        (choice,) = picked
        return [p.ptn() for p in asked.sequence(choice)]

    assert asyncio.run(scenario()) == named


@pytest.mark.slow
def test_a_catch_up_picked_on_the_page_is_the_one_recorded():
    # fresh bench seed 4927's first 660 frames, answered 3 s late: out of sync, the board asked
    # "c1< then a2 then 2b1+" or "c1< then a2 then b1+" (among others); the players picked the
    # second, and the first was recorded: `2b1+` for `b1+`, and the ply after it, unmarked
    result = replay_live(GAMES / "seed4927-start.npz", answer_after=3)
    assert result.silent_errors == 0
    assert result.exact == result.recorded == result.plies == 51


@pytest.mark.slow
def test_a_ply_made_while_a_question_waited_is_judged_once_it_is_answered():
    # fresh bench seed 6013, answered 6 s late: `a5` was asked about, and the players made
    # `e2+`, the game's last ply, meanwhile; its board, judged before the answer from the
    # position asked about, showed nothing, and was never judged again after it
    result = replay_live(GAMES / "seed6013.npz", answer_after=6)
    assert result.silent_errors == 0
    assert result.exact == result.recorded == result.plies == 54


@pytest.mark.slow
def test_a_ply_typed_that_the_reader_contradicts_on_the_board_asked_about_rebuilds_the_picture():
    # fresh bench seed 6277 (4x4), every question answered 3 s late: `a2+`, then `b1>` (unseen,
    # a flat onto one of its colour) and `2a2+` before the board was still, were asked about
    # as "3a2+ or 3a2-" (a2 lost three pieces to a3). The players typed `a2+`, which fitted the
    # changes but left a2's top as the reader surely did not read it; the tracker kept its
    # picture of that board, two plies on from the game, and the next spread, `3d4<21`, was
    # recorded as ply 37 without a mark. Such an answer now rebuilds the tracker, and the
    # players type the plies the board then says are missing.
    late = replay_live(GAMES / "seed6277.npz", answer_after=3.0)
    assert late.silent_errors == 0
    assert late.perfect and late.exact == late.plies == 44


@pytest.mark.slow
def test_a_board_that_moved_on_while_a_question_waited_does_not_drop_the_question():
    # the same game answered 6 s late: "a1 then 2b3-11" waited, and the players had made `a2+`
    # (a flat onto one of its colour, which barely changed the look). The board looked as asked
    # and, judged from the position before the pair, `a2+` fitted it: the question was dropped
    # unanswered, another asked in its place and withdrawn, and `3a2+` was committed as ply 34
    # without a mark. That board is now kept and judged once the question is answered.
    later = replay_live(GAMES / "seed6277.npz", answer_after=6.0)
    assert later.silent_errors == 0
    assert later.perfect and later.exact == later.plies == 44


@pytest.mark.slow
def test_a_question_about_a_faint_ply_is_not_withdrawn_on_a_board_that_still_looks_as_asked():
    # fresh bench seed 6450 (4x4, tilt 14), every question answered 3 s late: `b4>` barely
    # changed the look (c4 by 0.7) and was asked about; the players made `b2+`, as faint, before
    # the board was still again. That board looked as before the question, so the question was
    # withdrawn as a ply taken back, and the board, with both plies on it, became the one the
    # next was compared with: `b2+` was lost, and `b1>` was committed as ply 31 without a mark
    # (6 silent errors). A board that still looks as asked too says nothing was taken back.
    late = replay_live(GAMES / "seed6450.npz", answer_after=3.0)
    assert late.silent_errors == 0
    assert late.perfect and late.exact == late.plies == 50

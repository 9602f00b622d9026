""""The board is right": the camera reports the board out of sync where it is right (a piece it
misreads all along), a person says so on the page, and the camera goes on from the board as it
reads it; the alarm ends, and the next ply is recorded."""

from __future__ import annotations

import asyncio

import pytest

from controller.service.board import BoardService
from controller.service.errors import QuestionWaitingError, UnavailableError
from controller.store import Journal
from controller.tak import BLACK, WHITE, Ply, Position
from controller.tracking import Commit, Desync, Tracker
from controller.tracking.synthetic import hand_reading, stacks_reading
from tests.service.feeding import Feeder, idle_pipeline

OPENING = ["a1", "e5", "c3", "c2"]


def misread(position: Position) -> dict:
    """`position`'s stacks as a reader that reads c3's light flat dark sees them."""
    stacks = dict(position.stacks())
    *under, (player, stone) = stacks["c3"]
    return stacks | {"c3": (*under, (BLACK if player == WHITE else WHITE, stone))}


def test_a_board_said_right_is_tracked_on_and_its_next_ply_recorded(tmp_path):
    async def scenario():
        journal = Journal(tmp_path / "j.db")
        camera = idle_pipeline(tmp_path)
        board = BoardService(settings=camera.settings, journal=journal, camera=camera)
        seen: list[tuple[str, dict]] = []
        board.bus.listen(lambda event: seen.append((event.type, event.data)))
        await board.new_game(size=5, komi=0, players=("", ""), opening="swap")
        for ptn in OPENING:
            await board.play(Ply.from_ptn(ptn), source="manual")
        camera.attach(board)
        game = Position(5)
        for ptn in OPENING:
            game.play(Ply.from_ptn(ptn))
        tracker = Tracker(game.copy(stack=True), resume=True)  # judging the board afresh
        camera.tracker, camera._resync = tracker, False
        feed = Feeder(tracker).feed
        (desync,) = feed(stacks_reading(5, misread(game), appearance=True), 1.0)
        assert isinstance(desync, Desync)
        await board.report_problem("desync", list(desync.squares), "misread")
        assert board.problem["kind"] == "desync"

        await board.board_is_right()
        assert board.problem == {} and tracker.state == "tracking"
        assert any(t == "in_sync" and d["by"] == "player" for t, d in seen)
        game.play(Ply.from_ptn("d4"))
        feed(hand_reading(5), 0.6)
        decisions = feed(stacks_reading(5, misread(game), appearance=True), 1.2)
        assert [d.ply.ptn() for d in decisions if isinstance(d, Commit)] == ["d4"]

    asyncio.run(scenario())


def test_the_board_cannot_be_said_right_without_a_camera_or_over_a_question(tmp_path):
    async def scenario():
        camera = idle_pipeline(tmp_path)
        blind = BoardService(settings=camera.settings, journal=Journal(tmp_path / "a.db"))
        await blind.new_game(size=5, komi=0, players=("", ""), opening="swap")
        with pytest.raises(UnavailableError, match="no camera"):
            await blind.board_is_right()
        board = BoardService(settings=camera.settings, journal=Journal(tmp_path / "b.db"),
                             camera=camera)  # fmt: skip
        await board.new_game(size=5, komi=0, players=("", ""), opening="swap")
        with pytest.raises(UnavailableError, match="has not seen the board"):
            await board.board_is_right()  # (the camera rebuilds its tracker at the next frame)
        await board.ask([Ply.from_ptn("a1"), Ply.from_ptn("b1")], [0.0, 0.1], "close")
        with pytest.raises(QuestionWaitingError, match="answer it first"):
            await board.board_is_right()

    asyncio.run(scenario())


def test_an_alarm_judged_before_the_board_was_said_right_is_not_raised_after(tmp_path):
    # the camera judges a frame in a worker thread; a person says the board is right while it
    # does. The Desync it then hands over is the old board's: raised, its banner stayed up with
    # the camera tracking on (the page test's first run)
    async def scenario():
        camera = idle_pipeline(tmp_path)
        board = BoardService(settings=camera.settings, journal=Journal(tmp_path / "j.db"),
                             camera=camera)  # fmt: skip
        await board.new_game(size=5, komi=0, players=("", ""), opening="swap")
        for ptn in OPENING:
            await board.play(Ply.from_ptn(ptn), source="manual")
        camera.attach(board)
        game = board.session.position.copy(stack=True)
        tracker = Tracker(game, resume=True)
        camera.tracker, camera._resync = tracker, False
        (desync,) = Feeder(tracker).feed(stacks_reading(5, misread(game), appearance=True), 1.0)
        await board.board_is_right()  # ... while that frame's decisions wait to be handed over
        await camera._apply(desync, {})
        assert board.problem == {}
        tracker.state = "resuming"  # the control: an alarm the tracker stands by is raised
        await camera._apply(desync, {})
        assert board.problem["kind"] == "desync"

    asyncio.run(scenario())

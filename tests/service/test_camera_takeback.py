"""A takeback the camera saw (the board put back to an earlier position), recorded by the real
board service and journal: the camera's tracker, which made it, keeps its picture of the board
(a fresh one would judge every square again from the reader's absolute answers)."""

from __future__ import annotations

import asyncio

from controller.service.board import BoardService
from controller.service.camera import CameraPipeline
from controller.service.config import Settings
from controller.store import Journal
from controller.tak import Ply, Position
from controller.tracking import Takeback, Tracker
from controller.tracking.synthetic import hand_reading, position_reading
from tests.service.feeding import Feeder, idle_pipeline

PLIES = ("a1", "e5", "c3", "c2")


def _tracker_that_saw_a_takeback(tmp_path) -> tuple[CameraPipeline, Takeback]:
    """A pipeline whose tracker saw four plies played and then c2 and c3 lifted off again."""
    pipeline = idle_pipeline(tmp_path)
    tracker = Tracker(Position(5))
    truth, feed = Position(5), Feeder(tracker).feed
    feed(position_reading(truth, appearance=True), 2.0)
    for ptn in PLIES:
        truth.play(Ply.from_ptn(ptn))
        feed(hand_reading(5), 0.6)
        feed(position_reading(truth, appearance=True), 1.2)
    truth.pop()
    truth.pop()
    feed(hand_reading(5), 0.6)
    (takeback,) = feed(position_reading(truth, appearance=True), 1.2)
    assert isinstance(takeback, Takeback) and takeback.n == 2
    pipeline.tracker, pipeline._resync = tracker, False
    return pipeline, takeback


def test_the_service_keeps_the_tracker_that_took_the_plies_back(tmp_path):
    async def scenario():
        settings = Settings(data_dir=tmp_path, camera="none", serial="none", sim=True, size=5)
        board = BoardService(settings=settings, journal=Journal(tmp_path / "takboard.db"))
        await board.start()
        try:
            await board.new_game(size=5, komi=0, players=("", ""), opening="swap")
            for ptn in PLIES:
                await board.play(Ply.from_ptn(ptn), source="camera")
            pipeline, takeback = _tracker_that_saw_a_takeback(tmp_path)
            tracker = pipeline.tracker
            board.camera = pipeline
            await board.take_back(takeback.n, source="camera")
            assert board.session.position.ply_count == 2
            assert pipeline.tracker is tracker and not pipeline._resync
            # a takeback typed on the page is not the tracker's: it is rebuilt
            await board.take_back(1, source="manual")
            assert pipeline._resync
        finally:
            board.camera = None
            await board.stop()

    asyncio.run(scenario())


def test_a_takeback_the_tracker_does_not_stand_at_rebuilds_it(tmp_path):
    pipeline, _ = _tracker_that_saw_a_takeback(tmp_path)
    game = Position(5)
    game.play(Ply.from_ptn("a1"))  # the game went back further than the tracker
    pipeline.took_back(game)
    assert pipeline._resync

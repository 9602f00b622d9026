"""A frame taken before a new game shows the last game's pieces. On a slow machine it is read after
the new game began; judged against the new, empty game it would be a board no ply explains. The
camera pipeline reads it (the picture and the vision health stay live) but does not judge it.

Driven frame by frame through `CameraPipeline.process` (the camera loop is not started): the
simulated camera over the virtual table, the real reader and tracker, the real board service and
journal."""

from __future__ import annotations

import asyncio

from controller.service.board import BoardService
from controller.service.camera import CameraPipeline, open_frame_source
from tests.service.table import WallClock, game_on_the_table

OPENING = ["a1", "e5", "c3"]
PERIOD = 0.2  # 5 fps


async def _judge(camera: CameraPipeline, frame, t: float, generation: int, frames: int) -> float:
    """`frames` frames of `frame` at 5 fps from time `t`, each as taken in `generation` -> the
    time after them."""
    for _ in range(frames):
        await camera.process(frame, t, generation)
        t += PERIOD
    return t


def test_frames_taken_before_a_new_game_are_read_but_not_judged_against_it(tmp_path):
    journal, _, table, settings = game_on_the_table(tmp_path, OPENING)

    async def scenario():
        camera = CameraPipeline(open_frame_source(settings, table), settings=settings,
                                clock=WallClock())
        board = BoardService(settings=settings, journal=journal)
        await board.start()
        board.camera = camera
        camera.attach(board)
        camera.source = camera._open_source()
        try:
            # the camera follows the game in progress
            before = camera._generation
            ok, old = camera.source.read()
            assert ok
            t = await _judge(camera, old, 0.0, before, 10)
            assert camera.tracker is not None and camera.tracker.state == "tracking"

            # the page starts a new game and the players clear the table, but two seconds of
            # frames taken before that (the last game's pieces) are still being read
            await board.new_game(size=5, komi=0, players=("", ""), opening="swap")
            table.reset(5)
            assert camera._generation == before + 1
            t = await _judge(camera, old, t, before, 10)
            assert camera._last_reading is not None and camera._last_reading.board_found
            assert board.problem == {}, "the last game's pieces were judged against the new game"
            assert board.session.plies() == []

            # frames of the cleared table, taken in the new game, are judged: in step, no ply
            ok, cleared = camera.source.read()
            assert ok
            await _judge(camera, cleared, t, camera._generation, 10)
            assert camera.tracker is not None and camera.tracker.state == "tracking"
            assert board.problem == {} and board.session.plies() == []
        finally:
            board.camera = None
            await board.stop()

    asyncio.run(scenario())

"""A person corrects the last ply the camera recorded, through the whole service: the simulated
camera over the virtual table, the real reader and tracker, the board service and its journal. The
correction is one step: the camera does not see the ply on the board again and record it again
(which a takeback and a typed ply, two requests, would race), and the game goes on from the
corrected ply."""

from __future__ import annotations

import asyncio

import pytest

from controller.tak import Ply
from tests.service.table import game_on_the_table, watched
from tests.service.waiting import wait_for


@pytest.mark.slow
def test_a_ply_the_camera_recorded_is_corrected_and_the_game_goes_on_from_it(tmp_path):
    opening = ["a1", "e5", "c3"]
    journal, game, table, settings = game_on_the_table(tmp_path, opening)

    def recorded() -> list[str]:
        return [p.ptn for p in board.session.plies()]

    async def scenario():
        nonlocal board
        async with watched(settings, table, journal) as (board, camera, seen):
            await wait_for(lambda: board.health_report()["tracker"] == "tracking", 30,
                           "the camera to see the journal's position")
            table.place("c2", 1)
            await wait_for(lambda: len(recorded()) == 4, 30, "black's c2")
            assert recorded()[-1] == "c2"
            tracker = camera.tracker
            # the player says it was a wall (here the camera was right: what matters is that the
            # correction stands, whatever the board looks like to the reader)
            played = await board.correct_last(Ply.from_ptn("Sc2"))
            assert played == Ply.from_ptn("Sc2") and recorded() == [*opening, "Sc2"]
            assert [t for t, _ in seen].count("ply_corrected") == 1
            assert camera.tracker is tracker and not camera._resync  # same tracker, in step
            assert tracker.position.tps() == board.session.position.tps()
            await asyncio.sleep(3.0)  # the board stands: nothing recorded again, nothing wrong
            assert recorded() == [*opening, "Sc2"]
            assert board.problem == {}
            table.place("d3", 0)  # white's next flat is recorded on top of the correction
            await wait_for(lambda: len(recorded()) == 5, 30, "white's d3")
            assert recorded() == [*opening, "Sc2", "d3"]
            assert [e.ply.ptn() for e in journal.game(game).plies] == [*opening, "Sc2", "d3"]

    board = None
    asyncio.run(scenario())

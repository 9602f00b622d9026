"""Two plies made with no still board between them (a quick reply), through the whole service: the
simulated camera over the virtual table, the real reader and tracker, the board service, its
journal and its LEDs on the emulated firmware. The camera asks about the pair (the LEDs light the
squares of both); the answer records both, and the game goes on."""

from __future__ import annotations

import asyncio

import pytest

from controller.tak import Ply
from tests.service.table import game_on_the_table, lay_out, position_after, watched
from tests.service.waiting import wait_for


@pytest.mark.slow
def test_a_quick_reply_is_asked_about_as_two_plies_and_the_answer_records_both(tmp_path):
    opening = ["a1", "e5", "c3"]
    journal, _, table, settings = game_on_the_table(tmp_path, opening)

    async def scenario():
        async with watched(settings, table, journal) as (board, camera, seen):
            await wait_for(lambda: board.health_report()["tracker"] == "tracking", 30,
                           "the camera to see the journal's position")
            # black's flat on c2 and white's on d3 land together: no still board between them
            lay_out(table, position_after(5, [*opening, "c2", "d3"]))
            await wait_for(lambda: any(t == "ambiguity" for t, _ in seen), 30, "the question")
            question = next(data for t, data in seen if t == "ambiguity")
            assert "two plies at once: c2 then d3" in question["reason"]
            assert question["candidates"][0] == "c2" and question["then"][0] == "d3"
            game = (await board.snapshot())
            assert game.ambiguity is not None and game.ambiguity.then[0] == Ply.from_ptn("d3")
            assert [p.ptn for p in board.session.plies()] == opening  # nothing before the answer
            # the LEDs under every square asked about, the reply's included, as the emulated
            # firmware drives them
            leds = board.leds
            assert leds is not None and {"c2", "d3"} <= set(leds.lit()["squares"])
            await asyncio.to_thread(leds.emulator.wait_for_leds,
                                    lambda latch: {"c2", "d3"} <= set(latch.lit(leds.config)), 10)
            await board.resolve(question["id"], 0)
            assert [p.ptn for p in board.session.plies()] == [*opening, "c2", "d3"]
            assert camera.tracker is not None and not camera._resync  # same tracker, in step
            table.place("b2", 1)  # black's next flat is recorded as usual
            await wait_for(lambda: len(board.session.plies()) == 6, 30, "the next ply")
            assert board.session.plies()[-1].ptn == "b2"

    asyncio.run(scenario())

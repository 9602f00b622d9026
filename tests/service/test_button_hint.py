"""The button on the board's edge asks for a hint: the real firmware under emulation, the real link,
the real engine, the real journal."""

from __future__ import annotations

import asyncio

import pytest

from controller.service.board import BoardService
from controller.service.config import Settings
from controller.service.hints import EngineHints
from controller.service.leds_port import LedBoard
from controller.store import Journal
from controller.tak import Ply
from tests.service.waiting import wait_for


async def press(leds: LedBoard, hold: float = 0.1) -> None:
    await asyncio.to_thread(leds.emulator.press_button)
    await asyncio.sleep(hold)
    await asyncio.to_thread(leds.emulator.release_button)


@pytest.mark.slow
def test_a_button_press_mid_game_shows_a_hint_and_after_the_game_does_nothing(tmp_path):
    settings = Settings(data_dir=tmp_path, camera="none", serial="sim", sim=True, size=5)

    async def scenario():
        leds = LedBoard(settings)
        board = BoardService(settings=settings, journal=Journal(tmp_path / "j.db"), leds=leds,
                             hinter=EngineHints(movetime_ms=200))
        await board.start()
        try:
            await wait_for(lambda: board.health_report()["link"]["state"] == "ready", 30, "link")
            await board.new_game(size=5, komi=0, players=("", ""), opening="swap")
            await board.play(Ply.from_ptn("a1"), source="manual")
            await board.play(Ply.from_ptn("e5"), source="manual")
            await wait_for(lambda: leds.scene == "last_move", 5, "last move shown")
            await press(leds)
            await wait_for(lambda: leds.scene == "hint" and leds.lit()["acked"], 10, "hint shown")
            assert leds.button_presses == 1
            await board.finish("R-0", "test")
            await wait_for(lambda: leds.scene != "hint", 5, "the game over scene")
            scene = leds.scene
            await press(leds)
            await wait_for(lambda: leds.button_presses == 2, 5, "second press")
            await asyncio.sleep(0.5)
            assert leds.scene == scene  # no hint for a finished game
        finally:
            await board.stop()

    asyncio.run(scenario())

"""End to end: a scripted 56-ply game played on the simulated table goes through the simulated
camera, the real vision reader, the tracker, the journal, the emulated LED firmware and the
WebSocket, and the recorded PTN equals the script."""

from __future__ import annotations

import random

import pytest

from controller.service.config import Settings
from controller.service.runner import build_board
from controller.service.soak import SoakDriver
from controller.tak import ptn
from controller.tracking.script import random_game
from controller.web.app import create_app
from tests.web.server import LiveServer

TOKEN = "soak-token-0123456789abcdef"
SIZE, LENGTH, SEED = 5, 56, 1


@pytest.mark.slow
def test_a_scripted_game_is_recorded_exactly_through_every_part(tmp_path):
    settings = Settings(data_dir=tmp_path, camera="sim", serial="sim", sim=True, size=SIZE,
                        token=TOKEN)
    holder = {}

    def make_app():
        holder["board"] = build_board(settings)
        return create_app(holder["board"], settings, token=TOKEN)

    server = LiveServer(make_app).start(timeout=60)
    driver = SoakDriver(server.url, TOKEN, holder["board"])
    try:
        driver.new_game(SIZE)
        script = [p.ptn() for p in random_game(SIZE, LENGTH, random.Random(SEED))]
        assert len(script) == LENGTH
        result = driver.play(script, ply_timeout=12)
    finally:
        driver.close()
        server.stop()
    assert result.problems == [], f"the board was misread: {result.problems[:3]}"
    assert result.recorded == script
    game = ptn.parse_game(result.final_ptn)
    assert [m.ply.ptn() for m in game.moves] == script
    # every ply reached the LEDs (acknowledged by the emulated firmware) and the WebSocket
    assert all(t.ack_at is not None and t.event_at is not None for t in result.plies)

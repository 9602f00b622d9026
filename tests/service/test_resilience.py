"""The board survives its hardware: kill -9 (resume from the journal), a camera that stops
delivering frames (paused, retried, resumed), a LED board that goes away (the link reconnects)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from controller.service.board import BoardService
from controller.service.camera import CameraPipeline, open_frame_source
from controller.service.config import Settings
from controller.service.leds_port import LedBoard
from controller.service.virtual_board import VirtualBoard
from controller.store import Journal
from controller.tak import Ply
from tests.service.table import WallClock, lay_out, position_after, watched
from tests.service.waiting import wait_for
from tests.web.server import free_port

TOKEN = "resilience-token-0123456789"
REPO = Path(__file__).resolve().parents[2]


def start_service(data: Path, port: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "serve", "--camera", "none", "--serial", "none",
         "--host", "127.0.0.1", "--port", str(port), "--data", str(data), "--token", TOKEN],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_up(url: str, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"service exited: {process.stderr.read().decode()[-2000:]}")
        try:
            if httpx.get(url + "/api/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("service did not come up")


@pytest.mark.slow
def test_kill_9_mid_game_then_restart_continues_the_game_from_the_journal(tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    auth = {"Authorization": f"Bearer {TOKEN}"}
    first = start_service(tmp_path, port)
    try:
        wait_up(url, first)
        httpx.post(url + "/api/games", json={"size": 5, "white": "Ann"}, headers=auth)
        for ptn in ("a1", "e5", "c3", "c4"):
            r = httpx.post(url + "/api/game/plies", json={"ptn": ptn}, headers=auth)
            assert r.status_code == 201
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    second = start_service(tmp_path, port)
    try:
        wait_up(url, second)
        game = httpx.get(url + "/api/game").json()
        assert [p["ptn"] for p in game["plies"]] == ["a1", "e5", "c3", "c4"]
        assert game["white"] == "Ann" and game["state"] == "recording"
        r = httpx.post(url + "/api/game/plies", json={"ptn": "d3"}, headers=auth)
        assert r.status_code == 201 and len(r.json()["game"]["plies"]) == 5
    finally:
        second.terminate()
        second.wait(10)


@pytest.mark.slow
def test_camera_that_stops_delivering_pauses_recording_and_resumes_by_itself(tmp_path):
    settings = Settings(data_dir=tmp_path, camera="sim", serial="none", sim=True, size=4, fps=5.0)

    async def scenario():
        table = VirtualBoard(4)
        opener = open_frame_source(settings, table)
        camera = CameraPipeline(opener, settings=settings, clock=WallClock())
        board = BoardService(settings=settings, journal=Journal(tmp_path / "j.db"),
                             camera=camera, virtual_board=table)
        events = board.bus.subscribe()
        await board.start()
        try:
            await board.new_game(size=4, komi=0, players=("", ""), opening="swap")
            await wait_for(lambda: board.health.camera.state == "ok", 30, "first frames")
            opener.sim_source.unplug()
            await wait_for(lambda: board.health.recording == "paused", 10, "recording paused")
            assert board.health.camera.state in ("no_frames", "retrying")
            assert "unplugged" in board.health.camera.error
            opener.sim_source.plug()
            await wait_for(lambda: board.health.camera.state == "ok", 30, "frames again")
            assert board.health.recording == "recording"
            seen = []
            while (event := events._queue.get_nowait() if not events._queue.empty() else None):
                seen.append((event.type, event.data.get("state")))
            camera_states = [s for t, s in seen if t == "camera"]
            down = camera_states.index("no_frames")
            assert "ok" in camera_states[down:]  # reported down, then back up
        finally:
            await board.stop()

    asyncio.run(scenario())


def link_state(board: BoardService) -> str:
    return board.health_report()["link"]["state"]


@pytest.mark.slow
def test_led_board_pulled_and_plugged_back_reconnects_and_shows_the_game(tmp_path):
    settings = Settings(data_dir=tmp_path, camera="none", serial="sim", sim=True, size=5)

    async def scenario():
        leds = LedBoard(settings)
        board = BoardService(settings=settings, journal=Journal(tmp_path / "j.db"), leds=leds)
        await board.start()
        try:
            await wait_for(lambda: link_state(board) == "ready", 30, "link ready")
            await board.new_game(size=5, komi=0, players=("", ""), opening="swap")
            await board.play(Ply.from_ptn("a1"), source="manual")
            await wait_for(lambda: leds.lit()["acked"], 10, "first ack")
            await asyncio.to_thread(leds.emulator.kill)  # the cable is pulled
            await board.play(Ply.from_ptn("e5"), source="manual")  # the game goes on
            await wait_for(lambda: link_state(board) != "ready", 10, "link noticed loss")
            assert not leds.lit()["acked"]
            mark = leds.emulator.mark()
            await asyncio.to_thread(leds.emulator.start)  # plugged back
            await wait_for(lambda: link_state(board) == "ready", 30, "reconnected")
            await wait_for(lambda: leds.lit()["acked"], 10, "the current picture acked")
            # what the new firmware drives on its data pin (after its own "waiting for host"
            # pattern): the last move, e5, orange
            latch = await asyncio.to_thread(
                leds.emulator.wait_for_leds, lambda latch: set(latch.lit(leds.config)) == {"e5"},
                10, after=mark)
            r, g, b = latch.lit(leds.config)["e5"]
            assert r > g > b  # orange
        finally:
            await board.stop()

    asyncio.run(scenario())
    assert os.path.exists(tmp_path / "j.db")


@pytest.mark.slow
def test_after_a_restart_a_board_that_moved_meanwhile_is_a_desync_not_a_recorded_ply(tmp_path):
    """A ply made while the service was down is not taken for the next ply: the resumed game
    waits (desync, expected = the journal's position) until the board shows the journal's
    position, then records on."""
    journal = Journal(tmp_path / "j.db")
    game = journal.new_game(size=5, komi=0, players=("", ""), opening="swap")
    for ptn in ("a1", "e5", "c3"):
        journal.append_ply(game, Ply.from_ptn(ptn))
    recorded = position_after(5, ["a1", "e5", "c3"])
    table = VirtualBoard(5)
    lay_out(table, position_after(5, ["a1", "e5", "c3", "c4"]))  # played while it was down
    settings = Settings(data_dir=tmp_path, camera="sim", serial="none", sim=True, size=5, fps=5.0)

    async def scenario():
        # (the board is not handed the table: it must not lay it out as recorded)
        async with watched(settings, table, journal) as (board, _, seen):
            await wait_for(lambda: any(t == "desync" for t, _ in seen), 30, "the desync")
            desync = next(data for t, data in seen if t == "desync")
            assert desync["expected_tps"] == recorded.tps()
            assert "c4" in desync["squares"]
            assert (await board.snapshot()).state == "desync"
            assert board.health_report()["tracker"] == "resuming"
            await asyncio.sleep(2.0)  # still frames of c4 keep coming: still nothing recorded
            assert [p.ptn for p in board.session.plies()] == ["a1", "e5", "c3"]
            lay_out(table, recorded)  # the player puts the board back as the page asks
            await wait_for(lambda: any(t == "in_sync" for t, _ in seen), 30, "back in sync")
            assert board.health_report()["tracker"] == "tracking"
            table.place("c4", 1)  # black's flat, ply 4
            await wait_for(lambda: len(board.session.plies()) == 4, 30, "the next ply")
            assert board.session.plies()[-1].ptn == "c4"

    asyncio.run(scenario())

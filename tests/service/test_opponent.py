"""Playing against the computer: the real board service, journal, engine and (emulated) LEDs.

The computer's ply is made on the board by a player; the camera's report of it arrives as
`board.play(ply, source="camera")` (what `CameraPipeline` calls), so these tests drive that door.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from controller.service.board import BoardService
from controller.service.config import Settings
from controller.service.errors import UnavailableError, WrongMoveError
from controller.service.hints import EngineHints
from controller.service.leds_port import LedBoard
from controller.service.opponent import Opponent, squares_to_fix
from controller.store import Journal
from controller.tak import Ply, Position
from tests.service.waiting import wait_for


def service(tmp_path, **parts) -> BoardService:
    settings = Settings(data_dir=tmp_path, camera="none", serial="none", sim=True, size=5)
    parts.setdefault("hinter", EngineHints())
    return BoardService(settings=settings, journal=Journal(tmp_path / "takboard.db"), **parts)


@contextlib.asynccontextmanager
async def running(tmp_path, **parts):
    """A started board service, stopped however the test ends."""
    board = service(tmp_path, **parts)
    await board.start()
    try:
        yield board
    finally:
        await board.stop()


async def against_black(board: BoardService) -> None:
    """A new 5x5 game in which the computer (easy) plays black."""
    await board.new_game(size=5, komi=0, players=("", ""), opening="swap",
                         computer=Opponent(1, "easy"))


def run(coro):
    return asyncio.run(coro)


async def computer_ply(board: BoardService) -> Ply:
    await wait_for(lambda: board.computer_move is not None, 30, "the computer's ply")
    return board.computer_move  # type: ignore[return-value]


def test_the_computer_answers_each_ply_and_its_ply_is_recorded_when_made(tmp_path):
    async def scenario():
        async with running(tmp_path) as board:
            view = await board.new_game(size=5, komi=0, players=("Ann", ""), opening="swap",
                                        computer=Opponent(1, "easy"))
            assert view.computer == {"side": "black", "strength": "easy", "move": None,
                                     "thinking": False}  # white (Ann) moves first
            assert view.tags["Computer"] == "black easy"
            assert view.tags["Player2"] == "takboard (easy)"
            for human in ("a1", "c3"):
                await board.play(Ply.from_ptn(human), source="camera")
                wanted = await computer_ply(board)
                position = board.session.position.copy()
                assert wanted in position.legal_plies
                assert board.view().computer["move"] == wanted.ptn()
                await board.play(wanted, source="camera")  # a player made it on the board
                assert board.computer_move is None
            plies = [p.ptn for p in board.view().plies]
            assert len(plies) == 4 and plies[0] == "a1" and plies[2] == "c3"

    run(scenario())


def test_a_different_ply_on_the_board_is_refused_and_the_squares_to_fix_are_named(tmp_path):
    async def scenario():
        async with running(tmp_path) as board:
            await against_black(board)
            await board.play(Ply.from_ptn("a1"), source="camera")
            wanted = await computer_ply(board)
            position = board.session.position.copy()
            other = next(p for p in position.legal_plies if p != wanted)
            with pytest.raises(WrongMoveError, match=f"computer plays {wanted.ptn()}"):
                await board.play(other, source="camera")
            view = board.view()
            assert len(view.plies) == 1  # nothing recorded
            assert view.state == "illegal"
            assert view.problem["squares"] == squares_to_fix(position, wanted, other)
            assert view.problem["squares"]  # two different plies always differ somewhere
            await board.play(wanted, source="camera")  # the player puts it right
            assert board.view().state == "recording" and len(board.view().plies) == 2

    run(scenario())


def test_an_ambiguity_that_includes_the_computers_ply_is_not_asked(tmp_path):
    async def scenario():
        async with running(tmp_path) as board:
            await against_black(board)
            await board.play(Ply.from_ptn("a1"), source="camera")
            wanted = await computer_ply(board)
            other = next(p for p in board.session.position.legal_plies if p != wanted)
            assert await board.ask([other, wanted], [0.1, 0.15]) is None
            view = board.view()
            assert view.ambiguity is None and view.plies[-1].ptn == wanted.ptn()

    run(scenario())


def test_the_computer_playing_white_moves_first_and_comes_back_after_a_restart(tmp_path):
    async def scenario():
        board = service(tmp_path)
        await board.start()
        await board.new_game(size=5, komi=0, players=("", "Bo"), opening="swap",
                             computer=Opponent(0, "easy"))
        first = await computer_ply(board)
        await board.play(first, source="camera")
        await board.play(Ply.from_ptn("e5" if first != Ply.from_ptn("e5") else "a5"),
                         source="camera")
        await computer_ply(board)
        await board.stop()

        again = service(tmp_path)  # kill and restart: who plays what comes from the journal
        await again.start()
        try:
            assert again.opponent == Opponent(0, "easy")
            third = await computer_ply(again)
            assert third in again.session.position.legal_plies
        finally:
            await again.stop()

    run(scenario())


def test_taking_back_drops_the_computers_ply_and_a_typed_ply_overrules_it(tmp_path):
    async def scenario():
        async with running(tmp_path) as board:
            await against_black(board)
            await board.play(Ply.from_ptn("a1"), source="camera")
            await computer_ply(board)
            await board.take_back(1)
            assert board.computer_move is None and board.view().to_move == 0
            await board.play(Ply.from_ptn("e1"), source="camera")
            wanted = await computer_ply(board)
            typed = next(p for p in board.session.position.legal_plies if p != wanted)
            await board.play(typed, source="manual")  # typed on the page: the players decide
            assert board.view().plies[-1].ptn == typed.ptn() and board.computer_move is None

    run(scenario())


def test_no_engine_no_computer_game(tmp_path):
    async def scenario():
        async with running(tmp_path, hinter=None) as board:
            with pytest.raises(UnavailableError, match="no engine"):
                await board.new_game(size=5, komi=0, players=("", ""), opening="swap",
                                     computer=Opponent(1))

    run(scenario())


def test_opponent_tags_round_trip_and_bad_ones_are_ignored():
    assert Opponent.from_tags({"Computer": "white hard"}) == Opponent(0, "hard")
    assert Opponent.from_tags({"computer": "black easy"}) == Opponent(1, "easy")
    for bad in ("purple easy", "white", "black godlike", ""):
        assert Opponent.from_tags({"Computer": bad}) is None
    with pytest.raises(ValueError, match="strength must be one of easy, medium, hard"):
        Opponent(0, "godlike")
    position = Position(5)
    position.play(Ply.from_ptn("a1"))
    assert squares_to_fix(position, Ply.from_ptn("c3"), Ply.from_ptn("Sc3")) == ["c3"]
    assert squares_to_fix(position, Ply.from_ptn("c3"), Ply.from_ptn("d4")) == ["c3", "d4"]


@pytest.mark.slow
def test_the_computers_ply_is_shown_on_the_emulated_leds_like_a_hint(tmp_path):
    settings = Settings(data_dir=tmp_path, camera="none", serial="sim", sim=True, size=5)

    async def scenario():
        leds = LedBoard(settings)
        async with running(tmp_path, leds=leds) as board:
            await wait_for(lambda: board.health_report()["link"]["state"] == "ready", 30, "link")
            await against_black(board)
            await board.play(Ply.from_ptn("a1"), source="camera")
            wanted = await computer_ply(board)
            await wait_for(lambda: leds.lit()["acked"] and leds.scene == "hint", 10, "hint acked")
            target = wanted.squares(5)[0]
            # the firmware's data pin: the computer's square glows (dim orange, then flashes);
            # judged on a latch bright enough for orange's green to show (at the dimmest steps
            # it rounds to 0 and orange cannot be told from red: flaky on a loaded machine)
            def bright(latch) -> bool:
                lit = latch.lit(leds.config)
                return target in lit and max(lit[target]) >= 32

            latch = await asyncio.to_thread(leds.emulator.wait_for_leds, bright, 10)
            r, g, b = latch.lit(leds.config)[target]
            assert r > g > b  # orange

    run(scenario())


def test_an_external_tei_engine_thinks_for_the_computer_and_a_broken_one_falls_back(tmp_path):
    import sys

    from controller.engine.hints import HintEngine
    from controller.service.runner import _hinter

    settings = Settings(data_dir=tmp_path, engine=f"{sys.executable} -m controller.cli tei")
    external = _hinter(settings)  # `takboard tei` itself, as a separate process over TEI
    broken = EngineHints(HintEngine(["/nonexistent/tei-engine"]))

    async def scenario():
        position = Position(5)
        position.play(Ply.from_ptn("a1"))
        ptn, info = await external.best_ply(position, limit=Opponent(1, "easy").limit)
        assert info["source"].startswith("external") and Ply.from_ptn(ptn) in position.legal_plies
        ptn, info = await broken.best_ply(position, limit=Opponent(1, "easy").limit)
        assert info["source"] == "builtin" and Ply.from_ptn(ptn) in position.legal_plies

    try:
        run(scenario())
    finally:
        external.engine.close()
        broken.engine.close()


def test_an_engine_command_that_cannot_be_split_is_a_clear_settings_error(tmp_path):
    from controller.service.config import SettingsError

    with pytest.raises(SettingsError, match="engine = 'tiltak \"tei': cannot split it"):
        Settings(data_dir=tmp_path, engine='tiltak "tei')

"""The virtual table, watched by the simulated camera, for service tests: a clock that runs, the
table laid out as a position, and a board service recording what the camera sees of it."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator

from controller.service.board import BoardService
from controller.service.camera import CameraPipeline, open_frame_source
from controller.service.config import Settings
from controller.service.leds_port import LedBoard
from controller.service.virtual_board import VirtualBoard
from controller.store import Journal
from controller.tak import Ply, Position


class WallClock:
    """The service's clock, running (the camera pipeline paces its frames by it)."""

    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()


def position_after(size: int, plies: list[str]) -> Position:
    position = Position(size)
    for ptn in plies:
        position.play(Ply.from_ptn(ptn))
    return position


def lay_out(table: VirtualBoard, position: Position) -> None:
    """Put every stack of `position` on the table at once (no hand)."""
    table.reset(position.size, {sq: list(st) for sq, st in position.stacks().items()})


def game_on_the_table(data_dir, opening: list[str], size: int = 5
                      ) -> tuple[Journal, int, VirtualBoard, Settings]:  # fmt: skip
    """A journal with a game `opening` plies in, the table laid out so, and the settings of a
    simulated camera and LED board over it -> (journal, game id, table, settings)."""
    journal = Journal(data_dir / "j.db")
    game = journal.new_game(size=size, komi=0, players=("", ""), opening="swap")
    for ptn in opening:
        journal.append_ply(game, Ply.from_ptn(ptn))
    table = VirtualBoard(size)
    lay_out(table, position_after(size, opening))
    settings = Settings(data_dir=data_dir, camera="sim", serial="sim", sim=True, size=size,
                        fps=5.0)  # fmt: skip
    return journal, game, table, settings


@contextlib.asynccontextmanager
async def watched(settings: Settings, table: VirtualBoard, journal: Journal
                  ) -> AsyncIterator[tuple[BoardService, CameraPipeline, list[tuple[str, dict]]]]:
    """A started board service whose camera watches `table` (the simulated camera, the real
    reader and tracker) -> (board, camera, every event published, as (type, data)); with
    `settings.serial == "sim"`, its LEDs on the emulated firmware too (`board.leds`). No virtual
    board is handed to the service: it must never lay the table out itself."""
    camera = CameraPipeline(open_frame_source(settings, table), settings=settings,
                            clock=WallClock())
    leds = LedBoard(settings) if settings.serial == "sim" else None
    board = BoardService(settings=settings, journal=journal, camera=camera, leds=leds)
    seen: list[tuple[str, dict]] = []
    board.bus.listen(lambda event: seen.append((event.type, event.data)))
    await board.start()
    try:
        yield board, camera, seen
    finally:
        await board.stop()

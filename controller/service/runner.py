"""Put the running board together from settings and serve it: one asyncio loop, uvicorn inside
it."""

from __future__ import annotations

import dataclasses
import glob
import logging
import shlex
import sys
from pathlib import Path

import uvicorn

from controller.service.board import BoardService
from controller.service.clock import Clock, SystemClock
from controller.service.config import Settings
from controller.service.events import EventBus
from controller.service.token import TOKEN_FILE, load_or_create_token
from controller.service.virtual_board import VirtualBoard
from controller.store import Journal

log = logging.getLogger("takboard.service")
JOURNAL_FILE = "takboard.db"
# Whether the simulated camera films the LED glow under the squares. Off: the reader is told which
# squares are lit, but with the glow filmed it still misreads about twice as many plies
# (`bench/service.py --film-leds on|off`, figures in docs/service.md).
FILM_LEDS = False


def find_cameras() -> list[str]:
    return sorted(glob.glob("/dev/video[0-9]*"))


def find_serial_ports() -> list[str]:
    """LED boards found by their USB id (CH340, FTDI, Arduino), the stable udev name first."""
    from controller.leds.ports import matching_ports

    stable = [path for path in ("/dev/takboard-leds",) if Path(path).exists()]
    return stable + [candidate.device for candidate in matching_ports()]


def resolve_hardware(settings: Settings, *, cameras: list[str] | None = None,
                     ports: list[str] | None = None) -> Settings:
    """Turn "auto" into a concrete choice. No camera and no LED board at all -> simulate both.
    `cameras` / `ports`: what was found (default: look now)."""
    if settings.sim:  # simulate whatever was not named explicitly
        return dataclasses.replace(settings,
                                   camera="sim" if settings.camera == "auto" else settings.camera,
                                   serial="sim" if settings.serial == "auto" else settings.serial)
    camera, serial = settings.camera, settings.serial
    if camera == "auto":
        found = find_cameras() if cameras is None else cameras
        camera = found[0] if found else "none"
    if serial == "auto":
        found = find_serial_ports() if ports is None else ports
        serial = found[0] if found else "none"
    if settings.camera == "auto" and settings.serial == "auto" and camera == serial == "none":
        log.warning("no camera and no LED board found: running the simulated board (as --sim)")
        return dataclasses.replace(settings, camera="sim", serial="sim", sim=True)
    return dataclasses.replace(settings, camera=camera, serial=serial)


def build_board(settings: Settings, *, clock: Clock | None = None,
                bus: EventBus | None = None, film_leds: bool | None = None) -> BoardService:
    """The board with every part chosen by the (resolved) settings. `film_leds`: whether the
    simulated camera films the LED glow under the squares (default `FILM_LEDS`; the benchmark
    measures both)."""
    data = settings.data_path
    data.mkdir(parents=True, exist_ok=True)
    clock = clock or SystemClock()
    journal = Journal(data / JOURNAL_FILE)
    virtual_board = VirtualBoard(settings.size) if settings.sim else None
    leds = _leds(settings, clock)
    camera = _camera(settings, virtual_board, clock, leds,
                     FILM_LEDS if film_leds is None else film_leds)
    board = BoardService(settings=settings, journal=journal, bus=bus, clock=clock, camera=camera,
                         leds=leds, hinter=_hinter(settings), virtual_board=virtual_board)
    board.health.camera.source = settings.camera
    board.health.link.port = settings.serial
    return board


def _camera(settings: Settings, virtual_board: VirtualBoard | None, clock: Clock, leds,
            film_leds: bool):
    if settings.camera == "none":
        return None
    from controller.service.camera import CameraPipeline, open_frame_source

    def lit() -> dict[str, str]:
        if leds is None:
            return {}
        return {sq: light["colour"] for sq, light in leds.lit().get("squares", {}).items()
                if light.get("effect") != "off"}

    source = open_frame_source(settings, virtual_board, lit if film_leds else None)
    return CameraPipeline(source, settings=settings, clock=clock)


def _leds(settings: Settings, clock: Clock):
    if settings.serial == "none":
        return None
    from controller.service.leds_port import LedBoard

    return LedBoard(settings, clock=clock)


def _hinter(settings: Settings):
    """The built-in engine, or the configured external TEI engine with the built-in as fallback."""
    try:
        from controller.engine.hints import HintEngine
        from controller.service.hints import EngineHints
    except ImportError:
        return None
    external = shlex.split(settings.engine) if settings.engine else None
    return EngineHints(HintEngine(external))


async def serve(settings: Settings) -> int:
    settings = resolve_hardware(settings)
    token, created = load_or_create_token(settings.data_path, settings.token)
    board = build_board(settings)
    from controller.web.app import create_app

    app = create_app(board, settings, token=token)
    shown_host = "localhost" if settings.host in ("0.0.0.0", "::") else settings.host
    if created:
        print(f"\n  takboard control token (saved in {settings.data_path / TOKEN_FILE}):\n\n"
              f"      {token}\n\n  The page asks for it once, the first time you change "
              "the game.\n",
              file=sys.stderr)
    parts = ("simulated board" if settings.sim
             else f"camera {settings.camera}, LEDs {settings.serial}")
    print(f"  takboard: http://{shown_host}:{settings.port}/  ({parts})\n", file=sys.stderr)
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_config=None,
                            access_log=False, lifespan="on", ws_max_size=64 * 1024)
    server = uvicorn.Server(config)
    await server.serve()
    return 0

"""`takboard serve [--sim] [--size N] [--host H] [--port P] [--data DIR] [--config FILE] ...`

Starts the board service and its web page. Settings come from a TOML file (see
`controller/service/config.py`), then these flags. With no camera and no LED board attached, or with
`--sim`, the board is simulated: a virtual table you play on from the page, filmed by the simulated
camera, lit by the real LED firmware under emulation. `--engine CMD` hands hints and the computer
opponent to an external TEI engine (the built-in one takes over if it fails).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path

from controller.service.config import DEFAULT_DATA_DIR, SettingsError, load_settings

log = logging.getLogger("takboard.serve")

CONFIG_ENV = "TAKBOARD_CONFIG"
DEFAULT_CONFIG = Path("~/.config/takboard/takboard.toml")


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "serve", help="run the board service and its web page (default port 8000)",
        description="Run the board: camera -> vision -> tracking -> journal -> LEDs -> web page. "
        "Simulated hardware is used with --sim, or by itself when no camera and no LED board "
        "are found.")
    p.add_argument("--sim", action="store_true", default=None,
                   help="simulated camera, emulated LED firmware and a virtual board")
    p.add_argument("--size", type=int, help="board size 3..8 for new games and the LED layout")
    p.add_argument("--host", help="listen address (default 0.0.0.0: the local network)")
    p.add_argument("--port", type=int, help="listen port (default 8000)")
    p.add_argument("--data", type=Path, help=f"data directory (default {DEFAULT_DATA_DIR})")
    p.add_argument("--config", type=Path,
                   help=f"settings file (TOML; default ${CONFIG_ENV} or {DEFAULT_CONFIG} "
                   "if present)")
    p.add_argument("--camera", help="camera source: auto, sim, none, /dev/videoN or a video file")
    p.add_argument("--serial", help="LED board: auto, sim, none, a port path or a pyserial URL")
    p.add_argument("--token", help="control token (default: <data>/token, created on first start)")
    p.add_argument("--engine", metavar="COMMAND",
                   help='an external TEI engine for hints and the computer opponent, e.g. '
                   '"tiltak tei" (falls back to the built-in engine if it fails)')
    p.add_argument("--log", choices=("json", "text"), default="json", help="log format")
    return p


def settings_from_args(args):
    path = args.config or (Path(os.environ[CONFIG_ENV]) if os.environ.get(CONFIG_ENV) else None)
    if path is None and DEFAULT_CONFIG.expanduser().exists():
        path = DEFAULT_CONFIG.expanduser()
    settings = load_settings(path)
    try:
        return settings.with_overrides(size=args.size, host=args.host, port=args.port,
                                       data_dir=args.data, camera=args.camera, serial=args.serial,
                                       token=args.token, sim=args.sim,
                                       engine=getattr(args, "engine", None))
    except SettingsError as exc:
        raise SettingsError(str(exc).replace("<settings>", "command line")) from None


def limit_malloc_arenas(argv: list[str]) -> None:
    """Re-run this command with glibc's malloc arenas capped at 2. Every worker thread that touches
    frames would otherwise keep its own heap: about 60 MB more resident memory for nothing."""
    if os.environ.get("MALLOC_ARENA_MAX") or not sys.platform.startswith("linux"):
        return
    env = {**os.environ, "MALLOC_ARENA_MAX": "2"}
    os.execve(sys.executable, [sys.executable, "-m", "controller.cli", *argv], env)


def run(args) -> int:
    if sys.argv[1:2] == ["serve"]:  # started from the command line (not called in-process)
        limit_malloc_arenas(sys.argv[1:])
    from controller.service import logs

    logs.configure(args.log)
    try:
        settings = settings_from_args(args)
    except SettingsError as exc:
        print(f"takboard serve: {exc}", file=sys.stderr)
        return 2
    from controller.service.runner import serve

    return asyncio.run(serve(settings))

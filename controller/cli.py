"""`takboard ...`: the command line. Thin on purpose.

Each subcommand lives in its own module under `controller/commands/` and exposes two things:

    def add_parser(subparsers) -> argparse.ArgumentParser  # declares its arguments
    def run(args) -> int  # does the work, returns the exit status

This file only collects them, so adding a command never touches another command's code.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from controller import __version__

# Order is the order shown in `takboard --help`.
COMMAND_MODULES = [
    "controller.commands.serve",
    "controller.commands.doctor",
    "controller.commands.vision",
    "controller.commands.record",
    "controller.commands.games",
    "controller.commands.capture",
    "controller.commands.bench",
    "controller.commands.leds",
    "controller.commands.hint",
    "controller.commands.tei",
    "controller.commands.perft",
    "controller.commands.check",
    "controller.commands.show",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="takboard",
        description="Play Tak on a real board: camera recording, LED guidance, hints, web page.",
    )
    parser.add_argument("--version", action="version", version=f"takboard {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        sub = module.add_parser(subparsers)
        sub.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

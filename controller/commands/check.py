"""`takboard check FILE...`: replay every game in PTN files or PlayTak JSON lines and report.

Per game: legal to the end, or the first illegal ply and why; a ply played after the game was
decided; the recorded result against the result on the board. `--json` prints one JSON object per
game. The exit status is 1 when any game fails.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.commands._games import games_in
from controller.tak.check import GameReport, check_game


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "check",
        help="replay games in PTN files / PlayTak JSON lines and report problems",
        description="Replay every game in the given PTN files (several games per file) or PlayTak "
        "game-row JSON lines (one object per line with size, notation, result, komi in "
        "half-flats, pieces, capstones; -1 = standard). Reports the first illegal ply and why, "
        "a ply after the game was decided, and the recorded result against the board. "
        "Exit status 1 when any game fails.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="PTN or JSON-lines files")
    parser.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per game: file, index, tags, ok, plies, error, error_ply, "
        "result_recorded, result_board",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="report failing games only")
    return parser


def _line(path: str, report: GameReport) -> str:
    where = f"{path} game {report.index}"
    board = report.result_board or "not over"
    if report.ok:
        return f"{where}: ok, {report.plies} plies, board {board}" + (
            f", recorded {report.result_recorded}" if report.result_recorded else ""
        )
    return (
        f"{where}: FAIL {report.error} ({report.plies} plies legal, board {board}, "
        f"recorded {report.result_recorded or 'nothing'})"
    )


def run(args) -> int:
    failed = total = 0
    unreadable = False
    # a running count on a terminal when only failures (or JSON) go to stdout: archives are big
    show_progress = sys.stderr.isatty() and (args.quiet or args.json)
    for name in args.files:
        path = Path(name)
        try:
            games = list(games_in(path))
        except OSError as err:
            print(f"takboard check: cannot read {name}: {err.strerror or err}", file=sys.stderr)
            unreadable = True
            continue
        if not games:
            print(f"takboard check: {name}: no games found", file=sys.stderr)
        for number, game in enumerate(games, start=1):
            report = check_game(game)
            total += 1
            failed += not report.ok
            if show_progress and number % 200 == 0:
                print(f"\r{name}: {number}/{len(games)} games", end="", file=sys.stderr, flush=True)
            if args.json:
                print(json.dumps({"file": name, **report.as_dict()}, ensure_ascii=False))
            elif not (args.quiet and report.ok):
                print(_line(name, report))
    if show_progress:
        print("\r", end="", file=sys.stderr)
    if not args.json:
        print(f"{total} game{'s' * (total != 1)} checked, {failed} failed", file=sys.stderr)
    if unreadable:
        return 2
    return 1 if failed else 0

"""`takboard show FILE|TPS`: print a position as a text board (stacks readable at a glance).

Given a TPS string, shows that position. Given a PTN file (or PlayTak JSON lines), replays one game
(`--game`, default the first) up to `--ply` (default: to the end) and shows the board there.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.commands._games import games_in
from controller.tak import Position, TakError
from controller.tak.text import board_text


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "show",
        help="print a TPS position or a game's position as a text board",
        description="Print a position as a text board. SOURCE is a TPS string or a PTN / "
        "PlayTak JSON-lines file.",
    )
    parser.add_argument("source", metavar="FILE|TPS", help="a game file or a TPS string")
    parser.add_argument("--game", type=int, default=1, help="which game of the file (from 1)")
    parser.add_argument("--ply", type=int, default=None, help="show the board after this ply")
    return parser


def run(args) -> int:
    path = Path(args.source)
    if not path.is_file():
        if "/" not in args.source or len(args.source.split()) != 3:
            print(
                f"takboard show: {args.source!r} is neither a file nor a TPS string",
                file=sys.stderr,
            )
            return 2
        try:
            pos = Position.from_tps(args.source)
        except TakError as err:
            print(f"takboard show: {err}", file=sys.stderr)
            return 2
        print(pos.tps())
        print(board_text(pos))
        return 0
    try:
        games = list(games_in(path))
    except OSError as err:
        print(f"takboard show: cannot read {args.source}: {err}", file=sys.stderr)
        return 2
    if not 1 <= args.game <= len(games):
        print(
            f"takboard show: {args.source} has {len(games)} game(s), no game {args.game}",
            file=sys.stderr,
        )
        return 2
    game = games[args.game - 1]
    status = 0
    try:
        pos = game.start_position()
        limit = len(game.moves) if args.ply is None else args.ply - pos.ply_count
        for record in game.moves[: max(limit, 0)]:
            why = pos.why_illegal(record.ply)
            if why is not None:
                print(
                    f"takboard show: stopped before ply {pos.ply_count + 1} "
                    f'"{record.token or record.ply.ptn()}": {why}',
                    file=sys.stderr,
                )
                status = 1
                break
            pos.push(record.ply)
    except TakError as err:
        print(f"takboard show: {err}", file=sys.stderr)
        return 2
    if game.errors and args.ply is None:
        print(f"takboard show: {game.errors[0]}", file=sys.stderr)
        status = 1
    tags = " ".join(
        f"{k}={v!r}"
        for k, v in game.tags.items()
        if k.lower() in ("player1", "player2", "size", "komi", "result")
    )
    print(
        f"{args.source} game {args.game} after ply {pos.ply_count}" + (f" ({tags})" if tags else "")
    )
    print(pos.tps())
    print(board_text(pos))
    return status

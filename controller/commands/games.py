"""`takboard games list|export`: the game library in the journal.

    takboard games list [--db PATH]
    takboard games export ID [-o FILE] [--db PATH]
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

from controller.service.marks import annotated_ptn
from controller.store import Journal, JournalError, default_db_path


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "games",
        help="list recorded games or export one as PTN",
        description="The game library kept in the journal (SQLite).",
    )
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help="journal file (default: $TAKBOARD_DB or ./data/takboard.db)",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="one line per game, newest first")
    export = actions.add_parser("export", help="write one game as PTN (with tak/tinue marks)")
    export.add_argument("id", type=int, help="game id (see `takboard games list`)")
    export.add_argument("-o", "--output", type=Path, help="PTN file to write (default: stdout)")
    for action in (listing, export):  # `--db` also after the action, as people type it
        action.add_argument("--db", type=Path, default=argparse.SUPPRESS, help="journal file")
    return parser


def run(args) -> int:
    db_path = args.db or default_db_path()
    if not db_path.exists():
        print(f"takboard games: no journal at {db_path} (record a game first, or pass --db)",
              file=sys.stderr)
        return 1
    try:
        with Journal(db_path) as journal:
            if args.action == "list":
                return _list(journal)
            return _export(journal, args.id, args.output)
    except JournalError as exc:
        print(f"takboard games: {exc}", file=sys.stderr)
        return 1


def _list(journal: Journal) -> int:
    games = journal.games()
    if not games:
        print("no games recorded yet")
        return 0
    print(f"{'id':>4}  {'date':<16} {'size':<4} {'plies':>5}  {'result':<8} players")
    for game in games:
        when = dt.datetime.fromtimestamp(game.created_at).strftime("%Y-%m-%d %H:%M")
        players = " vs ".join(p or "?" for p in game.players) if any(game.players) else ""
        result = game.result or "playing"
        print(f"{game.id:>4}  {when:<16} {game.size}x{game.size:<2} {game.ply_count:>5}  "
              f"{result:<8} {players}")
    return 0


def _export(journal: Journal, game_id: int, output: Path | None) -> int:
    text = annotated_ptn(journal, game_id)  # with the tak (') and tinue ('') marks
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        print(f"game {game_id} written to {output}", file=sys.stderr)
    return 0

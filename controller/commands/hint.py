"""`takboard hint (TPS | --ptn FILE) [--komi K] [--time 2s] [--json]`: the engine's best ply.

Prints the best ply, its score, the principal variation and the depth reached; `--json` prints
exactly one object `{"best", "score", "pv", "depth", "nodes"}` (score in centiflats for the player
to move; a forced road or flat win is +-(1000000 - plies to it)).
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path

from controller.engine.board import BoardError
from controller.engine.hints import Hint, HintEngine, to_board
from controller.engine.limits import EngineError, Limit


def parse_duration_ms(text: str) -> int:
    """'2s', '1.5s', '500ms', '2' (seconds) -> milliseconds."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s)?\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"bad duration {text!r} (examples: 2s, 1.5s, 500ms)")
    value = float(match.group(1))
    return int(value if match.group(2) == "ms" else value * 1000)


def parse_komi(text: str) -> int:
    """Komi in flats as PTN writes it ('2', '1.5', '-0.5') -> half-flats."""
    try:
        halves = float(text) * 2
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"bad komi {text!r} (a number of flats, e.g. 2 or 1.5)"
        ) from None
    if halves != int(halves):
        raise argparse.ArgumentTypeError(f"komi {text!r} is not a whole or half flat")
    return int(halves)


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "hint",
        help="best ply for a position (TPS or the end of a PTN game)",
        description="Search a position and print the best ply, the score, the principal variation "
        "and the depth reached.",
    )
    parser.add_argument("tps", nargs="*", help='position as TPS, e.g. "x5/x5/x5/x5/x5 1 1"')
    parser.add_argument("--ptn", type=Path, metavar="FILE", help="use the position after this game")
    parser.add_argument(
        "--komi", type=parse_komi, default=None, help="komi in flats (default 0, or the PTN's)"
    )
    parser.add_argument(
        "--time",
        type=parse_duration_ms,
        default=2000,
        metavar="DURATION",
        help="thinking time (default 2s)",
    )
    parser.add_argument("--depth", type=int, default=None, help="stop at this depth")
    parser.add_argument("--nodes", type=int, default=None, help="stop after this many nodes")
    parser.add_argument(
        "--engine",
        default=None,
        metavar="COMMAND",
        help='external TEI engine command (e.g. "tiltak tei"); built-in on failure',
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _position(args) -> object:
    if args.ptn and args.tps:
        raise BoardError("give either a TPS or --ptn FILE, not both")
    if args.ptn:
        from controller.tak import ptn

        try:
            text = args.ptn.read_text(encoding="utf-8")
        except OSError as exc:
            raise BoardError(f"cannot read {args.ptn}: {exc.strerror}") from None
        games = ptn.read_games(text, filename=str(args.ptn))
        if not games:
            raise BoardError(f"{args.ptn}: no game found")
        position = games[0].replay()
        return to_board(position, komi=args.komi)
    if not args.tps:
        raise BoardError("give a position: a TPS (quoted) or --ptn FILE")
    return to_board(" ".join(args.tps), komi=args.komi or 0)


def format_score(score: int, forced_in: int | None) -> str:
    if forced_in is not None:
        who = "wins" if score > 0 else "loses"
        return f"player to move {who} by force in {forced_in} plies"
    return f"{score / 100:+.2f} flats"


def run(args) -> int:
    try:
        board = _position(args)
        limit = Limit(
            movetime_ms=None if (args.depth or args.nodes) and args.time == 2000 else args.time,
            depth=args.depth,
            nodes=args.nodes,
        )
        engine = HintEngine(shlex.split(args.engine) if args.engine else None)
        try:
            hint: Hint = engine.hint(board, limit=limit)
        finally:
            engine.close()
    except (BoardError, EngineError, ValueError) as exc:
        print(f"takboard hint: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(hint.as_json()))
        return 0
    print(f"best:  {hint.best}")
    print(f"score: {format_score(hint.score, hint.forced_in)}")
    print(f"pv:    {' '.join(hint.pv)}")
    print(f"depth: {hint.depth}   nodes: {hint.nodes}   engine: {hint.source}")
    return 0

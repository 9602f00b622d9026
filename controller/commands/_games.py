"""Reading game files for the `check` and `show` commands: PTN files and PlayTak JSON lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from controller.tak import ptn
from controller.tak.errors import PTNError
from controller.tak.playtak import game_from_row
from controller.tak.ptn import Game


def looks_like_json_lines(text: str) -> bool:
    """PlayTak rows: the first non-blank line is a JSON object (a PTN file starts with tags,
    plies or a `{comment}`, which is not valid JSON)."""
    for line in text.splitlines():
        if line.strip():
            try:
                return isinstance(json.loads(line), dict)
            except ValueError:
                return False
    return False


def games_in(path: Path) -> Iterator[Game]:
    """Every game in a file, in order; a malformed JSON line becomes a game with an error."""
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    name = str(path)
    if not looks_like_json_lines(text):
        yield from ptn.read_games(text, filename=name)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as err:
            game = Game(filename=name, index=number)
            game.errors.append(PTNError(name, number, number, None, None, f"not JSON: {err}"))
            yield game
            continue
        yield game_from_row(row, index=number, filename=name)

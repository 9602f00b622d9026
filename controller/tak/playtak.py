"""PlayTak server notation <-> `Ply`: `P A1 [W|C]` places, `M A2 A4 2 1` moves.

In a move the second square is the last square reached, and there is one drop count per square
entered: `M A2 A4 2 1` lifts 3 from a2 and drops 2 on a3, 1 on a4 (PTN `3a2+21`).

>>> to_ptn("M A2 A4 2 1").ptn()
'3a2+21'
>>> from_ptn(Ply.from_ptn("Sc3"))
'P C3 W'
>>> from_ptn(Ply.from_ptn("3a2+21"))
'M A2 A4 2 1'
"""

from __future__ import annotations

from controller.tak.errors import InvalidPlyError
from controller.tak.ply import Ply
from controller.tak.vocab import CAP, FILES, FLAT, WALL, parse_square

_STONES = {"": FLAT, "W": WALL, "C": CAP}
_LETTERS = {FLAT: "", WALL: " W", CAP: " C"}


def to_ptn(text: str) -> Ply:
    """Parse one PlayTak move; `InvalidPlyError` quoting the text when it is malformed."""
    if not isinstance(text, str):
        raise InvalidPlyError(f"a PlayTak move is text, not {type(text).__name__}")
    parts = text.split()
    try:
        if not parts:
            raise InvalidPlyError("empty move")
        kind = parts[0].upper()
        if kind == "P":
            if len(parts) not in (2, 3):
                raise InvalidPlyError("expected P <square> [W|C]")
            stone = parts[2].upper() if len(parts) == 3 else ""
            if stone not in _STONES:
                raise InvalidPlyError(f"stone {parts[2]!r} is not W (wall) or C (capstone)")
            return Ply.place(_square(parts[1]), _STONES[stone])
        if kind == "M":
            if len(parts) < 4:
                raise InvalidPlyError("expected M <from> <to> <drop> [<drop> ...]")
            origin, target = _square(parts[1]), _square(parts[2])
            (f0, r0), (f1, r1) = parse_square(origin), parse_square(target)
            if f0 == f1 and r0 != r1:
                direction, distance = ("+" if r1 > r0 else "-"), abs(r1 - r0)
            elif r0 == r1 and f0 != f1:
                direction, distance = (">" if f1 > f0 else "<"), abs(f1 - f0)
            else:
                raise InvalidPlyError(f"{origin} and {target} are not on one line")
            if not all(p.isdigit() for p in parts[3:]):
                raise InvalidPlyError("drop counts must be whole numbers")
            drops = tuple(int(p) for p in parts[3:])
            if len(drops) != distance:
                raise InvalidPlyError(f"{len(drops)} drop counts for {distance} square(s) entered")
            return Ply.spread(origin, direction, drops)
        raise InvalidPlyError(f"{parts[0]!r} is neither P (place) nor M (move)")
    except InvalidPlyError as err:
        raise InvalidPlyError(f'PlayTak move "{text}": {err}') from None


def _square(text: str) -> str:
    name = text.lower()
    parse_square(name)
    return name


def from_ptn(ply: Ply) -> str:
    """The PlayTak text for `ply` (a double-stack placement has no PlayTak form)."""
    if ply.direction is None:
        if ply.count != 1:
            raise InvalidPlyError(
                f"{ply.ptn()} places {ply.count} stones; PlayTak has no such move"
            )
        return f"P {ply.square.upper()}{_LETTERS[ply.stone]}"  # type: ignore[index]
    file = ply._file + ply._dx * len(ply.drops)
    rank = ply._rank + ply._dy * len(ply.drops)
    if not (0 <= file < 8 and 0 <= rank < 8):
        raise InvalidPlyError(f"{ply.ptn()} runs off every board")
    target = f"{FILES[file]}{rank + 1}".upper()
    return f"M {ply.square.upper()} {target} {' '.join(map(str, ply.drops))}"


def game_from_row(row: dict, *, index: int = 1, filename: str | None = None):
    """A PTN `Game` from one PlayTak database row (a JSON object).

    Fields: `size`, `notation` (server moves separated by commas), `result`, `komi` in half-flats,
    `pieces` and `capstones` (-1 = the standard reserves); `player_white`, `player_black`, `id`
    and `date` (milliseconds since 1970) become tags when present. Malformed moves become entries in
    `game.errors`, like a malformed ply in a PTN file.

    >>> g = game_from_row({"size": 5, "notation": "P A1,P E5,M E5 E4 1", "result": "0-0",
    ...                    "komi": 4, "pieces": -1, "capstones": -1})
    >>> g.tag("komi"), [r.ply.ptn() for r in g.moves]
    ('2', ['a1', 'e5', 'e5-'])
    """
    from datetime import UTC, datetime

    from controller.tak.errors import PTNError
    from controller.tak.ptn import Game, PlyRecord, format_komi

    game = Game(filename=filename, index=index)

    def bad(why: str, token: str | None = None, ply: int | None = None) -> None:
        game.errors.append(PTNError(filename, index, None, None, token, why, ply=ply))

    if not isinstance(row, dict):
        bad(f"a PlayTak game row is a JSON object, not {type(row).__name__}")
        return game
    size = row.get("size")
    game.tags["Size"] = str(size)
    for key, tag in (("player_white", "Player1"), ("player_black", "Player2"), ("id", "PlayTakID")):
        if row.get(key) not in (None, ""):
            game.tags[tag] = str(row[key])
    if isinstance(row.get("date"), int | float) and not isinstance(row["date"], bool):
        try:
            when = datetime.fromtimestamp(row["date"] / 1000, tz=UTC)
        except (ValueError, OverflowError, OSError):
            bad(f"date {row['date']!r} is not a time in milliseconds since 1970")
        else:
            game.tags["Date"] = when.strftime("%Y.%m.%d")
            game.tags["Time"] = when.strftime("%H:%M:%S")
    komi = row.get("komi", 0) or 0
    if not isinstance(komi, int) or isinstance(komi, bool):
        bad(f"komi {komi!r} is not a whole number of half-flats")
    elif komi:
        game.tags["Komi"] = format_komi(komi)
    for key, tag in (("pieces", "Flats"), ("capstones", "Caps")):
        value = row.get(key, -1)
        if value is None or value == -1:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            bad(f"{key} {value!r} is not -1 (standard) or a count")
        else:
            game.tags[tag] = str(value)
    if row.get("result") not in (None, ""):
        game.tags["Result"] = str(row["result"])
        game.result_token = str(row["result"])
    notation = row.get("notation", "")
    if not isinstance(notation, str):
        bad(f"notation is {type(notation).__name__}, not text")
        return game
    for number, move in enumerate((m.strip() for m in notation.split(",")), start=1):
        if not move:
            continue
        try:
            game.moves.append(PlyRecord(to_ptn(move), token=move))
        except InvalidPlyError as err:
            why = str(err).split('": ', 1)[-1]
            bad(why, token=move, ply=number)
            break
    return game

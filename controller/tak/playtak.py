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

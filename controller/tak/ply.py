"""`Ply`: one Tak ply as a small hashable value, with PTN text in and out.

>>> Ply.from_ptn("3c3+12*")
Ply.from_ptn('3c3+12*')
>>> Ply.from_ptn("Fa1!?").ptn()
'a1'
>>> Ply.spread("a1", ">", (1,)).ptn()
'a1>'
>>> Ply.from_ptn("3c3+3") == Ply.from_ptn("3c3+")
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from controller.tak.errors import InvalidPlyError
from controller.tak.vocab import CAP, DIRECTIONS, FILES, FLAT, MAX_SIZE, WALL, parse_square

STONE_LETTERS = {FLAT: "", WALL: "S", CAP: "C"}
_LETTER_STONES = {"": FLAT, "F": FLAT, "S": WALL, "C": CAP}

ANNOTATIONS = ("''", "'", "!?", "?!", "!!", "??", "!", "?")

# One ply, lenient: optional stone letter or count, square, then direction, drops and '*',
# then trailing annotations (tak marks and ! ?).
_PLY_RE = re.compile(
    r"""^(?P<stone>[FSC])?(?P<count>\d+)?(?P<square>[a-z]\d+)
        (?:(?P<dir>[-+<>])(?P<drops>\d*)(?P<star>\*)?)?
        (?P<note>['"!?]*)$""",
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class Ply:
    """One ply. Build with `Ply.place`, `Ply.spread` or `Ply.from_ptn`.

    `flattens` is derived by `Position` (a lone capstone flattened a wall); it does not take part in
    equality or hashing, so `Ply.from_ptn("c3<")` equals the ply a position lists as `c3<*`.
    """

    square: str
    stone: int | None = None
    direction: str | None = None
    drops: tuple[int, ...] = ()
    flattens: bool = field(default=False, compare=False)
    count: int = 0  # pieces placed (1, or 2 for the double-black-stack opening) or lifted
    # board-independent coordinates used by Position.push; computed once
    _file: int = field(default=0, init=False, repr=False, compare=False)
    _rank: int = field(default=0, init=False, repr=False, compare=False)
    _dx: int = field(default=0, init=False, repr=False, compare=False)
    _dy: int = field(default=0, init=False, repr=False, compare=False)
    # one int per distinct ply (any board size), equal exactly when the plies are equal: what
    # hashing and equality use, so search tables keyed by plies cost an int compare, not a tuple
    code: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        file, rank = parse_square(self.square, MAX_SIZE)
        object.__setattr__(self, "_file", file)
        object.__setattr__(self, "_rank", rank)
        if self.direction is None:
            if self.stone not in (FLAT, WALL, CAP):
                raise InvalidPlyError(
                    f"a placement needs a stone FLAT, WALL or CAP, not {self.stone!r}"
                )
            if self.drops:
                raise InvalidPlyError("a placement has no drops")
            count = self.count or 1
            if count not in (1, 2) or (count == 2 and self.stone != FLAT):
                raise InvalidPlyError(
                    f"a placement puts down 1 stone (2 flats only in the double-black-stack "
                    f"opening), not {count}"
                )
            object.__setattr__(self, "count", count)
            if self.flattens:
                raise InvalidPlyError("a placement cannot flatten a wall")
            code = ((count * 3 + self.stone) * 8 + rank) * 8 + file
            object.__setattr__(self, "code", code << 1)
            return
        if self.direction not in DIRECTIONS:
            raise InvalidPlyError(f"direction {self.direction!r} is not one of + - > <")
        if self.stone is not None:
            raise InvalidPlyError("a spread has no stone type")
        drops = self.drops
        if isinstance(drops, int):
            drops = (drops,)
        drops = tuple(drops)
        if not drops:
            raise InvalidPlyError("a spread needs at least one drop")
        if any(not isinstance(d, int) or d < 1 for d in drops):
            raise InvalidPlyError(f"every drop must be at least 1 stone, got {drops}")
        total = sum(drops)
        if self.count and self.count != total:
            raise InvalidPlyError(f"drops sum to {total} but count is {self.count}")
        if total > MAX_SIZE:
            raise InvalidPlyError(
                f"count {total} is more than any board's carry limit ({MAX_SIZE})"
            )
        if len(drops) >= MAX_SIZE:
            raise InvalidPlyError(f"{len(drops)} drops cannot fit on any board")
        object.__setattr__(self, "drops", drops)
        object.__setattr__(self, "count", total)
        dx, dy = DIRECTIONS[self.direction]
        object.__setattr__(self, "_dx", dx)
        object.__setattr__(self, "_dy", dy)
        packed = 0
        for d in reversed(drops):  # drops are 1..8: base 9 digits, none zero, so length is implied
            packed = packed * 9 + d
        code = ((packed * 4 + "+-><".index(self.direction)) * 8 + rank) * 8 + file
        object.__setattr__(self, "code", code << 1 | 1)

    def __hash__(self) -> int:
        return self.code

    def __eq__(self, other: object) -> bool:
        if other.__class__ is Ply:
            return self.code == other.code  # type: ignore[attr-defined]
        return NotImplemented

    # -- constructors ------------------------------------------------------------------------
    @classmethod
    def place(cls, square: str, stone: int = FLAT, count: int = 1) -> Ply:
        return cls(square, stone, count=count)

    @classmethod
    def spread(cls, square: str, direction: str, drops: tuple[int, ...] | list[int] | int) -> Ply:
        if isinstance(drops, int):
            drops = (drops,)
        return cls(square, None, direction, tuple(drops))

    @classmethod
    def from_ptn(cls, text: str) -> Ply:
        """Parse one PTN ply, leniently: `F` prefix, `*`, annotations, omitted count and drops."""
        ply, _note = parse_ptn_ply(text)
        return ply

    # -- views -------------------------------------------------------------------------------
    @property
    def is_placement(self) -> bool:
        return self.direction is None

    @property
    def is_spread(self) -> bool:
        return self.direction is not None

    def squares(self, size: int = MAX_SIZE) -> list[str]:
        """Every square the ply touches, origin first, then each square dropped on.

        >>> Ply.from_ptn("3b2>21").squares(5)
        ['b2', 'c2', 'd2']
        """
        parse_square(self.square, size)
        if self.direction is None:
            return [self.square]
        out = [self.square]
        file, rank = self._file, self._rank
        for _ in self.drops:
            file += self._dx
            rank += self._dy
            if not (0 <= file < size and 0 <= rank < size):
                raise InvalidPlyError(f"{self.ptn()} runs off a {size}x{size} board")
            out.append(f"{FILES[file]}{rank + 1}")
        return out

    def ptn(self) -> str:
        """Canonical PTN: no `F`, count and drops only when needed, `*` for a flattened wall."""
        if self.direction is None:
            prefix = "2" if self.count == 2 else ""
            return f"{STONE_LETTERS[self.stone]}{prefix}{self.square}"  # type: ignore[index]
        count = str(self.count) if self.count > 1 else ""
        drops = "".join(map(str, self.drops)) if len(self.drops) > 1 else ""
        return f"{count}{self.square}{self.direction}{drops}{'*' if self.flattens else ''}"

    def with_flattens(self, flattens: bool = True) -> Ply:
        return self if self.flattens == flattens else replace(self, flattens=flattens)

    def __str__(self) -> str:
        return self.ptn()

    def __repr__(self) -> str:
        return f"Ply.from_ptn({self.ptn()!r})"


def parse_ptn_ply(text: str) -> tuple[Ply, str]:
    """Parse one PTN ply; return the ply and its trailing annotation (`''`, `!?`, ... or `""`).

    >>> parse_ptn_ply("Cc3''")
    (Ply.from_ptn('Cc3'), "''")
    >>> parse_ptn_ply("12d4-12")
    Traceback (most recent call last):
    ...
    controller.tak.errors.InvalidPlyError: "12d4-12": drops sum to 3 but count is 12
    """
    if not isinstance(text, str):
        raise InvalidPlyError(f"a ply is text, not {type(text).__name__}")
    raw = text.strip()
    m = _PLY_RE.match(raw)
    if not m:
        raise InvalidPlyError(f'"{raw}" is not a PTN ply (like a1, Sb2, Cc3, 3c3>12)')
    note = m["note"].replace('"', "''")
    if note and note not in ANNOTATIONS and not _is_annotation(note):
        raise InvalidPlyError(f"\"{raw}\": {note!r} is not an annotation (' '' ! ? !? ?! !! ??)")
    try:
        if m["dir"] is None:
            count = int(m["count"]) if m["count"] else 1
            if count != 1 and m["stone"] not in (None, "F"):
                raise InvalidPlyError("only flats are placed two at a time")
            return Ply(m["square"], _LETTER_STONES[m["stone"] or ""], count=count), note
        if m["stone"] is not None:
            raise InvalidPlyError(f"a spread has no stone letter ({m['stone']!r})")
        drops_text = m["drops"]
        count = int(m["count"]) if m["count"] else None
        if drops_text:
            drops = tuple(int(c) for c in drops_text)
            if 0 in drops:
                raise InvalidPlyError("every drop must be at least 1 stone")
            if count is None:
                count = sum(drops)
            if sum(drops) != count:
                raise InvalidPlyError(f"drops sum to {sum(drops)} but count is {count}")
        else:
            if count is None:
                count = 1
            if count < 1:
                raise InvalidPlyError("a spread lifts at least 1 stone")
            drops = (count,)
        return Ply(m["square"], None, m["dir"], drops, flattens=bool(m["star"]), count=count), note
    except InvalidPlyError as err:
        why = str(err)
        raise InvalidPlyError(f'"{raw}": {why}') from None


def _is_annotation(note: str) -> bool:
    """A tak mark (`'` or `''`) optionally followed by ! ? marks, or the other way round."""
    ticks = note.rstrip("!?")
    marks = note[len(ticks) :]
    if ticks not in ("", "'", "''"):
        # marks first, then ticks
        marks2 = note.rstrip("'")
        ticks2 = note[len(marks2) :]
        return ticks2 in ("'", "''") and marks2 in ("", "!", "?", "!?", "?!", "!!", "??")
    return marks in ("", "!", "?", "!?", "?!", "!!", "??")

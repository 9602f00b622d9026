"""Plain values every part of takboard shares: players, stones, squares, directions, reserves.

>>> parse_square("c3", 5)
(2, 2)
>>> square_name(2, 2)
'c3'
"""

from __future__ import annotations

from controller.tak.errors import InvalidPlyError

WHITE = 0  # player 1, light pieces; TPS writes 1
BLACK = 1  # player 2, dark pieces; TPS writes 2

FLAT = 0
WALL = 1  # a "standing stone"
CAP = 2

MIN_SIZE = 3
MAX_SIZE = 8
FILES = "abcdefgh"

# PTN direction character -> (file step, rank step)
DIRECTIONS: dict[str, tuple[int, int]] = {"+": (0, 1), "-": (0, -1), ">": (1, 0), "<": (-1, 0)}

# size -> (flats, capstones) per player
STANDARD_RESERVES: dict[int, tuple[int, int]] = {
    3: (10, 0),
    4: (15, 0),
    5: (21, 1),
    6: (30, 1),
    7: (40, 2),
    8: (50, 2),
}

OPENINGS = ("swap", "no-swap", "double black stack")


def check_size(size: int) -> int:
    """Return `size` if Tak is played on it, else raise `ValueError` saying which sizes are."""
    if not isinstance(size, int) or isinstance(size, bool) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"board size {size!r} is not supported: Tak is played on 3x3 to 8x8")
    return size


def parse_square(name: str, size: int = MAX_SIZE) -> tuple[int, int]:
    """`"c3"` -> `(file, rank)`, 0-based; `InvalidPlyError` for a malformed or off-board square.

    >>> parse_square("a5", 4)
    Traceback (most recent call last):
    ...
    controller.tak.errors.InvalidPlyError: a5 is off a 4x4 board
    """
    if (
        not isinstance(name, str)
        or len(name) != 2
        or name[0] not in FILES
        or not "1" <= name[1] <= "8"
    ):
        raise InvalidPlyError(f"{name!r} is not a square (a file a-h then a rank 1-8, like 'c3')")
    file, rank = FILES.index(name[0]), int(name[1]) - 1
    if file >= size or rank >= size:
        raise InvalidPlyError(f"{name} is off a {size}x{size} board")
    return file, rank


def square_name(file: int, rank: int) -> str:
    """`(2, 2)` -> `"c3"`."""
    if not (0 <= file < MAX_SIZE and 0 <= rank < MAX_SIZE):
        raise InvalidPlyError(f"({file}, {rank}) is not a square of any Tak board")
    return f"{FILES[file]}{rank + 1}"


def player_name(player: int) -> str:
    return "white" if player == WHITE else "black"

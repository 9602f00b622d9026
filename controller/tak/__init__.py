"""Rules engine: position, plies, PTN, TPS, perft.

Standard library only; imports nothing from the project.

>>> from controller.tak import Position, Ply
>>> p = Position(5)
>>> p.play(Ply.from_ptn("a1")).ptn()
'a1'
"""

from controller.tak import playtak, ptn
from controller.tak.errors import IllegalPlyError, InvalidPlyError, PTNError, TakError, TPSError
from controller.tak.outcome import Outcome
from controller.tak.perft import perft, perft_divide
from controller.tak.ply import Ply
from controller.tak.position import LegalPlies, Position
from controller.tak.vocab import (
    BLACK,
    CAP,
    FLAT,
    OPENINGS,
    STANDARD_RESERVES,
    WALL,
    WHITE,
    parse_square,
    square_name,
)

__all__ = [
    "BLACK",
    "CAP",
    "FLAT",
    "OPENINGS",
    "STANDARD_RESERVES",
    "WALL",
    "WHITE",
    "IllegalPlyError",
    "InvalidPlyError",
    "LegalPlies",
    "Outcome",
    "PTNError",
    "Ply",
    "Position",
    "TPSError",
    "TakError",
    "parse_square",
    "perft",
    "perft_divide",
    "playtak",
    "ptn",
    "square_name",
]

"""`Outcome`: how a game ended, and its PTN result text.

>>> Outcome(0, "road").result()
'R-0'
>>> Outcome.from_result("0-F")
Outcome(winner=1, reason='flats')
>>> Outcome(None, "draw").result()
'1/2-1/2'
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.tak.errors import TakError
from controller.tak.vocab import BLACK, WHITE

REASONS = ("road", "flats", "draw", "resign", "time", "other")
_LETTER = {"road": "R", "flats": "F"}
RESULTS = ("R-0", "0-R", "F-0", "0-F", "1-0", "0-1", "1/2-1/2")


@dataclass(frozen=True)
class Outcome:
    winner: int | None  # WHITE, BLACK, or None for a draw
    reason: str

    def __post_init__(self) -> None:
        if self.reason not in REASONS:
            raise TakError(f"outcome reason {self.reason!r} is not one of {', '.join(REASONS)}")
        if self.winner not in (WHITE, BLACK, None):
            raise TakError(f"outcome winner {self.winner!r} is not WHITE, BLACK or None")

    def result(self) -> str:
        if self.winner is None:
            return "1/2-1/2"
        mark = _LETTER.get(self.reason, "1")
        return f"{mark}-0" if self.winner == WHITE else f"0-{mark}"

    @classmethod
    def from_result(cls, text: str) -> Outcome:
        """Parse a PTN result (`R-0`, `0-F`, `1-0`, `1/2-1/2`, ...); `TakError` otherwise."""
        t = text.strip() if isinstance(text, str) else text
        if t in ("1/2-1/2", "½-½"):
            return cls(None, "draw")
        table = {
            "R-0": (WHITE, "road"),
            "0-R": (BLACK, "road"),
            "F-0": (WHITE, "flats"),
            "0-F": (BLACK, "flats"),
            "1-0": (WHITE, "other"),
            "0-1": (BLACK, "other"),
        }
        if t not in table:
            raise TakError(f"result {text!r} is not one of {', '.join(RESULTS)}")
        return cls(*table[t])

"""Playing against the computer on the real board.

The computer's side and strength are kept in the game's own tags (`[Computer "black medium"]`), so a
restarted service knows who plays what, and the exported PTN says it too. When it is the computer's
turn the board service asks the engine for a ply and shows it on the LEDs exactly like a hint (the
origin pulses blue, each drop square flashes once per piece); a player moves the pieces for it and
the camera confirms. A different ply on the board is not recorded: the squares that differ from the
computer's ply blink until the board shows it.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.engine.limits import Limit
from controller.tak import Ply, Position

TAG = "Computer"
SIDES = {"white": 0, "black": 1}

# Strength = how long the engine may think (on a Raspberry Pi 4 about a third of a laptop's depth).
STRENGTHS: dict[str, Limit] = {
    "easy": Limit(depth=1),  # sees roads in one and blocks threats, nothing deeper
    "medium": Limit(movetime_ms=700),
    "hard": Limit(movetime_ms=2500),
}


@dataclass(frozen=True)
class Opponent:
    side: int  # 0: the computer plays player 1 (white, light pieces); 1: player 2
    strength: str = "medium"

    def __post_init__(self) -> None:
        if self.side not in (0, 1):
            raise ValueError(f"the computer plays side 0 (white) or 1 (black), got {self.side!r}")
        if self.strength not in STRENGTHS:
            raise ValueError(
                f"strength must be one of {', '.join(STRENGTHS)}, got {self.strength!r}"
            )

    @property
    def colour(self) -> str:
        return "white" if self.side == 0 else "black"

    @property
    def limit(self) -> Limit:
        return STRENGTHS[self.strength]

    @property
    def player_name(self) -> str:
        return f"takboard ({self.strength})"

    def tag(self) -> str:
        return f"{self.colour} {self.strength}"

    @classmethod
    def from_tags(cls, tags: dict[str, str]) -> Opponent | None:
        """The opponent a game's tags name, or None (no tag, or one this version cannot read)."""
        text = next((value for name, value in tags.items() if name.lower() == TAG.lower()), None)
        if not text:
            return None
        words = text.split()
        if len(words) != 2 or words[0] not in SIDES or words[1] not in STRENGTHS:
            return None
        return cls(SIDES[words[0]], words[1])

    def to_move(self, position: Position) -> bool:
        """Is it the computer's turn (and the game not over)?"""
        return position.to_move == self.side and position.outcome() is None

    def as_dict(self, move: Ply | None, thinking: bool) -> dict[str, object]:
        return {
            "side": self.colour,
            "strength": self.strength,
            "move": move.ptn() if move is not None else None,
            "thinking": thinking,
        }


def squares_to_fix(position: Position, wanted: Ply, shown: Ply) -> list[str]:
    """Squares whose stacks differ between the board after `shown` and after `wanted`."""
    after_shown = _stacks_after(position, shown)
    after_wanted = _stacks_after(position, wanted)
    names = after_shown.keys() | after_wanted.keys()
    return sorted(sq for sq in names if after_shown.get(sq) != after_wanted.get(sq))


def _stacks_after(position: Position, ply: Ply) -> dict[str, tuple[tuple[int, int], ...]]:
    position.push(ply)
    try:
        return position.stacks()
    finally:
        position.pop()

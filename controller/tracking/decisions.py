"""What the tracker decides, as plain data. The service (or the offline recorder) acts on them."""

from __future__ import annotations

from dataclasses import dataclass

from controller.tak import Outcome, Ply


@dataclass(frozen=True)
class Candidate:
    ply: Ply
    cost: float  # disagreement with the reading; lower is better
    # two plies seen at once: the reply the board shows played right after `ply` (accepting
    # `ply` records both)
    then: Ply | None = None
    # more plies seen at once, played after `then` (a catch-up after a desync: `catch_up.py`)
    more: tuple[Ply, ...] = ()

    def describe(self) -> str:
        later = [p for p in (self.then, *self.more) if p is not None]
        return " then ".join(p.ptn() for p in (self.ply, *later))


@dataclass(frozen=True)
class Commit:
    """`ply` was played; `margin` = runner-up cost minus this ply's cost (how clearly it won)."""

    ply: Ply
    margin: float
    number: int  # 1-based ply number in the game


@dataclass(frozen=True)
class Ask:
    """Several plies explain the board about equally well, best first. `Tracker.accept` resolves."""

    candidates: tuple[Candidate, ...]
    reason: str = ""  # why, when it is not just close scores (e.g. the board was unmatched before)


@dataclass(frozen=True)
class Takeback:
    """The board went back `n` plies (to a position of the last 20): those plies are undone."""

    n: int


@dataclass(frozen=True)
class Illegal:
    """The still board matches no legal ply and no recent position; these squares look wrong."""

    squares: tuple[str, ...]


@dataclass(frozen=True)
class Desync:
    """Unmatched for too long: recording stopped until the board shows `expected` (TPS) again."""

    expected: str
    squares: tuple[str, ...]


@dataclass(frozen=True)
class Resynced:
    """The board matches the game again after an `Illegal` or `Desync`."""


@dataclass(frozen=True)
class Withdrawn:
    """The board went back to how it was before the last `Ask`, unanswered: the ply asked about
    was taken back by hand, and the question with it (nothing to answer any more)."""


@dataclass(frozen=True)
class GameOver:
    outcome: Outcome


@dataclass(frozen=True)
class PlayedOn:
    """After an ending that rests on unsure plies, pieces came onto `squares`, bare on the board
    at or since the end: the game is being played on, so the ending is likely false (clearing a
    board only takes pieces off). Nothing after the ending is recorded; a user must know. Only the
    offline recorder guesses answers; the service asks people, so it never gets one."""

    squares: tuple[str, ...]


Decision = (Commit | Ask | Takeback | Illegal | Desync | Resynced | Withdrawn | GameOver
            | PlayedOn)

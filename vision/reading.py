"""`BoardReading`: what the camera saw in one frame. vision's only output; tracking consumes it.

A reading says, per frame, whether the board was found, whether a hand/arm or motion made the frame
unfit to trust, and, per square, whether it is empty, the top piece's colour and kind, and the stack
height, each with a confidence in [0, 1]. It knows nothing about the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vision.geometry import square_name

COLORS = ("light", "dark")
KINDS = ("flat", "wall", "cap")


@dataclass(frozen=True)
class SquareReading:
    """One square. For an empty square color and kind are None and height is 0."""

    empty: bool
    color: str | None = None
    kind: str | None = None
    height: int = 0
    confidence: float = 1.0  # the weakest of the per-attribute confidences below
    empty_confidence: float = 1.0
    color_confidence: float = 1.0
    kind_confidence: float = 1.0
    height_confidence: float = 1.0
    # The whole of the reader's belief, given the square is occupied, where it has one: the top's
    # kind (flat, wall, capstone) and the stack's height (1, 2, ... 8, the last "8 or more": the
    # classifier learns a taller stack as 8, `vision.net.MAX_HEIGHT`). The calls above are their
    # most likely entries, at the confidences above; the rest tells tracking which other answer
    # the reader leans to (a height read 2 at 0.55 may have 3 at 0.4 or 1 at 0.4).
    kind_probabilities: tuple[float, ...] | None = None
    height_probabilities: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if self.empty and (self.color or self.kind or self.height):
            raise ValueError(f"an empty square has no colour, kind or height: {self!r}")
        if not self.empty:
            if self.color not in COLORS:
                raise ValueError(f"colour must be one of {COLORS}, got {self.color!r}")
            if self.kind not in KINDS:
                raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
            if self.height < 1:
                raise ValueError(f"an occupied square has height >= 1, got {self.height}")
        if self.kind_probabilities is not None and len(self.kind_probabilities) != len(KINDS):
            raise ValueError(f"kind_probabilities: one per kind {KINDS}, got "
                             f"{self.kind_probabilities!r}")  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {
            "empty": self.empty,
            "color": self.color,
            "kind": self.kind,
            "height": self.height,
            "confidence": round(self.confidence, 4),
            "confidences": {
                "empty": round(self.empty_confidence, 4),
                "color": round(self.color_confidence, 4),
                "kind": round(self.kind_confidence, 4),
                "height": round(self.height_confidence, 4),
            },
        }

    def label(self) -> str:
        """Short text for diagrams and debug images: `.` empty, else height + L/D + F/S/C."""
        if self.empty:
            return "."
        kind = {"flat": "", "wall": "S", "cap": "C"}[self.kind or "flat"]
        return f"{self.height}{'L' if self.color == 'light' else 'D'}{kind}"


@dataclass
class BoardReading:
    """One frame's reading. `squares` is empty whenever the board was not found (never guessed)."""

    size: int
    board_found: bool
    occluded: bool = False
    moving: bool = False
    confidence: float = 0.0
    relocalised: bool = False
    squares: dict[str, SquareReading] = field(default_factory=dict)
    reason: str = ""  # why the frame is flagged (board not found, hand, motion, dark ...), else ""
    timings_ms: dict[str, float] = field(default_factory=dict)
    # Per square name, its appearance signature (`vision.appearance`: [bins, 3] floats) when the
    # reader computed them: what tracking compares to see which squares changed. Not in to_json.
    appearance: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    @property
    def clean(self) -> bool:
        """True when tracking may use the squares: board found, no hand, no motion."""
        return self.board_found and not self.occluded and not self.moving and bool(self.squares)

    def to_json(self) -> dict[str, Any]:
        """The issue's JSON shape (extra keys are additions, never renames)."""
        return {
            "board_found": self.board_found,
            "occluded": self.occluded,
            "moving": self.moving,
            "relocalised": self.relocalised,
            "confidence": round(self.confidence, 4),
            "reason": self.reason,
            "size": self.size,
            "squares": {name: sq.to_json() for name, sq in self.squares.items()},
        }

    def diagram(self) -> str:
        """Rank N at the top, like a board seen from player 1's side."""
        head = (
            f"board {self.size}x{self.size}: "
            + ("found" if self.board_found else "NOT FOUND")
            + (", HAND/ARM OVER BOARD" if self.occluded else "")
            + (", MOVING" if self.moving else "")
            + (", re-localised" if self.relocalised else "")
            + f", confidence {self.confidence:.2f}"
            + (f" ({self.reason})" if self.reason else "")
        )
        lines = [head]
        if not self.squares:
            return "\n".join(lines)
        for rank in reversed(range(self.size)):
            cells = []
            for file in range(self.size):
                sq = self.squares.get(square_name(file, rank))
                cells.append(f"{sq.label() if sq else '?':>4}")
            lines.append(f"{rank + 1:>2} " + " ".join(cells))
        lines.append("   " + " ".join(f"{c:>4}" for c in "abcdefgh"[: self.size]))
        lines.append("   (height + L light / D dark, S wall, C capstone; '.' empty)")
        return "\n".join(lines)

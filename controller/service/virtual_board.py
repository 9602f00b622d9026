"""The virtual board for `--sim`: wooden pieces on squares, moved by hand, with no rules at all.

This is the physical world the simulated camera films. It deliberately does NOT know Tak: a player
can
put a flat on top of a stack, spread badly, knock a stack over or leave a hand over the board,
exactly
as on a real table, and it is the real vision + tracking code downstream that has to notice.

Pieces are `(player, stone)` pairs with the rules engine's numbers (player 0 light, 1 dark; stone 0
flat, 1 wall, 2 cap). Stacks list pieces bottom -> top. Every change bumps `version`, so the camera
knows when to render a new scene.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

FILES = "abcdefgh"
FLAT, WALL, CAP = 0, 1, 2
DIRECTIONS = {"+": (0, 1), "-": (0, -1), ">": (1, 0), "<": (-1, 0)}

Piece = tuple[int, int]


class VirtualBoardError(ValueError):
    """An action the hands cannot do (no such square, nothing to pick up, empty hand ...)."""


@dataclass(frozen=True)
class Scene:
    """One instant of the table, as the camera would see it."""

    size: int
    stacks: dict[str, tuple[Piece, ...]]
    hand_over: bool
    in_hand: tuple[Piece, ...]
    version: int

    def as_dict(self) -> dict:
        return {
            "size": self.size,
            "stacks": {sq: [list(p) for p in st] for sq, st in self.stacks.items()},
            "hand_over": self.hand_over,
            "in_hand": [list(p) for p in self.in_hand],
            "version": self.version,
        }


class VirtualBoard:
    """Mutated by the web page (event loop thread), read by the camera thread: hence the lock."""

    def __init__(self, size: int) -> None:
        self._lock = threading.Lock()
        self.size = size
        self._stacks: dict[str, list[Piece]] = {}
        self._hand: list[Piece] = []
        self._hand_from: str | None = None
        self._hand_raised = False  # a hand hovering with nothing in it
        self.version = 0

    # --- reading -------------------------------------------------------------------------------
    def scene(self) -> Scene:
        with self._lock:
            return Scene(
                size=self.size,
                stacks={sq: tuple(st) for sq, st in self._stacks.items() if st},
                hand_over=self._hand_raised or bool(self._hand),
                in_hand=tuple(self._hand),
                version=self.version,
            )

    def stack(self, square: str) -> tuple[Piece, ...]:
        self._square(square)
        with self._lock:
            return tuple(self._stacks.get(square, ()))

    # --- hands ---------------------------------------------------------------------------------
    def reset(self, size: int | None = None, stacks: dict[str, list[Piece]] | None = None) -> None:
        """Clear the table (a new game), or lay out `stacks` (put the board back as it should
        be)."""
        with self._lock:
            if size is not None:
                self.size = size
            self._stacks = {}
            for square, pieces in (stacks or {}).items():
                self._square(square)
                self._stacks[square] = [self._piece(p) for p in pieces]
            self._hand, self._hand_from, self._hand_raised = [], None, False
            self.version += 1

    def place(self, square: str, player: int, stone: int = FLAT) -> None:
        """Put one piece from the reserve on a square (on top of whatever is there)."""
        self._square(square)
        piece = self._piece((player, stone))
        with self._lock:
            self._require_empty_hand("place a piece")
            self._require_flat_top(square, "place a piece on it")
            self._stacks.setdefault(square, []).append(piece)
            self.version += 1

    def remove_top(self, square: str) -> Piece:
        """Take the top piece back to the reserve (undoing a placement by hand)."""
        self._square(square)
        with self._lock:
            self._require_empty_hand("take a piece back")
            stack = self._stacks.get(square)
            if not stack:
                raise VirtualBoardError(f"{square} is empty: nothing to take back")
            piece = stack.pop()
            self.version += 1
            return piece

    def pick_up(self, square: str, count: int) -> None:
        """Lift the top `count` pieces of a stack into the hand; the hand is now over the board."""
        self._square(square)
        with self._lock:
            self._require_empty_hand("pick up another stack")
            stack = self._stacks.get(square, [])
            if not 1 <= count <= len(stack):
                raise VirtualBoardError(
                    f"cannot pick up {count} from {square}: the stack there has {len(stack)}"
                )
            self._hand = stack[-count:]
            del stack[-count:]
            self._hand_from = square
            self.version += 1

    def drop(self, square: str, count: int = 1) -> None:
        """Drop the bottom `count` pieces of the hand on a square. A lone capstone dropped on a wall
        flattens it (the player lays the wall down, as the rules ask); nothing else stays on top of
        a wall or a capstone."""
        self._square(square)
        with self._lock:
            if not 1 <= count <= len(self._hand):
                raise VirtualBoardError(f"cannot drop {count}: the hand holds {len(self._hand)}")
            target = self._stacks.setdefault(square, [])
            lone_cap = count == len(self._hand) == 1 and self._hand[0][1] == CAP
            if target and target[-1][1] == WALL and lone_cap:
                target[-1] = (target[-1][0], FLAT)
            self._require_flat_top(square, "drop on it")
            dropped, self._hand = self._hand[:count], self._hand[count:]
            target.extend(dropped)
            if not self._hand:
                self._hand_from = None
            self.version += 1

    def spread(self, square: str, direction: str, drops: list[int]) -> None:
        """Pick up sum(drops) pieces and drop them along `direction`, one square further per
        drop."""
        if direction not in DIRECTIONS:
            raise VirtualBoardError(f"direction must be one of + - < >, got {direction!r}")
        if not drops or any(d < 1 for d in drops):
            raise VirtualBoardError(f"drops must be positive counts, got {drops!r}")
        f, r = self._square(square)
        df, dr = DIRECTIONS[direction]
        targets = [self._name(f + df * i, r + dr * i) for i in range(1, len(drops) + 1)]
        if any(t is None for t in targets):
            raise VirtualBoardError(
                f"a spread of {len(drops)} from {square} {direction} leaves the board")
        self.pick_up(square, sum(drops))
        for target, count in zip(targets, drops, strict=True):
            self.drop(target, count)  # type: ignore[arg-type]

    def knock_over(self, square: str, direction: str) -> list[str]:
        """The stack topples: every piece above the bottom one lands one square further along
        `direction` (the top piece farthest), walls fall flat; pieces past the edge, or hitting a
        standing stone or
        capstone, fall off the table.
        Returns the squares that changed."""
        if direction not in DIRECTIONS:
            raise VirtualBoardError(f"direction must be one of + - < >, got {direction!r}")
        f, r = self._square(square)
        df, dr = DIRECTIONS[direction]
        with self._lock:
            self._require_empty_hand("knock a stack over")
            stack = self._stacks.get(square, [])
            if len(stack) < 2:
                raise VirtualBoardError(
                    f"{square} has {len(stack)} piece(s): nothing to knock over")
            bottom, falling = stack[0], stack[1:]
            self._stacks[square] = [bottom]
            changed = [square]
            for i, (player, stone) in enumerate(falling, start=1):
                name = self._name(f + df * i, r + dr * i)
                if name is None:
                    break  # past the edge: off the table
                landing = self._stacks.setdefault(name, [])
                if landing and landing[-1][1] != FLAT:
                    continue  # bounced off a standing stone or capstone: rolls off the table
                landing.append((player, FLAT if stone == WALL else stone))
                changed.append(name)
            self.version += 1
            return changed

    def set_hand_over(self, over: bool) -> None:
        """A hand hovering over the board (or taken away). The camera sees it and tracking waits."""
        with self._lock:
            self._hand_raised = over
            self.version += 1

    # --- helpers -------------------------------------------------------------------------------
    def _require_flat_top(self, square: str, what: str) -> None:
        stack = self._stacks.get(square)
        if stack and stack[-1][1] != FLAT:
            kind = "wall" if stack[-1][1] == WALL else "capstone"
            raise VirtualBoardError(f"{square} is topped by a {kind}: nothing can {what}")

    def _require_empty_hand(self, what: str) -> None:
        if self._hand:
            raise VirtualBoardError(
                f"cannot {what}: the hand still holds {len(self._hand)} piece(s) from "
                f"{self._hand_from}; drop them first"
            )

    def _square(self, square: str) -> tuple[int, int]:
        if not isinstance(square, str) or len(square) != 2 or square[0] not in FILES:
            raise VirtualBoardError(f"{square!r} is not a square name like 'c3'")
        f, rank_char = FILES.index(square[0]), square[1]
        if not rank_char.isdigit() or f >= self.size or not 1 <= int(rank_char) <= self.size:
            raise VirtualBoardError(f"{square} is off a {self.size}x{self.size} board")
        return f, int(rank_char) - 1

    def _name(self, f: int, r: int) -> str | None:
        if 0 <= f < self.size and 0 <= r < self.size:
            return f"{FILES[f]}{r + 1}"
        return None

    @staticmethod
    def _piece(piece) -> Piece:
        player, stone = piece
        if player not in (0, 1) or stone not in (FLAT, WALL, CAP):
            raise VirtualBoardError(f"a piece is (player 0|1, stone 0|1|2), got {piece!r}")
        return (int(player), int(stone))

"""What is on the table: the stacks, hands reaching in, LEDs glowing under squares.

Vision's own plain types; the rules engine never appears here. A stack is a list bottom -> top of
(colour, kind) with colour "light" (player 1) or "dark" (player 2) and kind "flat", "wall" or "cap".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from vision import geometry

COLORS = ("light", "dark")
KINDS = ("flat", "wall", "cap")
SIDES = ("south", "north", "east", "west")  # south = player 1's edge (-y), as the camera sees it

Piece = tuple[str, str]
BGR = tuple[int, int, int]


@dataclass
class Hand:
    """A hand reaching over the board, the arm (in a sleeve) coming in from one side.

    tip: board-frame point (pitches) under the fingertips. from_side: the edge the arm crosses.
    height: fingertips above the board, pitches (keep it above the stacks under the hand).
    angle_deg: the arm's turn away from square-on to its edge. width: palm width, pitches.
    """

    tip: tuple[float, float]
    from_side: str = "south"
    height: float = 1.5
    angle_deg: float = 0.0
    width: float = 1.7
    skin: BGR = (120, 150, 200)
    sleeve: BGR = (90, 60, 40)
    spread: float = 0.0  # 0 = fingers together, 1 = spread wide
    left: bool = False  # a left hand (thumb on the other side)
    motion: tuple[float, float] = (0.0, 0.0)  # pitches moved while the shutter is open (blur)
    holding: Piece | None = None  # a piece carried under the fingertips, e.g. ("dark", "flat")

    def __post_init__(self) -> None:
        if self.from_side not in SIDES:
            raise ValueError(f"hand from_side {self.from_side!r} is not one of {SIDES}")
        if self.height < 0:
            raise ValueError(f"hand height {self.height} is below the board")
        if self.holding is not None and (
            len(self.holding) != 2 or self.holding[0] not in COLORS or self.holding[1] not in KINDS
        ):
            raise ValueError(f"hand holding {self.holding!r}: not a (colour, kind) piece")


@dataclass
class Scene:
    """Board contents for one frame. `stacks`: square name -> pieces bottom..top.

    `leds`: square name -> BGR colour of the LED glowing under that square (0..255 each).
    """

    size: int
    stacks: dict[str, list[Piece]] = field(default_factory=dict)
    hands: list[Hand] = field(default_factory=list)
    leds: dict[str, BGR] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise ValueError naming the square and piece when the scene is not a possible board."""
        if not 3 <= self.size <= 8:
            raise ValueError(f"board size {self.size} is outside 3..8")
        for square, stack in self.stacks.items():
            parse_square(square, self.size)
            for level, piece in enumerate(stack):
                if len(piece) != 2 or piece[0] not in COLORS or piece[1] not in KINDS:
                    raise ValueError(
                        f"{square} level {level}: piece {piece!r} is not (colour, kind), "
                        f"colour in {COLORS}, kind in {KINDS}"
                    )
                if piece[1] != "flat" and level != len(stack) - 1:
                    raise ValueError(f"{square} level {level}: a {piece[1]} can only be on top")
        for square in self.leds:
            parse_square(square, self.size)

    def top(self, square: str) -> Piece | None:
        stack = self.stacks.get(square)
        return stack[-1] if stack else None

    def height(self, square: str) -> int:
        return len(self.stacks.get(square, ()))

    def copy(self) -> Scene:
        return Scene(
            self.size,
            {sq: list(st) for sq, st in self.stacks.items()},
            list(self.hands),
            dict(self.leds),
        )


def parse_square(square: str, size: int) -> tuple[int, int]:
    """Square name -> 0-based (file, rank), "c3" -> (2, 2); ValueError if not on the board."""
    if (
        not isinstance(square, str)
        or len(square) < 2
        or square[0] not in geometry.FILES[:size]
        or not square[1:].isdigit()
        or not 1 <= int(square[1:]) <= size
    ):
        raise ValueError(f"{square!r} is not a square of a {size}x{size} board")
    return geometry.FILES.index(square[0]), int(square[1:]) - 1


def all_squares(size: int) -> list[str]:
    return [geometry.square_name(f, r) for r in range(size) for f in range(size)]


def stack_top_height(stack: list[Piece]) -> float:
    """Height (pitches) of the top of a stack, for keeping hands above it."""
    if not stack:
        return 0.0
    flats = (len(stack) - 1) * geometry.FLAT_THICKNESS
    top = {
        "flat": geometry.FLAT_THICKNESS,
        "wall": geometry.WALL_HEIGHT,
        "cap": geometry.CAP_HEIGHT,
    }
    return flats + top[stack[-1][1]]


def capstones_per_player(size: int) -> int:
    """Capstones each player has in a real set: none below 5x5, one on 5x5 and 6x6, two above."""
    return 0 if size < 5 else (1 if size < 7 else 2)


LED_PALETTE = [(0, 0, 255), (0, 255, 0), (255, 80, 0), (0, 200, 255), (255, 255, 255)]


def random_leds(rng: np.random.Generator, size: int) -> dict[str, tuple[int, int, int]]:
    """One to four squares with their LED glowing, each in a colour the LEDs show (BGR)."""
    names = [geometry.square_name(f, r) for f in range(size) for r in range(size)]
    chosen = rng.choice(names, size=int(rng.integers(1, 5)), replace=False)
    return {str(sq): LED_PALETTE[int(rng.integers(len(LED_PALETTE)))] for sq in chosen}


def random_scene(
    seed: int | np.random.Generator,
    size: int,
    *,
    pieces: int | None = None,
    max_height: int = 6,
    hand_probability: float = 0.0,
) -> Scene:
    """A mid-game looking board: stacks up to `max_height`, walls and capstones only on top,
    capstones as in real sets (none below 5x5, one on 5x5 and 6x6, two on 7x7 and 8x8).

    `pieces`: how many pieces in total (default: a random mid-game amount).
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    squares = all_squares(size)
    if pieces is None:
        pieces = int(rng.integers(size, size * size + size * 2))
    caps_left = dict.fromkeys(COLORS, capstones_per_player(size))
    stacks: dict[str, list[Piece]] = {}
    for _ in range(pieces):
        open_squares = [s for s in squares if _can_take_piece(stacks.get(s, []), max_height)]
        if not open_squares:
            break
        square = open_squares[int(rng.integers(len(open_squares)))]
        colour = COLORS[int(rng.integers(2))]
        roll = rng.random()
        kind = "flat"
        if roll < 0.12:
            kind = "wall"
        elif roll < 0.18 and caps_left[colour] > 0:
            kind = "cap"
            caps_left[colour] -= 1
        stacks.setdefault(square, []).append((colour, kind))
    scene = Scene(size, stacks)
    if rng.random() < hand_probability:
        scene.hands.append(random_hand(rng, scene))
    return scene


def _can_take_piece(stack: list[Piece], max_height: int) -> bool:
    return len(stack) < max_height and (not stack or stack[-1][1] == "flat")


SKIN_TONES: tuple[BGR, ...] = (
    (189, 208, 241), (160, 190, 232), (130, 165, 215), (105, 140, 198),
    (80, 115, 170), (60, 90, 141), (45, 65, 105), (35, 50, 80),
)  # fmt: skip


def random_hand(
    rng: np.random.Generator, scene: Scene, pitch_mm: float = 50.0, *, resting: float = 0.0
) -> Hand:
    """A hand reaching for a random square, held above the stacks there, skin and sleeve random.

    With probability `resting` the hand rests by the board instead, fingertips short of the grid
    on its own side: in the frame, but over no square."""
    size = scene.size
    tip = (float(rng.uniform(-0.3, size + 0.3)), float(rng.uniform(-0.3, size + 0.3)))
    side = str(rng.choice(SIDES, p=[0.45, 0.35, 0.1, 0.1]))
    if rng.random() < resting:
        out = float(rng.uniform(0.5, 1.2))  # pitches outside the grid edge
        along = float(rng.uniform(0.5, size - 0.5))
        tip = {"south": (along, -out), "north": (along, size + out),
               "east": (size + out, along), "west": (-out, along)}[side]  # fmt: skip
    tallest = max((stack_top_height(st) for st in scene.stacks.values()), default=0.0)
    skin_a, skin_b = (SKIN_TONES[int(i)] for i in rng.integers(len(SKIN_TONES), size=2))
    t = rng.random()
    skin = tuple(int(a * (1 - t) + b * t) for a, b in zip(skin_a, skin_b, strict=True))
    sleeve = tuple(int(v) for v in rng.integers(15, 240, size=3))
    return Hand(
        tip=tip,
        from_side=side,
        height=float(tallest + rng.uniform(0.3, 2.0)),
        angle_deg=float(rng.uniform(-35, 35)),
        width=float(rng.uniform(75, 95) / pitch_mm),
        skin=skin,  # type: ignore[arg-type]
        sleeve=sleeve,  # type: ignore[arg-type]
        spread=float(rng.random() ** 2),
        left=bool(rng.random() < 0.3),
        holding=_random_held_piece(rng),
    )


def _random_held_piece(rng: np.random.Generator) -> Piece | None:
    """Four hands in ten carry a piece, mostly a flat."""
    if rng.random() >= 0.4:
        return None
    colour = COLORS[int(rng.integers(2))]
    return colour, str(rng.choice(KINDS, p=[0.8, 0.1, 0.1]))


def side_direction(side: str, angle_deg: float) -> tuple[float, float]:
    """Unit vector (board frame) pointing from the hand back along the arm, out over `side`."""
    base = {"south": -90.0, "north": 90.0, "east": 0.0, "west": 180.0}[side] + angle_deg
    return math.cos(math.radians(base)), math.sin(math.radians(base))

"""The LED frame model: what every square of the board should show, as one immutable value.

A frame is the WHOLE desired state (every square's colour and effect). The link sends it entire
every time, so a retry or a reconnect just sends it again and never leaves half an old picture.

Squares are named like everywhere in takboard: "a1" is player 1's lower-left corner, files a.. left
to right, ranks 1.. bottom to top. A square missing from a frame is off.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum

from controller.tak import parse_square, square_name

MIN_SIZE, MAX_SIZE = 3, 8


class Effect(Enum):
    """How the firmware animates a square by itself (the host never streams animation frames)."""

    OFF = "off"
    SOLID = "solid"
    BLINK = "blink"  # the colour for the first half of each period, dark for the second
    PULSE = "pulse"  # brightness rises and falls linearly over the period (triangle wave)


# The firmware counts periods in 20 ms units, 1..255 (firmware/PROTOCOL.md 4.3).
PERIOD_STEP_MS = 20
MIN_PERIOD_MS, MAX_PERIOD_MS = PERIOD_STEP_MS, 255 * PERIOD_STEP_MS


@dataclass(frozen=True)
class Colour:
    """An 8-bit-per-channel colour, before the firmware's brightness and current limit."""

    r: int
    g: int
    b: int

    def __post_init__(self) -> None:
        for name in ("r", "g", "b"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 0 <= value <= 255:
                raise ValueError(f"Colour.{name} must be an int 0..255, got {value!r}")

    def hex(self) -> str:
        return f"#{self.r:02x}{self.g:02x}{self.b:02x}"


BLACK = Colour(0, 0, 0)


@dataclass(frozen=True)
class Light:
    """What one square shows. `period_ms` (a multiple of 20, 20..5100) times blink and pulse; the
    firmware keeps the phase on its own clock, so sending the same light again changes nothing."""

    colour: Colour = BLACK
    effect: Effect = Effect.OFF
    period_ms: int = 1000

    def __post_init__(self) -> None:
        if not isinstance(self.colour, Colour):
            raise ValueError(f"Light.colour must be a Colour, got {self.colour!r}")
        if not isinstance(self.effect, Effect):
            raise ValueError(f"Light.effect must be an Effect, got {self.effect!r}")
        p = self.period_ms
        if not isinstance(p, int) or not MIN_PERIOD_MS <= p <= MAX_PERIOD_MS or p % PERIOD_STEP_MS:
            raise ValueError(
                f"Light.period_ms must be a multiple of {PERIOD_STEP_MS} in "
                f"{MIN_PERIOD_MS}..{MAX_PERIOD_MS}, got {p!r}"
            )

    @property
    def is_off(self) -> bool:
        return self.effect is Effect.OFF or self.colour == BLACK

    @classmethod
    def solid(cls, colour: Colour) -> Light:
        return cls(colour, Effect.SOLID)

    @classmethod
    def blink(cls, colour: Colour, period_ms: int = 1000) -> Light:
        return cls(colour, Effect.BLINK, period_ms)

    @classmethod
    def pulse(cls, colour: Colour, period_ms: int = 2000) -> Light:
        return cls(colour, Effect.PULSE, period_ms)


OFF = Light()


def square_names(size: int) -> list[str]:
    """Every square of a size x size board, a1, b1, ... (rank by rank, files left to right)."""
    check_size(size)
    return [square_name(f, r) for r in range(size) for f in range(size)]


def check_size(size: int) -> None:
    if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"board size must be {MIN_SIZE}..{MAX_SIZE}, got {size!r}")


@dataclass(frozen=True)
class LedFrame:
    """An immutable map square -> Light for a size x size board; squares not given are off.

    `lights` may be given as a mapping or (square, light) pairs; it is stored normalised (lit
    squares only, in board order), so equal pictures compare and hash equal.

    >>> f = LedFrame(5, {"a1": Light.solid(Colour(0, 0, 255))})
    >>> f["a1"].effect, f["e5"].is_off
    (<Effect.SOLID: 'solid'>, True)
    """

    size: int
    lights: tuple[tuple[str, Light], ...] = field(default=())

    def __post_init__(self) -> None:
        check_size(self.size)
        items = self.lights.items() if isinstance(self.lights, Mapping) else self.lights
        kept: dict[str, Light] = {}
        for square, light in items:
            parse_square(square, self.size)
            if square in kept:
                raise ValueError(f"square {square} given twice in an LedFrame")
            if not isinstance(light, Light):
                raise ValueError(f"square {square}: expected a Light, got {light!r}")
            kept[square] = light
        order = {name: i for i, name in enumerate(square_names(self.size))}
        lit = sorted(((s, v) for s, v in kept.items() if not v.is_off), key=lambda sv: order[sv[0]])
        object.__setattr__(self, "lights", tuple(lit))

    @classmethod
    def off(cls, size: int) -> LedFrame:
        """Every square dark."""
        return cls(size)

    def __getitem__(self, square: str) -> Light:
        parse_square(square, self.size)
        return dict(self.lights).get(square, OFF)

    def lit(self) -> dict[str, Light]:
        """The squares that show something."""
        return dict(self.lights)

    def __iter__(self) -> Iterator[tuple[str, Light]]:
        """Every square of the board in a1, b1, ... order with its light (off ones included)."""
        lit = dict(self.lights)
        for name in square_names(self.size):
            yield name, lit.get(name, OFF)

    def with_lights(self, lights: Mapping[str, Light]) -> LedFrame:
        """A new frame: this one with some squares replaced."""
        merged = dict(self.lights)
        merged.update(lights)
        return LedFrame(self.size, merged)


@dataclass(frozen=True)
class Animation:
    """A short loop of whole frames that the link steps through on its own clock, for pictures the
    firmware's per-square effects cannot draw (counted flashes, PROTOCOL.md has no phase offset).
    Each step is a complete frame, so whatever step a reconnect lands on is a correct picture.

    steps: ((frame, seconds), ...), every frame of the same board size, seconds > 0.
    """

    steps: tuple[tuple[LedFrame, float], ...]

    def __post_init__(self) -> None:
        if not self.steps:
            raise ValueError("an Animation needs at least one step")
        size = self.steps[0][0].size
        for i, (frame, seconds) in enumerate(self.steps):
            if not isinstance(frame, LedFrame) or frame.size != size:
                raise ValueError(f"Animation step {i}: expected an LedFrame of size {size}")
            if not seconds > 0:
                raise ValueError(f"Animation step {i}: duration must be > 0, got {seconds!r}")

    @property
    def size(self) -> int:
        return self.steps[0][0].size

    @property
    def cycle_seconds(self) -> float:
        return sum(seconds for _, seconds in self.steps)

    def step_at(self, elapsed: float) -> tuple[int, float]:
        """(index of the step showing `elapsed` seconds after the start, seconds until it ends)."""
        t = elapsed % self.cycle_seconds
        for i, (_, seconds) in enumerate(self.steps):
            if t < seconds:
                return i, seconds - t
            t -= seconds
        return len(self.steps) - 1, self.steps[-1][1]  # float rounding at the cycle's very end

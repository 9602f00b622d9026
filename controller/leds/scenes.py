"""Scenes: pure functions from game state to a full LED frame.

The colour language (also in docs/leds.md and the README). It never relies on red against green:
colours are blue, orange and white, which stay apart for the common kinds of colour blindness, and
every meaning also has its own effect.

- BLUE    where a move starts (the stack that was or should be picked up)
- ORANGE  where pieces land
- WHITE   "look here": a square to fix (illegal move, out of sync) or to fill (setup)
- SOLID   what happened (the last move, the road)
- PULSE / BLINK   what to do (hint, setup, resync)
- FAST BLINK      something is wrong (illegal move)
- A number is shown as flashes: the square flashes N times, pauses, and repeats.

Inputs are `controller.tak` values (`Ply`, `Position`), read through their documented attributes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from controller.leds.frame import Animation, Colour, LedFrame, Light, square_names
from controller.tak import square_name

BLUE = Colour(0, 90, 255)
ORANGE = Colour(255, 110, 0)
DIM_ORANGE = Colour(50, 20, 0)
WHITE = Colour(200, 200, 200)
DIM_WHITE = Colour(40, 40, 40)

FAST_BLINK_MS = 200  # 5 flashes a second: "wrong"
STACK_BLINK_MS = 1000
PULSE_MS = 1600
IDLE_PULSE_MS = 3000  # slower and white: never mistaken for the firmware's dim blue "no host"

# Counted flashes of the hint, played by the link (an Animation), in seconds.
FLASH_ON_S = 0.35
FLASH_OFF_S = 0.35
HINT_PAUSE_S = 1.2

WHITE_PLAYER, BLACK_PLAYER = 0, 1  # controller.tak.WHITE / BLACK
FLAT, WALL, CAP = 0, 1, 2  # controller.tak stone kinds
PLACEMENT_FLASHES = {FLAT: 1, WALL: 2, CAP: 3}

PLAYER_COLOUR = {WHITE_PLAYER: WHITE, BLACK_PLAYER: BLUE}


class PlyLike(Protocol):
    """What scenes read of `controller.tak.Ply`."""

    stone: int | None
    drops: tuple[int, ...]

    @property
    def is_placement(self) -> bool: ...

    def squares(self, size: int) -> list[str]: ...


class PositionLike(Protocol):
    """What scenes read of `controller.tak.Position`."""

    size: int

    def stacks(self) -> dict[str, tuple[tuple[int, int], ...]]: ...


def idle(size: int) -> LedFrame:
    """Nothing to say: only the four corners breathe dimly in white, so the board is visibly alive
    (and visibly not the firmware's dim blue "waiting for host")."""
    n = size - 1
    corners = [square_name(0, 0), square_name(n, 0), square_name(0, n), square_name(n, n)]
    return LedFrame(size, {sq: Light.pulse(DIM_WHITE, IDLE_PULSE_MS) for sq in corners})


def last_move(size: int, ply: PlyLike) -> LedFrame:
    """The last ply, solid: a placement lights its square orange; a spread lights its origin blue
    and every square it dropped on orange."""
    squares = ply.squares(size)
    if ply.is_placement:
        return LedFrame(size, {squares[0]: Light.solid(ORANGE)})
    lights = {squares[0]: Light.solid(BLUE)}
    lights.update({sq: Light.solid(ORANGE) for sq in squares[1:]})
    return LedFrame(size, lights)


def hint(size: int, ply: PlyLike) -> Animation:
    """A suggested ply, readable from the board alone, looping:

    Spread: the origin pulses blue (pick up here); every square of the path glows dim orange; then,
    in path order, each path square flashes bright orange once per piece dropped on it; a pause;
    again. Placement: the square glows dim orange and flashes once for a flat, twice for a wall
    (standing stone), three times for a capstone.

    The firmware has no counted-flash effect (PROTOCOL.md 4.3), so this is an Animation of whole
    frames the link steps through; any step is a correct picture on its own.
    """
    squares = ply.squares(size)
    if ply.is_placement:
        base = {squares[0]: Light.solid(DIM_ORANGE)}
        counts = [(squares[0], PLACEMENT_FLASHES[ply.stone if ply.stone is not None else FLAT])]
    else:
        base = {squares[0]: Light.pulse(BLUE, PULSE_MS)}
        base.update({sq: Light.solid(DIM_ORANGE) for sq in squares[1:]})
        counts = list(zip(squares[1:], ply.drops, strict=True))
    rest = LedFrame(size, base)
    steps: list[tuple[LedFrame, float]] = [(rest, HINT_PAUSE_S)]
    for square, flashes in counts:
        lit = rest.with_lights({square: Light.solid(ORANGE)})
        for _ in range(flashes):
            steps += [(lit, FLASH_ON_S), (rest, FLASH_OFF_S)]
    return Animation(tuple(steps))


def illegal(size: int, squares: Iterable[str], last: PlyLike | None = None) -> LedFrame:
    """An illegal or unreadable move: the offending squares blink white fast. The last legal ply
    stays lit (solid) underneath, so the players see what to go back to."""
    frame = last_move(size, last) if last is not None else LedFrame.off(size)
    return frame.with_lights({sq: Light.blink(WHITE, FAST_BLINK_MS) for sq in squares})


def resync(size: int, differing: Iterable[str]) -> LedFrame:
    """The board does not match the recorded position: each square that differs pulses white until
    it is put right (the web page says what belongs there)."""
    return LedFrame(size, {sq: Light.pulse(WHITE, PULSE_MS) for sq in differing})


def setup(target: PositionLike, done: Iterable[str] = ()) -> LedFrame:
    """Guidance to set up a position (resuming a game, loading a TPS): every square that still needs
    its stack shows the colour of the piece on top (white: player 1's light pieces, blue: player 2's
    dark ones), solid for a single piece, blinking slowly for a stack of two or more (the web page
    lists the order). Squares already set up are off."""
    finished = set(done)
    lights = {}
    for square, stack in target.stacks().items():
        if square in finished or not stack:
            continue
        colour = PLAYER_COLOUR[stack[-1][0]]
        lights[square] = (
            Light.solid(colour) if len(stack) == 1 else Light.blink(colour, STACK_BLINK_MS)
        )
    return LedFrame(target.size, lights)


def road_win(size: int, road: Iterable[str], winner: int) -> LedFrame:
    """A road ends the game: the road's squares glow solid in the winner's colour (white for
    player 1, blue for player 2); everything else is dark."""
    return LedFrame(size, {sq: Light.solid(PLAYER_COLOUR[winner]) for sq in road})


def wiring_test(size: int, step: int) -> LedFrame:
    """Step k of the wiring check: only the k-th square (a1, b1, ... board order) is lit white."""
    names = square_names(size)
    return LedFrame(size, {names[step % len(names)]: Light.solid(WHITE)})

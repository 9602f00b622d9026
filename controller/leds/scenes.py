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

Inputs are `controller.tak` values (`Ply`, `Position`), read through their documented attributes only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from controller.leds.frame import Colour, Light, LedFrame, Speed, square_names

BLUE = Colour(0, 90, 255)
ORANGE = Colour(255, 110, 0)
WHITE = Colour(200, 200, 200)
DIM_WHITE = Colour(40, 40, 40)
DIM_BLUE = Colour(0, 30, 90)

WHITE_PLAYER, BLACK_PLAYER = 0, 1  # controller.tak.WHITE / BLACK
FLAT, WALL, CAP = 0, 1, 2  # controller.tak stone kinds

PLAYER_COLOUR = {WHITE_PLAYER: WHITE, BLACK_PLAYER: BLUE}


class PlyLike(Protocol):
    """What scenes read of `controller.tak.Ply`."""

    square: str
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
    """Nothing to say: only the four corners breathe dimly, so the board is visibly alive."""
    n = size
    corners = ["a1", f"{'abcdefgh'[n - 1]}1", f"a{n}", f"{'abcdefgh'[n - 1]}{n}"]
    return LedFrame(size, {sq: Light.pulse(DIM_WHITE, Speed.SLOW) for sq in corners})


def last_move(size: int, ply: PlyLike) -> LedFrame:
    """The last ply, solid: a placement lights its square orange; a spread lights its origin blue and
    every square it dropped on orange."""
    squares = ply.squares(size)
    if ply.is_placement:
        return LedFrame(size, {squares[0]: Light.solid(ORANGE)})
    lights = {squares[0]: Light.solid(BLUE)}
    lights.update({sq: Light.solid(ORANGE) for sq in squares[1:]})
    return LedFrame(size, lights)


def hint(size: int, ply: PlyLike) -> LedFrame:
    """A suggested ply, animated so it cannot be mistaken for the last move.

    Spread: the origin pulses blue; each square on the path flashes orange as many times as pieces
    are dropped there (1..8), then pauses. Placement: the square flashes orange once for a flat, twice
    for a wall (standing stone), three times for a capstone - flashes in white instead of orange would
    be a resync, so the colour says "a piece lands here" and the count says which piece.
    """
    squares = ply.squares(size)
    if ply.is_placement:
        flashes = {FLAT: 1, WALL: 2, CAP: 3}[ply.stone if ply.stone is not None else FLAT]
        return LedFrame(size, {squares[0]: Light.blink(ORANGE, Speed.SLOW, flashes)})
    lights = {squares[0]: Light.pulse(BLUE)}
    for square, dropped in zip(squares[1:], ply.drops, strict=True):
        lights[square] = Light.blink(ORANGE, Speed.SLOW, min(dropped, Light.MAX_COUNT))
    return LedFrame(size, lights)


def illegal(size: int, squares: Iterable[str], last: PlyLike | None = None) -> LedFrame:
    """An illegal or unreadable move: the offending squares blink white fast. The last legal ply
    stays lit (solid) underneath, so the players see what to go back to."""
    frame = last_move(size, last) if last is not None else LedFrame.off(size)
    return frame.with_lights({sq: Light.blink(WHITE, Speed.FAST) for sq in squares})


def resync(size: int, differing: Iterable[str]) -> LedFrame:
    """The board does not match the recorded position: each square that differs pulses white until
    it is put right (the web page says what belongs there)."""
    return LedFrame(size, {sq: Light.pulse(WHITE) for sq in differing})


def setup(target: PositionLike, done: Iterable[str] = ()) -> LedFrame:
    """Guidance to set up a position (resuming a game, loading a TPS): every square that still needs
    its stack flashes as many times as the stack is high (8 or more: 8 flashes), white when a light
    (player 1) piece is on top, blue when a dark (player 2) piece is. Squares already done are off."""
    finished = set(done)
    lights = {}
    for square, stack in target.stacks().items():
        if square in finished or not stack:
            continue
        owner = stack[-1][0]
        lights[square] = Light.blink(PLAYER_COLOUR[owner], Speed.SLOW, min(len(stack), 8))
    return LedFrame(target.size, lights)


def road_win(size: int, road: Iterable[str], winner: int) -> LedFrame:
    """A road ends the game: the road's squares glow solid in the winner's colour (white for player 1,
    blue for player 2); everything else is dark."""
    return LedFrame(size, {sq: Light.solid(PLAYER_COLOUR[winner]) for sq in road})


def wiring_test(size: int, step: int) -> LedFrame:
    """Step k of the wiring check: only square k (a1, b1, ... in board order) is lit, white."""
    names = square_names(size)
    return LedFrame(size, {names[step % len(names)]: Light.solid(WHITE)})

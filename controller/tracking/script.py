"""Scripted games for simulation: a seeded game and, frame by frame, what the table shows while it
is played (stacks, a hand reaching in, still boards between plies). Pure data: rendering the shots
into pictures is the simulated camera's job (`vision.sim`), recording them is the tracker's.

    plies = random_game(size=5, length=40, rng=random.Random(7))
    for shot in timeline(5, plies, random.Random(7), fps=5):
        ...  # shot.stacks (vision's scene format), shot.hand (or None), shot.done (plies on board)

How a ply looks, frame by frame (5 fps): the hand comes in over the board (1-2 frames); a
placement shows the hand over the square, then the piece under it; a spread lifts the stack (the
carried pieces vanish with the hand), then drops them square by square; sometimes the player pauses
mid-spread with the hand in view ("two motions"); the hand leaves (a frame with it at the edge);
then the board stays still for 1.0-1.6 s. The game starts with 2 s of the empty board.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from controller.tak import CAP, FLAT, WALL, WHITE, Ply, Position

_KIND = {FLAT: "flat", WALL: "wall", CAP: "cap"}
_PITCH_THICKNESS = 0.15  # a flat, in pitches (vision.geometry.FLAT_THICKNESS)

SceneStacks = dict[str, list[tuple[str, str]]]


@dataclass(frozen=True)
class HandPose:
    """Where the fingertips are (board frame, pitches), which edge the arm crosses, how high."""

    tip: tuple[float, float]
    side: str
    height: float


@dataclass(frozen=True)
class Shot:
    stacks: SceneStacks
    hand: HandPose | None
    done: int  # plies completed on the board in this shot
    still: bool  # no hand, the board as it will stay (the frames a ply is judged on)


def scene_stacks(position: Position) -> SceneStacks:
    """A position's stacks in the simulated camera's format: colour light/dark, kind names."""
    return {
        square: [("light" if p == WHITE else "dark", _KIND[s]) for p, s in stack]
        for square, stack in position.stacks().items()
    }


def random_game(size: int, length: int, rng: random.Random, *, opening: str = "swap") -> list[Ply]:
    """A legal game of `length` plies (fewer only if every continuation ends it), played the way
    people play: mostly flat placements early, more walls, capstones and spreads as it goes on.
    Plies that end the game are avoided until the last one, so games reach their length.
    """
    position = Position(size, opening=opening)
    played: list[Ply] = []
    while len(played) < length:
        legal = list(position.legal_plies)
        if not legal:
            break
        last = len(played) == length - 1
        keep = []
        for ply in legal:
            position.push(ply)
            over = position.outcome() is not None
            position.pop()
            if last or not over:
                keep.append(ply)
        pool = keep or legal
        progress = len(played) / max(length, 1)
        flats = [p for p in pool if p.is_placement and p.stone == FLAT]
        others = [p for p in pool if p.is_placement and p.stone != FLAT]
        spreads = [p for p in pool if p.is_spread]
        groups = [(flats, 0.75 - 0.4 * progress), (others, 0.08), (spreads, 0.17 + 0.4 * progress)]
        groups = [(g, w) for g, w in groups if g]
        group = rng.choices([g for g, _ in groups], weights=[w for _, w in groups])[0]
        ply = position.play(rng.choice(group))
        played.append(ply)
        if position.outcome() is not None:
            break
    return played


def _centre(square: str) -> tuple[float, float]:
    return ("abcdefgh".index(square[0]) + 0.5, int(square[1:]) - 0.5)


def _stack_top(stack: list[tuple[str, str]]) -> float:
    if not stack:
        return 0.0
    top = {"flat": 0.15, "wall": 0.7, "cap": 0.8}[stack[-1][1]]
    return (len(stack) - 1) * _PITCH_THICKNESS + top


def timeline(
    size: int,
    plies: list[Ply],
    rng: random.Random,
    *,
    fps: float = 5.0,
    start_s: float = 2.0,
    still_s: tuple[float, float] = (1.0, 1.6),
    two_motion_rate: float = 0.15,
    quick_rate: float = 0.0,
    opening: str = "swap",
) -> Iterator[Shot]:
    """Every frame of the game being played, in order (see the module docstring).

    `quick_rate`: the share of plies answered at once, the next hand coming in as this one
    leaves, with no still board between the two (the tracker sees two plies at once); never two
    in a row. 0 leaves the seeded games exactly as they were (no random draw is made for it)."""
    position = Position(size, opening=opening)
    quick = False  # the last ply was answered at once
    for _ in range(round(start_s * fps)):
        yield Shot({}, None, 0, True)
    for done, ply in enumerate(plies):
        before = scene_stacks(position)
        # players sit on opposite sides: white reaches in from the south edge, black from the north
        side = "south" if position.to_move == WHITE else "north"
        side = side if rng.random() < 0.8 else rng.choice(("east", "west"))
        tallest = max((_stack_top(s) for s in before.values()), default=0.0)
        height = tallest + rng.uniform(0.5, 1.2)

        def hand_at(
            square: str, reach: float = 1.0, side: str = side, height: float = height
        ) -> HandPose:
            x, y = _centre(square)
            edge = {"south": (x, -1.0), "north": (x, size + 1.0),
                    "west": (-1.0, y), "east": (size + 1.0, y)}[side]  # fmt: skip
            tip = (edge[0] + (x - edge[0]) * reach, edge[1] + (y - edge[1]) * reach)
            return HandPose(tip, side, height)

        origin = ply.square
        for k in range(rng.randint(1, 2)):  # coming in
            yield Shot(before, hand_at(origin, 0.5 + 0.25 * k), done, False)
        yield Shot(before, hand_at(origin), done, False)
        played = position.play(ply)
        after = scene_stacks(position)
        if played.is_spread:
            squares = played.squares(size)
            carried = before[origin][-played.count :]
            work = {sq: list(st) for sq, st in before.items()}
            rest = work[origin][: -played.count]
            if rest:
                work[origin] = rest
            else:
                del work[origin]
            yield Shot({k: list(v) for k, v in work.items()}, hand_at(origin), done, False)
            if rng.random() < two_motion_rate:  # lift, pause with the hand in view, then drop
                for _ in range(rng.randint(3, 8)):
                    yield Shot({k: list(v) for k, v in work.items()}, hand_at(origin, 0.8),
                               done, False)  # fmt: skip
            in_hand = list(carried)
            for square, drop in zip(squares[1:], played.drops, strict=True):
                dropped, in_hand = in_hand[:drop], in_hand[drop:]
                below = work.get(square, [])
                if below and below[-1][1] == "wall":  # a lone capstone flattens it
                    below = [*below[:-1], (below[-1][0], "flat")]
                work[square] = [*below, *dropped]
                yield Shot({k: list(v) for k, v in work.items()}, hand_at(square), done, False)
            last = squares[-1]
        else:
            last = origin
        yield Shot(after, hand_at(last), done + 1, False)
        yield Shot(after, hand_at(last, 0.35), done + 1, False)  # leaving over the edge
        if quick_rate and done + 1 < len(plies) and not quick and rng.random() < quick_rate:
            quick = True  # the reply's hand is already coming in
            continue
        quick = False  # (a reply answered at once in turn: three plies, rare enough to leave out)
        for _ in range(round(rng.uniform(*still_s) * fps)):
            yield Shot(after, None, done + 1, True)

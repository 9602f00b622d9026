"""A ply as the camera sees it: a hand comes in, hovers while the pieces change, and leaves.

    scenes = reach_and_change(before, after, seed=4)      # list of Scene, one per frame
    source.queue(scenes)                                  # SimCameraSource plays them in order

Tracking needs frames like these: the board is covered for a while, the position changes under the
hand, and only the frames after the hand has gone show the new position cleanly.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from vision import geometry
from vision.sim.scene import Scene, parse_square, random_hand, stack_top_height


def changed_squares(before: Scene, after: Scene) -> list[str]:
    """Squares whose stacks differ, in board order."""
    if before.size != after.size:
        raise ValueError(f"boards differ in size: {before.size} and {after.size}")
    names = sorted(
        set(before.stacks) | set(after.stacks), key=lambda sq: parse_square(sq, before.size)
    )
    return [sq for sq in names if before.stacks.get(sq, []) != after.stacks.get(sq, [])]


def _ease(k: int, n: int) -> float:
    return 0.5 - 0.5 * math.cos(math.pi * k / max(n, 1))


def reach_and_change(
    before: Scene,
    after: Scene,
    *,
    seed: int = 0,
    side: str | None = None,
    approach: int = 8,
    hold: int = 6,
    leave: int = 8,
) -> list[Scene]:
    """Scenes for one change of the board: `approach` frames of a hand coming in from `side`
    (default: random, mostly the near or far edge) towards the changed squares, `hold` frames over
    them (the board switches from `before` to `after` half way), `leave` frames going away. For a
    placement the hand carries the new piece in under its fingertips until it puts it down."""
    changed = changed_squares(before, after)
    if not changed:
        raise ValueError("before and after are the same board: nothing to reach for")
    rng = np.random.default_rng(seed)
    hand = random_hand(rng, after if len(after.stacks) >= len(before.stacks) else before)
    if side is not None:
        hand = replace(hand, from_side=side)
    centres = np.array([geometry.square_center(*parse_square(sq, before.size)) for sq in changed])
    tallest = max(stack_top_height(s.stacks.get(sq, [])) for s in (before, after) for sq in changed)
    low = tallest + 0.25  # fingertips just above the stacks being changed
    away = np.array(_outward(hand.from_side)) * (before.size + 4.0)
    start = centres[0] + away
    scenes: list[Scene] = []

    tips: list[tuple[float, float]] = []
    # a placement: the hand brings the new piece in and lets go of it half way through the hold
    placed = None
    if len(changed) == 1:
        old, new = before.stacks.get(changed[0], []), after.stacks.get(changed[0], [])
        if len(new) == len(old) + 1 and list(new[:-1]) == list(old):
            placed = tuple(new[-1])

    def with_hand(board: Scene, tip: np.ndarray, height: float) -> Scene:
        # motion blur: the shutter is open for about half of the frame interval
        moved = tip - np.array(tips[-1]) if tips else np.zeros(2)
        tips.append((float(tip[0]), float(tip[1])))
        motion = (float(0.5 * moved[0]), float(0.5 * moved[1]))
        scene = board.copy()
        holding = placed if board is before else None
        scene.hands = [
            *board.hands,
            replace(hand, tip=tips[-1], height=height, motion=motion, holding=holding),
        ]
        return scene

    for k in range(approach):
        f = _ease(k, approach)
        scenes.append(with_hand(before, start + f * (centres[0] - start), low + (1 - f) * 2.0))
    for k in range(hold):
        # over a spread the hand walks along the squares it drops on
        f = k / max(hold - 1, 1)
        at = centres[min(int(f * len(centres)), len(centres) - 1)]
        board = before if k < hold // 2 else after
        scenes.append(with_hand(board, at, low))
    end = centres[-1] + away
    for k in range(1, leave + 1):
        f = _ease(k, leave)
        scenes.append(with_hand(after, centres[-1] + f * (end - centres[-1]), low + f * 2.0))
    scenes.append(after.copy())
    return scenes


def _outward(side: str) -> tuple[float, float]:
    return {"south": (0.0, -1.0), "north": (0.0, 1.0), "east": (1.0, 0.0), "west": (-1.0, 0.0)}[
        side
    ]

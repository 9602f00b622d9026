"""Readings made from positions: what a perfect (or a seeded noisy) camera would report.

For tests and tools that exercise tracking without rendering pictures. The real end-to-end path
(rendered frames through the real vision reader) is `vision.sim` + `controller.commands.record`.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from controller.tak import CAP, WALL, WHITE, Position
from vision.reading import BoardReading, SquareReading

_KIND_NAME = {0: "flat", WALL: "wall", CAP: "cap"}

Stacks = Mapping[str, tuple[tuple[int, int], ...]]


def square_names(size: int) -> list[str]:
    return [f"{'abcdefgh'[f]}{r + 1}" for f in range(size) for r in range(size)]


def stacks_reading(
    size: int,
    stacks: Stacks,
    *,
    height_confidence: float = 0.9,
    confidence: float = 0.97,
    appearance: bool = False,
) -> BoardReading:
    """A clean reading of a board given as `{square: ((player, stone), ...)}` bottom -> top.

    `appearance`: also give every square a signature (`signature`), as the real reader does.
    """
    squares: dict[str, SquareReading] = {}
    for name in square_names(size):
        stack = stacks.get(name, ())
        if not stack:
            squares[name] = SquareReading(empty=True, confidence=confidence,
                                          empty_confidence=confidence)
            continue
        player, stone = stack[-1]
        squares[name] = SquareReading(
            empty=False,
            color="light" if player == WHITE else "dark",
            kind=_KIND_NAME[stone],
            height=len(stack),
            confidence=min(confidence, height_confidence),
            empty_confidence=confidence,
            color_confidence=confidence,
            kind_confidence=confidence,
            height_confidence=height_confidence,
        )
    looks = {n: signature(n, stacks.get(n, ())) for n in squares} if appearance else None
    return BoardReading(size=size, board_found=True, confidence=confidence, squares=squares,
                        appearance=looks)  # fmt: skip


SIGNATURE_BINS = 8  # like vision.appearance's


def signature(square: str, stack) -> np.ndarray:
    """A made-up appearance signature of `stack` on `square` ([bins, 3], vision's units): the same
    stack always looks the same, any other stack visibly different (distance of several units)."""
    rng = np.random.default_rng(zlib.crc32(f"{square}:{tuple(stack)}".encode()))
    return rng.uniform(0.0, 8.0, (SIGNATURE_BINS, 3)).astype(np.float32)


def with_appearance_noise(reading: BoardReading, rng: random.Random, sigma: float = 0.05,
                          *, light: float = 0.0) -> BoardReading:  # fmt: skip
    """The same reading with sensor noise (and a change of light `light`) on its signatures."""
    if reading.appearance is None:
        return reading
    gen = np.random.default_rng(rng.getrandbits(32))
    looks = {n: s + light + gen.normal(0.0, sigma, s.shape).astype(np.float32)
             for n, s in reading.appearance.items()}  # fmt: skip
    return replace(reading, appearance=looks)


def scene_reading(
    size: int, stacks: Mapping[str, list[tuple[str, str]]], **kwargs
) -> BoardReading:
    """A clean reading of a board in the simulated camera's format (colour and kind names)."""
    players = {"light": WHITE, "dark": 1 - WHITE}
    stones = {name: stone for stone, name in _KIND_NAME.items()}
    return stacks_reading(
        size,
        {sq: tuple((players[c], stones[k]) for c, k in st) for sq, st in stacks.items() if st},
        **kwargs,
    )


def position_reading(position: Position, **kwargs) -> BoardReading:
    """A clean reading of `position` (see `stacks_reading` for the confidences)."""
    return stacks_reading(position.size, position.stacks(), **kwargs)


def hand_reading(size: int) -> BoardReading:
    """A frame with a hand over the board: vision flags it and reports no squares to trust."""
    return BoardReading(size=size, board_found=True, occluded=True, reason="hand over the board")


def lost_reading(size: int) -> BoardReading:
    """A frame where the board was not found (camera bumped, markers covered)."""
    return BoardReading(size=size, board_found=False, reason="board not found")


def noisy(reading: BoardReading, rng: random.Random, *, misread: float = 0.05) -> BoardReading:
    """Seeded noise: confidences wobble, and with probability `misread` per square one attribute is
    reported wrong with a LOW confidence (how a decent reader fails: unsure, not confidently wrong).
    """
    squares: dict[str, SquareReading] = {}
    for name, sq in reading.squares.items():
        wobble = rng.uniform(0.75, 0.98)
        if sq.empty:
            if rng.random() < misread:
                squares[name] = SquareReading(
                    empty=False, color=rng.choice(("light", "dark")), kind="flat", height=1,
                    confidence=0.35, empty_confidence=0.4, color_confidence=0.5,
                    kind_confidence=0.5, height_confidence=0.3)
            else:
                squares[name] = SquareReading(
                    empty=True, confidence=wobble, empty_confidence=wobble)
            continue
        color, kind, height = sq.color, sq.kind, sq.height
        color_conf, kind_conf = wobble, rng.uniform(0.7, 0.98)
        height_conf = sq.height_confidence * rng.uniform(0.8, 1.0)
        if rng.random() < misread:
            what = rng.choice(("color", "kind", "height"))
            if what == "color":
                color, color_conf = ("dark" if color == "light" else "light"), 0.55
            elif what == "kind":
                kind, kind_conf = ("wall" if kind == "flat" else "flat"), 0.5
            else:
                height, height_conf = max(1, height + rng.choice((-1, 1))), 0.35
        squares[name] = SquareReading(
            empty=False, color=color, kind=kind, height=height,
            confidence=min(color_conf, kind_conf, height_conf, wobble),
            empty_confidence=wobble, color_confidence=color_conf, kind_confidence=kind_conf,
            height_confidence=height_conf)
    return with_appearance_noise(
        BoardReading(size=reading.size, board_found=True, confidence=reading.confidence,
                     squares=squares, appearance=reading.appearance),
        rng,
    )  # fmt: skip

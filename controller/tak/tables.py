"""Precomputed tables behind `Position`: bit masks, rays, drop-sequence counts, Zobrist keys.

Squares are bit indices `rank * size + file`. Directions are indexed 0..3 in the order `+ - > <`.
Everything here is computed once per board size (or once ever) and never changes.
"""

from __future__ import annotations

from functools import cache
from math import comb

from controller.tak.ply import Ply
from controller.tak.vocab import CAP, FILES, FLAT, MAX_SIZE, WALL

DIR_CHARS = "+-><"
MASK64 = (1 << 64) - 1


def mix64(x: int) -> int:
    """splitmix64 finaliser over an int of any width: a well-spread 64-bit key for `x`."""
    z = 0
    while True:
        z = (z ^ (x & MASK64)) + 0x9E3779B97F4A7C15 & MASK64
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & MASK64
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB & MASK64
        z ^= z >> 31
        x >>= 64
        if not x:
            return z


SIDE_KEY = mix64(0x5EED_7A4B)  # xor-ed in when player 2 is to move


def compositions(total: int, max_parts: int) -> list[tuple[int, ...]]:
    """Every ordered way to split `total` stones into at most `max_parts` drops of >= 1.

    >>> compositions(3, 2)
    [(3,), (1, 2), (2, 1)]
    """
    if total == 0:
        return [()]
    if max_parts == 0:
        return []
    out: list[tuple[int, ...]] = []
    for parts in range(1, min(total, max_parts) + 1):
        out.extend(_exact(total, parts))
    return out


@cache
def _exact(total: int, parts: int) -> tuple[tuple[int, ...], ...]:
    """Splits of `total` into exactly `parts` drops of >= 1, first drop smallest first."""
    if parts == 1:
        return ((total,),)
    return tuple(
        (first, *rest)
        for first in range(1, total - parts + 2)
        for rest in _exact(total - first, parts - 1)
    )


def _spread_count(carry: int, distance: int) -> int:
    """Drop sequences lifting 1..carry stones onto at most `distance` squares."""
    return sum(
        comb(k - 1, j - 1) for k in range(1, carry + 1) for j in range(1, min(k, distance) + 1)
    )


def _flatten_count(carry: int, distance: int) -> int:
    """Sequences ending with a lone capstone on the wall just past `distance` free squares."""
    if distance == 0:
        return 1 if carry >= 1 else 0  # the capstone alone onto the adjacent wall
    # every free square gets a drop: k-1 stones in exactly `distance` drops, then the capstone
    return sum(comb(k - 2, distance - 1) for k in range(2, carry + 1))


# SPREAD_COUNT[carry][distance], FLATTEN_COUNT[carry][distance]; carry 0..8, distance 0..7
SPREAD_COUNT = [[_spread_count(c, d) for d in range(MAX_SIZE)] for c in range(MAX_SIZE + 1)]
FLATTEN_COUNT = [[_flatten_count(c, d) for d in range(MAX_SIZE)] for c in range(MAX_SIZE + 1)]


class SizeTables:
    """Masks and rays for one board size."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.cells = n * n
        self.full = (1 << self.cells) - 1
        self.names = [f"{FILES[i % n]}{i // n + 1}" for i in range(self.cells)]
        self.index = {name: i for i, name in enumerate(self.names)}
        col0 = sum(1 << (r * n) for r in range(n))
        self.col_first = col0
        self.col_last = col0 << (n - 1)
        self.row_first = (1 << n) - 1
        self.row_last = self.row_first << (n * (n - 1))
        self.not_col_first = self.full & ~self.col_first
        self.not_col_last = self.full & ~self.col_last
        steps = (n, -n, 1, -1)
        self.steps = steps
        # rays[dir][sq]: mask of the squares beyond sq in that direction; ray_len the count
        self.rays: list[list[int]] = [[0] * self.cells for _ in range(4)]
        self.ray_len: list[list[int]] = [[0] * self.cells for _ in range(4)]
        for sq in range(self.cells):
            f, r = sq % n, sq // n
            for d, (dx, dy) in enumerate(((0, 1), (0, -1), (1, 0), (-1, 0))):
                mask, length, ff, rr = 0, 0, f + dx, r + dy
                while 0 <= ff < n and 0 <= rr < n:
                    mask |= 1 << (rr * n + ff)
                    length += 1
                    ff += dx
                    rr += dy
                self.rays[d][sq] = mask
                self.ray_len[d][sq] = length
        self.placements = [
            (Ply(name, FLAT), Ply(name, WALL), Ply(name, CAP)) for name in self.names
        ]
        self.double_placements = [Ply(name, FLAT, count=2) for name in self.names]
        self.road_cache: dict[int, bool] = {}  # road stones bitboard -> joins opposite edges


@cache
def size_tables(n: int) -> SizeTables:
    return SizeTables(n)


_SPREAD_PLIES: dict[tuple[str, int, int, int], list[Ply]] = {}
_FLATTEN_PLIES: dict[tuple[str, int, int, int], list[Ply]] = {}


def spread_plies(square: str, direction: int, carry: int, distance: int) -> list[Ply]:
    """Every spread from `square` lifting 1..carry stones onto at most `distance` squares."""
    key = (square, direction, carry, distance)
    plies = _SPREAD_PLIES.get(key)
    if plies is None:
        char = DIR_CHARS[direction]
        plies = [
            Ply(square, None, char, drops)
            for k in range(1, carry + 1)
            for drops in compositions(k, distance)
        ]
        _SPREAD_PLIES[key] = plies
    return plies


def flatten_plies(square: str, direction: int, carry: int, distance: int) -> list[Ply]:
    """Spreads ending with the lone capstone on the wall right after `distance` free squares."""
    key = (square, direction, carry, distance)
    plies = _FLATTEN_PLIES.get(key)
    if plies is None:
        char = DIR_CHARS[direction]
        # every square entered gets a drop, so all `distance` free squares take part of the stack
        heads = (
            [()]
            if distance == 0
            else [h for k in range(distance, carry) for h in _exact(k, distance)]
        )
        plies = [Ply(square, None, char, (*head, 1), flattens=True) for head in heads]
        _FLATTEN_PLIES[key] = plies
    return plies

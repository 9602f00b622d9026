"""What the search needs beyond the rules: road geometry on bitboards, and position set-up.

The rules live in one place, `controller.tak.Position` (push/pop, legal plies, roads, outcome,
Zobrist hash, perft-tested). The search plays on a `Position` directly; this module only adds the
questions the rules engine has no reason to answer, all on the same square bitboards
(`sq = rank * size + file`, a1 = 0) that `Position.bitboards()` returns:
- which empty squares would finish a road for a player (`Geometry.winning_empties`),
- connected groups and their span (`Geometry.flood`), neighbours (`Geometry.spread`),
- row and column masks for the evaluation,
- the first `r` squares of a ray (`Geometry.reach`), to bound what a spread can cover.

Bad input (a TPS that does not parse, an illegal ply) raises the rules engine's own errors:
`BoardError` is `controller.tak.TakError` (`TPSError`, `IllegalPlyError`, `InvalidPlyError`).
"""

from __future__ import annotations

from typing import ClassVar

from controller.tak import (
    BLACK,
    CAP,
    FLAT,
    STANDARD_RESERVES,
    WALL,
    WHITE,
    Outcome,
    Ply,
    Position,
    TakError,
)

BoardError = TakError
DIRECTIONS = "+-><"

__all__ = [
    "BLACK",
    "CAP",
    "DIRECTIONS",
    "FLAT",
    "STANDARD_RESERVES",
    "WALL",
    "WHITE",
    "BoardError",
    "Geometry",
    "Outcome",
    "Ply",
    "Position",
    "from_tps",
    "new_position",
    "parse_ply",
]


class Geometry:
    """Bitboard masks and road questions that depend only on the board size (one per size)."""

    _cache: ClassVar[dict[int, Geometry]] = {}

    def __init__(self, size: int) -> None:
        n = size
        self.size = n
        self.squares = n * n
        self.full = (1 << self.squares) - 1
        self.col = [sum(1 << (r * n + f) for r in range(n)) for f in range(n)]
        self.row = [sum(1 << (r * n + f) for f in range(n)) for r in range(n)]
        self.lines = self.row + self.col
        self.not_left = self.full & ~self.col[0]
        self.not_right = self.full & ~self.col[n - 1]
        self.edge = self.row[0] | self.row[n - 1] | self.col[0] | self.col[n - 1]
        self.inner = self.full & ~self.edge
        files = "abcdefgh"
        self.names = [files[sq % n] + str(sq // n + 1) for sq in range(self.squares)]
        self.inner_names = frozenset(
            self.names[sq] for sq in range(self.squares) if (self.inner >> sq) & 1
        )
        # rays[sq][d]: the squares beyond sq in direction d ('+', '-', '>', '<'), nearest first;
        # reach[sq][d][r]: bitboard of the first r of them
        self.rays: list[list[list[int]]] = []
        self.reach: list[list[list[int]]] = []
        for sq in range(self.squares):
            f, r = sq % n, sq // n
            per_dir, per_reach = [], []
            for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                ray = []
                ff, rr = f + dx, r + dy
                while 0 <= ff < n and 0 <= rr < n:
                    ray.append(rr * n + ff)
                    ff += dx
                    rr += dy
                per_dir.append(ray)
                masks = [0]
                for s in ray:
                    masks.append(masks[-1] | 1 << s)
                per_reach.append(masks)
            self.rays.append(per_dir)
            self.reach.append(per_reach)
        # star[sq][h]: every square a stack of height h on sq could drop on (blockers ignored)
        self.star: list[list[int]] = [
            [
                sum_or(self.reach[sq][d][min(h, len(self.rays[sq][d]))] for d in range(4))
                for h in range(n + 1)
            ]
            for sq in range(self.squares)
        ]

    @classmethod
    def of(cls, size: int) -> Geometry:
        geo = cls._cache.get(size)
        if geo is None:
            geo = cls._cache[size] = cls(size)
        return geo

    def spread(self, x: int) -> int:
        """Squares orthogonally next to any square of bitboard x."""
        n = self.size
        return (
            (x << n) | (x >> n) | ((x << 1) & self.not_left) | ((x >> 1) & self.not_right)
        ) & self.full

    def flood(self, seed: int, within: int) -> int:
        """All squares of `within` connected to `seed` (seed must lie inside `within`)."""
        n = self.size
        nl, nr = self.not_left, self.not_right
        x = seed
        while True:
            nx = x | (((x << n) | (x >> n) | ((x << 1) & nl) | ((x >> 1) & nr)) & within)
            if nx == x:
                return x
            x = nx

    def winning_empties(self, road: int, empty: int) -> int:
        """Squares of `empty` where one more road piece would complete a road (bitboard)."""
        n = self.size
        out = 0
        for lines in (self.row, self.col):
            # a road across these lines needs a piece in every line: one may be the new stone
            gaps = 0
            for line in lines:
                if not road & line:
                    gaps += 1
                    if gaps > 1:
                        break
            if gaps > 1:
                continue
            a, z = lines[0], lines[n - 1]
            from_a = self.flood(road & a, road)
            from_z = self.flood(road & z, road)
            out |= (self.spread(from_a) | a) & (self.spread(from_z) | z)
        return out & empty


def sum_or(masks) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


def new_position(
    size: int = 5,
    *,
    komi: int = 0,
    flats: tuple[int, int] | None = None,
    caps: tuple[int, int] | None = None,
    opening: str = "swap",
) -> Position:
    """A start position; a bad size, reserve or opening raises `BoardError` saying which."""
    try:
        return Position(size, komi=komi, flats=flats, caps=caps, opening=opening)
    except TakError:
        raise
    except ValueError as exc:
        raise BoardError(str(exc)) from None


def from_tps(
    tps: str,
    *,
    komi: int = 0,
    flats: tuple[int, int] | None = None,
    caps: tuple[int, int] | None = None,
    opening: str = "swap",
) -> Position:
    """A position from TPS; `flats`/`caps` are the reserves at the START of the game."""
    try:
        return Position.from_tps(tps, komi=komi, flats=flats, caps=caps, opening=opening)
    except TakError:
        raise
    except ValueError as exc:
        raise BoardError(f"TPS {tps!r}: {exc}") from None


def parse_ply(position: Position, text: str) -> Ply:
    """A legal ply of `position` from PTN text (lenient: F prefix, annotations, `*`)."""
    return position.parse_ply(text)

"""The search's own board: bitboards plus colour lists, built for speed in plain Python.

Why a second board when `controller.tak.Position` exists: the search makes and unmakes hundreds of
thousands of plies per hint, and it asks questions the rules engine does not (which empty squares
would finish a road, which spreads could). Those answers are a few integer operations on bitboards
here. `controller.tak` stays the authority at the boundary: positions come in as TPS (plus komi,
reserves and opening rule), plies go out as PTN, and `tests/engine/test_board.py` checks this board
against the perft table and against `controller.tak` ply for ply.

Layout: square index `sq = rank * size + file` (a1 = 0). Each square holds a list of owners
bottom->top (`WHITE = 0`, `BLACK = 1`) and the kind of its top piece (`FLAT`, `WALL`, `CAP`;
`EMPTY` = -1). Only the top piece can be a wall or capstone, so that is all the state there is.

Plies are tuples (cheap to build, hash and compare):
  placement `(sq, stone)` with stone FLAT/WALL/CAP, or `DOUBLE` for the `2a1` opening stack;
  spread    `(sq, direction, drops)` with direction 0 '+', 1 '-', 2 '>', 3 '<' and drops a tuple.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

WHITE, BLACK = 0, 1
EMPTY, FLAT, WALL, CAP, DOUBLE = -1, 0, 1, 2, 3
DIRECTIONS = "+-><"
STANDARD_RESERVES = {3: (10, 0), 4: (15, 0), 5: (21, 1), 6: (30, 1), 7: (40, 2), 8: (50, 2)}
OPENINGS = ("swap", "no-swap", "double black stack")
FILES = "abcdefgh"


class BoardError(ValueError):
    """Bad input for the engine board (a TPS or PTN it cannot read); the message quotes it."""


@dataclass(frozen=True)
class GameEnd:
    """How a finished position ended. `winner` is WHITE, BLACK or None (draw)."""

    winner: int | None
    reason: str  # "road" | "flats" | "draw"


class Geometry:
    """Everything that depends only on the board size, computed once per size."""

    _cache: ClassVar[dict[int, Geometry]] = {}

    def __init__(self, size: int) -> None:
        n = size
        self.size = n
        self.squares = n * n
        self.full = (1 << self.squares) - 1
        self.col = [sum(1 << (r * n + f) for r in range(n)) for f in range(n)]
        self.row = [sum(1 << (r * n + f) for f in range(n)) for r in range(n)]
        self.not_left = self.full & ~self.col[0]
        self.not_right = self.full & ~self.col[n - 1]
        self.edge = self.row[0] | self.row[n - 1] | self.col[0] | self.col[n - 1]
        steps = (n, -n, 1, -1)
        self.rays: list[list[list[int]]] = []
        for sq in range(self.squares):
            f, r = sq % n, sq // n
            per_dir = []
            for d, _step in enumerate(steps):
                ray = []
                ff, rr = f, r
                while True:
                    ff += (0, 0, 1, -1)[d]
                    rr += (1, -1, 0, 0)[d]
                    if not (0 <= ff < n and 0 <= rr < n):
                        break
                    ray.append(rr * n + ff)
                per_dir.append(ray)
            self.rays.append(per_dir)
        self.ray_masks = [[sum(1 << s for s in ray) for ray in per] for per in self.rays]
        self.names = [FILES[sq % n] + str(sq // n + 1) for sq in range(self.squares)]
        self.index = {name: sq for sq, name in enumerate(self.names)}
        # drops[count][maxlen]: every way to drop `count` pieces on at most `maxlen` squares
        self.drops: list[list[list[tuple[int, ...]]]] = [[[] for _ in range(n + 1)]]
        for count in range(1, n + 1):
            comps = _compositions(count)
            self.drops.append([[c for c in comps if len(c) <= m] for m in range(n + 1)])
        # cap_drops[count][dist]: drop sequences that land a lone capstone on a wall `dist + 1` away
        self.cap_drops: list[list[list[tuple[int, ...]]]] = [[[] for _ in range(n + 1)]]
        for count in range(1, n + 1):
            per = []
            for dist in range(n + 1):
                if dist == 0:
                    per.append([(1,)] if count == 1 else [])
                else:
                    per.append([(*c, 1) for c in _compositions(count - 1) if len(c) == dist])
            self.cap_drops.append(per)
        rng = random.Random(0x7A6B + n)
        self.max_height = 2 * (STANDARD_RESERVES[8][0] + STANDARD_RESERVES[8][1]) + 4
        self.z_piece = [rng.getrandbits(64) for _ in range(self.squares * self.max_height * 2)]
        self.z_kind = [rng.getrandbits(64) for _ in range(self.squares * 3)]
        self.z_black = rng.getrandbits(64)

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

    def has_road(self, b: int) -> bool:
        n = self.size
        top, bottom = self.row[n - 1], self.row[0]
        if b & top and b & bottom and self.flood(b & bottom, b) & top:
            return True
        left, right = self.col[0], self.col[n - 1]
        return bool(b & left and b & right and self.flood(b & left, b) & right)

    def road_squares(self, b: int) -> int:
        """The squares of one road within b (0 if none): the group that joins two edges."""
        n = self.size
        for a, z in ((self.row[0], self.row[n - 1]), (self.col[0], self.col[n - 1])):
            x = self.flood(b & a, b)
            if x & z:
                # keep only the component(s) touching both edges
                out = 0
                rest = x
                while rest:
                    low = rest & -rest
                    comp = self.flood(low, x)
                    rest &= ~comp
                    if comp & a and comp & z:
                        out |= comp
                return out
        return 0

    def winning_empties(self, road: int, empty: int) -> int:
        """Empty squares where one more road piece would complete a road (bitboard)."""
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


def _compositions(total: int) -> list[tuple[int, ...]]:
    if total == 0:
        return [()]
    out = []
    for first in range(1, total + 1):
        for rest in _compositions(total - first):
            out.append((first, *rest))
    return out


class Board:
    """Mutable Tak position for search: `make(ply)` trusts its input; `unmake()` undoes exactly."""

    def __init__(
        self,
        size: int = 5,
        *,
        komi: int = 0,
        flats: tuple[int, int] | None = None,
        caps: tuple[int, int] | None = None,
        opening: str = "swap",
    ) -> None:
        if size not in STANDARD_RESERVES:
            raise BoardError(f"board size {size} is not supported (3..8)")
        if opening not in OPENINGS:
            raise BoardError(f"unknown opening rule {opening!r} (one of {', '.join(OPENINGS)})")
        self.geo = geo = Geometry.of(size)
        self.size = size
        self.komi = komi
        self.opening = opening
        std_f, std_c = STANDARD_RESERVES[size]
        self.flats = list(flats) if flats is not None else [std_f, std_f]
        self.caps = list(caps) if caps is not None else [std_c, std_c]
        self.stacks: list[list[int]] = [[] for _ in range(geo.squares)]
        self.kinds: list[int] = [EMPTY] * geo.squares
        self.road = [0, 0]  # top flat or capstone of that player
        self.owner = [0, 0]  # any top piece of that player
        self.walls = 0
        self.capbits = 0
        self.occ = 0
        self.to_move = WHITE
        self.ply_count = 0
        self.hash = 0
        self._undo: list[tuple] = []

    # ----------------------------------------------------------------- set-up and notation
    @classmethod
    def from_tps(
        cls,
        tps: str,
        *,
        komi: int = 0,
        flats: tuple[int, int] | None = None,
        caps: tuple[int, int] | None = None,
        opening: str = "swap",
    ) -> Board:
        """Read TPS. `flats`/`caps` are the players' reserves at the START of the game."""
        parts = tps.strip().split()
        if len(parts) != 3:
            raise BoardError(f"TPS {tps!r}: expected 'rows player move', got {len(parts)} fields")
        rows = parts[0].split("/")
        size = len(rows)
        board = cls(size, komi=komi, flats=flats, caps=caps, opening=opening)
        for i, row in enumerate(rows):
            rank = size - 1 - i
            file = 0
            for cell in row.split(","):
                if cell.startswith("x"):
                    count = int(cell[1:]) if len(cell) > 1 and cell[1:].isdigit() else 1
                    if cell != "x" and not cell[1:].isdigit():
                        raise BoardError(f"TPS {tps!r}: bad empty run {cell!r} on rank {rank + 1}")
                    file += count
                    continue
                kind = FLAT
                body = cell
                if body[-1:] in ("S", "C"):
                    kind = WALL if body[-1] == "S" else CAP
                    body = body[:-1]
                if not body or any(c not in "12" for c in body):
                    raise BoardError(f"TPS {tps!r}: bad stack {cell!r} on rank {rank + 1}")
                if file >= size:
                    raise BoardError(f"TPS {tps!r}: rank {rank + 1} has more than {size} squares")
                sq = rank * size + file
                for c in body:
                    board.stacks[sq].append(int(c) - 1)
                board.kinds[sq] = kind
                file += 1
            if file != size:
                raise BoardError(
                    f"TPS {tps!r}: rank {rank + 1} has {file} squares, expected {size}"
                )
        if parts[1] not in ("1", "2") or not parts[2].isdigit() or int(parts[2]) < 1:
            raise BoardError(f"TPS {tps!r}: player must be 1 or 2 and move number >= 1")
        board.to_move = int(parts[1]) - 1
        board.ply_count = 2 * (int(parts[2]) - 1) + board.to_move
        for sq in range(board.geo.squares):
            stack = board.stacks[sq]
            for colour in stack:
                board.flats[colour] -= 1
            if board.kinds[sq] == CAP:
                top = stack[-1]
                board.flats[top] += 1
                board.caps[top] -= 1
        for p in (WHITE, BLACK):
            if board.flats[p] < 0 or board.caps[p] < 0:
                raise BoardError(
                    f"TPS {tps!r}: player {p + 1} has more pieces on the board than in the reserve"
                )
        board._rebuild()
        return board

    def _rebuild(self) -> None:
        geo = self.geo
        self.road = [0, 0]
        self.owner = [0, 0]
        self.walls = self.capbits = self.occ = 0
        h = 0
        for sq in range(geo.squares):
            self._set_top(sq)
            for level, colour in enumerate(self.stacks[sq]):
                h ^= geo.z_piece[(sq * geo.max_height + level) * 2 + colour]
            if self.kinds[sq] != EMPTY:
                h ^= geo.z_kind[sq * 3 + self.kinds[sq]]
        if self.to_move == BLACK:
            h ^= geo.z_black
        self.hash = h

    def _set_top(self, sq: int) -> None:
        bit = 1 << sq
        nb = ~bit
        self.road[0] &= nb
        self.road[1] &= nb
        self.owner[0] &= nb
        self.owner[1] &= nb
        self.walls &= nb
        self.capbits &= nb
        self.occ &= nb
        stack = self.stacks[sq]
        if not stack:
            return
        top = stack[-1]
        kind = self.kinds[sq]
        self.occ |= bit
        self.owner[top] |= bit
        if kind == WALL:
            self.walls |= bit
        else:
            self.road[top] |= bit
            if kind == CAP:
                self.capbits |= bit

    def tps(self) -> str:
        n = self.size
        rows = []
        for rank in range(n - 1, -1, -1):
            cells: list[str] = []
            run = 0
            for file in range(n):
                sq = rank * n + file
                stack = self.stacks[sq]
                if not stack:
                    run += 1
                    continue
                if run:
                    cells.append("x" if run == 1 else f"x{run}")
                    run = 0
                text = "".join(str(c + 1) for c in stack)
                text += {FLAT: "", WALL: "S", CAP: "C"}[self.kinds[sq]]
                cells.append(text)
            if run:
                cells.append("x" if run == 1 else f"x{run}")
            rows.append(",".join(cells))
        return f"{'/'.join(rows)} {self.to_move + 1} {self.ply_count // 2 + 1}"

    def __repr__(self) -> str:
        return f"Board({self.tps()!r}, komi={self.komi})"

    def ptn(self, ply: tuple) -> str:
        """PTN of a ply in this position (before it is played: `*` needs the wall it flattens)."""
        names = self.geo.names
        if len(ply) == 2:
            sq, stone = ply
            if stone == DOUBLE:
                return "2" + names[sq]
            return ("", "S", "C")[stone] + names[sq]
        sq, d, drops = ply
        count = sum(drops)
        text = (str(count) if count > 1 else "") + names[sq] + DIRECTIONS[d]
        if len(drops) > 1:
            text += "".join(map(str, drops))
        ray = self.geo.rays[sq][d]
        if self.kinds[ray[len(drops) - 1]] == WALL:
            text += "*"
        return text

    def parse_ptn(self, text: str) -> tuple:
        """A legal ply of this position from PTN text (lenient: F prefix, annotations, `*`)."""
        raw = text
        t = text.strip().rstrip("'!?").rstrip("*")
        for ply in self.legal_plies():
            if self.ptn(ply).rstrip("*") == _canonical(t, self.size):
                return ply
        raise BoardError(f"ply {raw!r} is not legal in {self.tps()}")

    # ----------------------------------------------------------------- rules
    def in_opening(self) -> bool:
        return self.ply_count < 2

    def legal_plies(self) -> list[tuple]:
        """Every legal ply (empty once the game is over)."""
        if self.game_end() is not None:
            return []
        return self.plies()

    def plies(self) -> list[tuple]:
        """Every legal ply, assuming the game is not over (the search checks that itself)."""
        geo = self.geo
        me = self.to_move
        empty = geo.full & ~self.occ
        out: list[tuple] = []
        if self.ply_count < 2:
            stone = DOUBLE if self.opening == "double black stack" and self.ply_count == 0 else FLAT
            e = empty
            while e:
                low = e & -e
                out.append((low.bit_length() - 1, stone))
                e ^= low
            return out
        flats_left = self.flats[me] > 0
        caps_left = self.caps[me] > 0
        e = empty
        while e:
            low = e & -e
            sq = low.bit_length() - 1
            e ^= low
            if flats_left:
                out.append((sq, FLAT))
                out.append((sq, WALL))
            if caps_left:
                out.append((sq, CAP))
        mine = self.owner[me]
        blockers = self.walls | self.capbits
        n = self.size
        stacks = self.stacks
        kinds = self.kinds
        drops_table = geo.drops
        while mine:
            low = mine & -mine
            sq = low.bit_length() - 1
            mine ^= low
            height = len(stacks[sq])
            carry = height if height < n else n
            is_cap = kinds[sq] == CAP
            for d in range(4):
                ray = geo.rays[sq][d]
                dist = 0
                for s in ray:
                    if (blockers >> s) & 1:
                        break
                    dist += 1
                if dist:
                    for count in range(1, carry + 1):
                        for drops in drops_table[count][dist]:
                            out.append((sq, d, drops))
                if is_cap and dist < len(ray) and kinds[ray[dist]] == WALL:
                    for count in range(1, carry + 1):
                        for drops in geo.cap_drops[count][dist]:
                            out.append((sq, d, drops))
        return out

    def make(self, ply: tuple) -> None:
        """Play a ply without checking it (search fast path)."""
        geo = self.geo
        me = self.to_move
        stacks = self.stacks
        kinds = self.kinds
        zp = geo.z_piece
        mh = geo.max_height
        h = self.hash
        if len(ply) == 2:
            sq, stone = ply
            if self.ply_count < 2:
                colour = me if self.opening == "no-swap" else 1 - me
                if stone == DOUBLE:
                    stacks[sq].extend((colour, colour))
                    self.flats[colour] -= 2
                    h ^= zp[(sq * mh) * 2 + colour] ^ zp[(sq * mh + 1) * 2 + colour]
                else:
                    stacks[sq].append(colour)
                    self.flats[colour] -= 1
                    h ^= zp[(sq * mh) * 2 + colour]
                kinds[sq] = FLAT
            else:
                stacks[sq].append(me)
                if stone == CAP:
                    self.caps[me] -= 1
                else:
                    self.flats[me] -= 1
                kinds[sq] = stone
                h ^= zp[(sq * mh) * 2 + me]
            h ^= geo.z_kind[sq * 3 + kinds[sq]]
            self._set_top(sq)
            self._undo.append((ply,))
        else:
            sq, d, drops = ply
            count = sum(drops)
            src = stacks[sq]
            base = len(src) - count
            carried = src[base:]
            del src[base:]
            top_kind = kinds[sq]
            zk = geo.z_kind
            h ^= zk[sq * 3 + top_kind]
            for level in range(base, base + count):
                h ^= zp[(sq * mh + level) * 2 + carried[level - base]]
            if src:
                kinds[sq] = FLAT
                h ^= zk[sq * 3]
            else:
                kinds[sq] = EMPTY
            self._set_top(sq)
            ray = geo.rays[sq][d]
            prev_kinds = []
            i = 0
            last = len(drops) - 1
            for j, k in enumerate(drops):
                dst = ray[j]
                dstack = stacks[dst]
                old = kinds[dst]
                prev_kinds.append(old)
                if old != EMPTY:
                    h ^= zk[dst * 3 + old]
                lvl = len(dstack)
                for c in carried[i : i + k]:
                    h ^= zp[(dst * mh + lvl) * 2 + c]
                    lvl += 1
                dstack.extend(carried[i : i + k])
                i += k
                kinds[dst] = top_kind if j == last else FLAT
                h ^= zk[dst * 3 + kinds[dst]]
                self._set_top(dst)
            self._undo.append((ply, top_kind, prev_kinds))
        self.hash = h ^ geo.z_black
        self.to_move = 1 - me
        self.ply_count += 1

    def unmake(self) -> None:
        geo = self.geo
        entry = self._undo.pop()
        ply = entry[0]
        self.to_move = me = 1 - self.to_move
        self.ply_count -= 1
        stacks = self.stacks
        kinds = self.kinds
        zp = geo.z_piece
        zk = geo.z_kind
        mh = geo.max_height
        h = self.hash ^ geo.z_black
        if len(ply) == 2:
            sq, stone = ply
            h ^= zk[sq * 3 + kinds[sq]]
            stack = stacks[sq]
            while stack:
                colour = stack.pop()
                h ^= zp[(sq * mh + len(stack)) * 2 + colour]
                if stone == CAP:
                    self.caps[colour] += 1
                else:
                    self.flats[colour] += 1
            kinds[sq] = EMPTY
            self._set_top(sq)
        else:
            sq, d, drops = ply
            _, top_kind, prev_kinds = entry
            ray = geo.rays[sq][d]
            moved: list[int] = []
            for j in range(len(drops) - 1, -1, -1):
                dst = ray[j]
                k = drops[j]
                dstack = stacks[dst]
                h ^= zk[dst * 3 + kinds[dst]]
                cut = len(dstack) - k
                for lvl in range(cut, len(dstack)):
                    h ^= zp[(dst * mh + lvl) * 2 + dstack[lvl]]
                moved[:0] = dstack[cut:]
                del dstack[cut:]
                kinds[dst] = prev_kinds[j]
                if prev_kinds[j] != EMPTY:
                    h ^= zk[dst * 3 + prev_kinds[j]]
                self._set_top(dst)
            src = stacks[sq]
            if src:
                h ^= zk[sq * 3 + FLAT]
            base = len(src)
            for lvl, c in enumerate(moved, start=base):
                h ^= zp[(sq * mh + lvl) * 2 + c]
            src.extend(moved)
            kinds[sq] = top_kind
            h ^= zk[sq * 3 + top_kind]
            self._set_top(sq)
        del me
        self.hash = h

    def game_end(self) -> GameEnd | None:
        """Road first (double road: the player who just moved wins), then full board / no pieces."""
        geo = self.geo
        mover = 1 - self.to_move
        if geo.has_road(self.road[mover]):
            return GameEnd(mover, "road")
        if geo.has_road(self.road[1 - mover]):
            return GameEnd(1 - mover, "road")
        if self.occ == geo.full or (
            self.ply_count >= 2
            and (
                (self.flats[0] == 0 and self.caps[0] == 0)
                or (self.flats[1] == 0 and self.caps[1] == 0)
            )
        ):
            return self.flat_result()
        return None

    def flat_result(self) -> GameEnd:
        white, black = self.flat_count()
        diff = 2 * (white - black) - self.komi
        if diff > 0:
            return GameEnd(WHITE, "flats")
        if diff < 0:
            return GameEnd(BLACK, "flats")
        return GameEnd(None, "draw")

    def flat_count(self) -> tuple[int, int]:
        caps = self.capbits
        return (self.road[0] & ~caps).bit_count(), (self.road[1] & ~caps).bit_count()

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.__dict__.update(self.__dict__)
        other.flats = list(self.flats)
        other.caps = list(self.caps)
        other.stacks = [list(s) for s in self.stacks]
        other.kinds = list(self.kinds)
        other.road = list(self.road)
        other.owner = list(self.owner)
        other._undo = list(self._undo)
        return other


def _canonical(text: str, size: int) -> str:
    """Canonical PTN (without `*`) for comparing user text with generated plies."""
    t = text
    if t[:1] == "F":
        t = t[1:]
    if not t:
        return t
    if t[-1] not in DIRECTIONS and not t[-1].isdigit():
        return t
    # spreads: count, square, direction, drops
    i = 0
    while i < len(t) and t[i].isdigit():
        i += 1
    count = int(t[:i]) if i else 1
    rest = t[i:]
    if len(rest) < 3 or rest[2] not in DIRECTIONS:
        return t  # a placement like "a1" or "2a1"
    square, direction, drops = rest[:2], rest[2], rest[3:]
    if not drops:
        drops = str(count)
    return (
        (str(count) if count > 1 else "") + square + direction + (drops if len(drops) > 1 else "")
    )

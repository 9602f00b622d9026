"""`Position`: one mutable Tak board with exact undo, legal plies, roads and the game's outcome.

Representation (chosen for speed in plain Python): per square three ints, `height`, `owners` (bit i
set when the i-th stone from the bottom is player 2's) and `top` (FLAT/WALL/CAP of the top stone;
every stone below a top is a flat). Four integer bitboards hold the top owner and top type of every
square, which makes roads a flood fill of shifts, and legal-ply counting a few table lookups.

>>> p = Position(5)
>>> p.legal_plies.count()
25
>>> p.play(Ply.from_ptn("a1"))
Ply.from_ptn('a1')
>>> p.play(Ply.from_ptn("e5")); p.play(Ply.from_ptn("Cc3"))
Ply.from_ptn('e5')
Ply.from_ptn('Cc3')
>>> p
Position('x4,1/x5/x2,1C,x2/x5/2,x4 2 2')
>>> p.pop()
Ply.from_ptn('Cc3')
>>> p.stack("a1")
((1, 0),)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from controller.tak.errors import IllegalPlyError, InvalidPlyError, TPSError
from controller.tak.outcome import Outcome
from controller.tak.ply import Ply
from controller.tak.tables import (
    FLATTEN_COUNT,
    SIDE_KEY,
    SPREAD_COUNT,
    flatten_plies,
    mix64,
    size_tables,
    spread_plies,
)
from controller.tak.tps import Stack, format_tps, parse_tps
from controller.tak.vocab import (
    BLACK,
    CAP,
    FLAT,
    OPENINGS,
    STANDARD_RESERVES,
    WALL,
    WHITE,
    check_size,
    parse_square,
    player_name,
)

SWAP, NO_SWAP, DOUBLE_BLACK = range(3)
DRAW_POLICIES = ("fifty", "threefold")
FIFTY_PLIES = 50
ROAD_CACHE_LIMIT = 250_000  # remembered road answers per board size (some 25 MB at most)

# Zobrist key per (square, stack contents), computed on first use and remembered. A stack is
# packed into one int: its owner bits with a 1 above the top (so the height needs no field), then
# 2 bits of top stone type, then 6 bits of square; mix64 spreads that into a 64-bit key.
_KEYS: dict[int, int] = {}
_KEY_CACHE_LIMIT = 2_000_000


def _new_key(k: int) -> int:
    """Compute, remember and return the Zobrist key for the packed stack description `k`."""
    if len(_KEYS) > _KEY_CACHE_LIMIT:
        _KEYS.clear()
    z = _KEYS[k] = mix64(k)
    return z


def _square_key(sq: int, owners: int, height: int, top: int) -> int:
    """The Zobrist key of one square holding one stack (0 for an empty square)."""
    if not height:
        return 0
    k = ((owners | 1 << height) << 2 | top) << 6 | sq
    return _KEYS.get(k) or _new_key(k)


def _pair(value: int | tuple[int, int] | list[int] | None, default: int, what: str) -> list[int]:
    if value is None:
        return [default, default]
    if isinstance(value, int) and not isinstance(value, bool):
        pair = [value, value]
    else:
        try:
            pair = [int(v) for v in value]  # type: ignore[union-attr]
        except (TypeError, ValueError):
            raise ValueError(
                f"{what} must be an int or a (white, black) pair, not {value!r}"
            ) from None
        if len(pair) != 2:
            raise ValueError(f"{what} must be an int or a (white, black) pair, not {value!r}")
    if any(v < 0 for v in pair):
        raise ValueError(f"{what} cannot be negative: {value!r}")
    return pair


class Position:
    """A Tak position plus the plies that led to it (for exact undo)."""

    __slots__ = (
        "T",
        "_black",
        "_caps",
        "_draw_fifty",
        "_draw_threefold",
        "_hash",
        "_hgt",
        "_history",
        "_n",
        "_opening",
        "_own",
        "_ply",
        "_quiet",
        "_reserve_caps",
        "_reserve_flats",
        "_stack",
        "_start_caps",
        "_start_flats",
        "_tomove",
        "_top",
        "_walls",
        "_white",
        "komi",
        "size",
    )

    def __init__(
        self,
        size: int = 5,
        *,
        komi: int = 0,
        flats: int | tuple[int, int] | None = None,
        caps: int | tuple[int, int] | None = None,
        opening: str = "swap",
        draw_policies: Iterable[str] = (),
    ) -> None:
        n = check_size(size)
        if not isinstance(komi, int) or isinstance(komi, bool):
            raise ValueError(f"komi is a whole number of half-flats, not {komi!r}")
        if opening not in OPENINGS:
            raise ValueError(f"opening {opening!r} is not one of {', '.join(OPENINGS)}")
        policies = tuple(draw_policies)
        for policy in policies:
            if policy not in DRAW_POLICIES:
                raise ValueError(f"draw policy {policy!r} is not one of {', '.join(DRAW_POLICIES)}")
        std_flats, std_caps = STANDARD_RESERVES[n]
        self.size = n
        self.komi = komi
        self.T = size_tables(n)
        self._n = n
        self._opening = OPENINGS.index(opening)
        self._start_flats = _pair(flats, std_flats, "flats")
        self._start_caps = _pair(caps, std_caps, "caps")
        self._reserve_flats = list(self._start_flats)
        self._reserve_caps = list(self._start_caps)
        cells = n * n
        self._hgt = [0] * cells
        self._own = [0] * cells
        self._top = [FLAT] * cells
        self._white = self._black = self._walls = self._caps = 0
        self._tomove = WHITE
        self._ply = 0
        self._hash = 0
        self._stack: list[tuple] = []
        self._draw_fifty = "fifty" in policies
        self._draw_threefold = "threefold" in policies
        self._quiet = 0  # plies since the last placement or flattening (PlayTak's fifty-ply rule)
        self._history: list[int] = [0]  # hashes of the positions so far (threefold repetition)

    # -- construction from and to TPS --------------------------------------------------------
    @classmethod
    def from_tps(
        cls,
        tps: str,
        *,
        komi: int = 0,
        flats: int | tuple[int, int] | None = None,
        caps: int | tuple[int, int] | None = None,
        opening: str = "swap",
        draw_policies: Iterable[str] = (),
    ) -> Position:
        """Build a position from TPS. Reserves: the starting ones minus the stones on the board.

        >>> Position.from_tps("x3/x,2,x/1,x2 1 2").reserves(0)
        (9, 0)
        """
        board = parse_tps(tps)
        pos = cls(
            board.size,
            komi=komi,
            flats=flats,
            caps=caps,
            opening=opening,
            draw_policies=draw_policies,
        )
        used_flats = [0, 0]
        used_caps = [0, 0]
        for sq, (owners, height, top) in enumerate(board.stacks):
            if not height:
                continue
            black_count = owners.bit_count()
            white_count = height - black_count
            top_owner = owners >> (height - 1) & 1
            used_flats[BLACK] += black_count
            used_flats[WHITE] += white_count
            if top == CAP:
                used_flats[top_owner] -= 1
                used_caps[top_owner] += 1
            pos._set_square(sq, owners, height, top)
        for player in (WHITE, BLACK):
            for used, start, what in (
                (used_flats, pos._start_flats, "stones"),
                (used_caps, pos._start_caps, "capstones"),
            ):
                if used[player] > start[player]:
                    raise TPSError(
                        f'TPS "{tps}": {player_name(player)} has {used[player]} {what} on the '
                        f"board but only {start[player]} in reserve on a {board.size}x{board.size} "
                        "board"
                    )
            pos._reserve_flats[player] = pos._start_flats[player] - used_flats[player]
            pos._reserve_caps[player] = pos._start_caps[player] - used_caps[player]
        pos._tomove = board.to_move
        pos._ply = 2 * (board.move_number - 1) + board.to_move
        if board.to_move == BLACK:
            pos._hash ^= SIDE_KEY
        pos._history = [pos._hash]
        return pos

    def _set_square(self, sq: int, owners: int, height: int, top: int) -> None:
        """Put a stack on an empty square while setting a position up (not undoable)."""
        self._hgt[sq], self._own[sq], self._top[sq] = height, owners, top
        bit = 1 << sq
        if owners >> (height - 1) & 1:
            self._black |= bit
        else:
            self._white |= bit
        if top == WALL:
            self._walls |= bit
        elif top == CAP:
            self._caps |= bit
        self._hash ^= _square_key(sq, owners, height, top)

    def tps(self) -> str:
        stacks: list[Stack] = list(zip(self._own, self._hgt, self._top, strict=True))
        return format_tps(self._n, stacks, self._tomove, self._ply // 2 + 1)

    def __repr__(self) -> str:
        return f"Position({self.tps()!r})"

    def __str__(self) -> str:
        return self.tps()

    def __eq__(self, other: object) -> bool:
        """Same stacks, player to move, reserves and rules (history is not compared)."""
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self._n == other._n
            and self._hgt == other._hgt
            and self._own == other._own
            and self._top == other._top
            and self._tomove == other._tomove
            and self._ply == other._ply
            and self._reserve_flats == other._reserve_flats
            and self._reserve_caps == other._reserve_caps
            and self.komi == other.komi
            and self._opening == other._opening
        )

    __hash__ = None  # type: ignore[assignment]  # mutable; use .hash

    def copy(self, stack: bool = False) -> Position:
        """An independent copy; with `stack=True` the history too, so `pop` works on it."""
        new = object.__new__(Position)
        for name in Position.__slots__:
            value = getattr(self, name)
            if isinstance(value, list):
                value = list(value)
            setattr(new, name, value)
        if not stack:
            new._stack = []
            new._history = [self._hash]
            new._quiet = self._quiet
        return new

    # -- state -------------------------------------------------------------------------------
    @property
    def to_move(self) -> int:
        return self._tomove

    @property
    def ply_count(self) -> int:
        return self._ply

    @property
    def move_number(self) -> int:
        return self._ply // 2 + 1

    @property
    def hash(self) -> int:
        return self._hash

    @property
    def opening(self) -> str:
        return OPENINGS[self._opening]

    @property
    def placing_color(self) -> int:
        """The colour of a stone the player to move puts down now: their own, except on the
        first two plies of the swap openings, which place the opponent's."""
        swapped = self._ply < 2 and self._opening != NO_SWAP
        return 1 - self._tomove if swapped else self._tomove

    @property
    def draw_policies(self) -> tuple[str, ...]:
        return tuple(
            p
            for p, on in zip(DRAW_POLICIES, (self._draw_fifty, self._draw_threefold), strict=True)
            if on
        )

    @property
    def last_ply(self) -> Ply | None:
        return self._stack[-1][0] if self._stack else None

    @property
    def history(self) -> list[Ply]:
        """The plies played on this object since it was created (or copied), oldest first."""
        return [record[0] for record in self._stack]

    def starting_reserves(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """((white flats, black flats), (white caps, black caps)) at the start of the game."""
        return tuple(self._start_flats), tuple(self._start_caps)  # type: ignore[return-value]

    def _sq(self, square: str) -> int:
        file, rank = parse_square(square, self._n)
        return rank * self._n + file

    def stack(self, square: str) -> tuple[tuple[int, int], ...]:
        """The stones on `square`, bottom to top, as (player, stone)."""
        sq = self._sq(square)
        h, own, top = self._hgt[sq], self._own[sq], self._top[sq]
        return tuple((own >> i & 1, top if i == h - 1 else FLAT) for i in range(h))

    def top(self, square: str) -> tuple[int, int] | None:
        sq = self._sq(square)
        h = self._hgt[sq]
        return (self._own[sq] >> (h - 1) & 1, self._top[sq]) if h else None

    def height(self, square: str) -> int:
        return self._hgt[self._sq(square)]

    def stacks(self) -> dict[str, tuple[tuple[int, int], ...]]:
        names = self.T.names
        return {names[sq]: self.stack(names[sq]) for sq in range(len(names)) if self._hgt[sq]}

    def reserves(self, player: int) -> tuple[int, int]:
        return self._reserve_flats[player], self._reserve_caps[player]

    def flat_count(self) -> tuple[int, int]:
        """Top flats per player (walls and capstones never count; komi not included)."""
        plain = ~(self._walls | self._caps)
        return (self._white & plain).bit_count(), (self._black & plain).bit_count()

    # -- fast read access for a search (controller.engine) ----------------------------------
    # Squares are bit indices `rank * size + file`. The lists returned are the live state: read
    # them, never change them, and do not keep them across push/pop.
    def bitboards(self) -> tuple[int, int, int, int]:
        """(white tops, black tops, walls, capstones) as square bitboards; one call per question
        instead of four property reads."""
        return self._white, self._black, self._walls, self._caps

    def columns(self) -> tuple[list[int], list[int], list[int]]:
        """(heights, owners, tops) per square: owners has bit i set when the i-th stone from the
        bottom is player 2's; tops is the top stone (FLAT for an empty square)."""
        return self._hgt, self._own, self._top

    def reserve_lists(self) -> tuple[list[int], list[int]]:
        """(flats, caps) left per player, indexed by WHITE/BLACK."""
        return self._reserve_flats, self._reserve_caps

    def has_road_bits(self, bits: int) -> bool:
        """Whether the squares of bitboard `bits` join two opposite edges (answers are cached)."""
        return self._has_road(bits)

    def toggle_turn(self) -> None:
        """A null move for "what if the other player moved now" questions: switches the player
        to move and the hash, nothing else. Call it again to undo; never leave it toggled."""
        self._tomove ^= 1
        self._hash ^= SIDE_KEY

    # -- playing -----------------------------------------------------------------------------
    def push(self, ply: Ply) -> Ply:
        """Play `ply` WITHOUT checking that it is legal (the fast path for search); returns the ply
        as played, with `flattens` set. Use `play` for plies from outside."""
        n = self._n
        sq = ply._rank * n + ply._file
        hgt, own, tops = self._hgt, self._own, self._top
        mover = self._tomove
        prev = (self._white, self._black, self._walls, self._caps, self._hash, self._quiet)
        z = self._hash ^ SIDE_KEY
        if ply.direction is None:
            color = mover if (self._ply >= 2 or self._opening == NO_SWAP) else 1 - mover
            stone = ply.stone
            count = ply.count
            owners = ((1 << count) - 1) if color else 0
            hgt[sq], own[sq], tops[sq] = count, owners, stone
            bit = 1 << sq
            if color:
                self._black |= bit
            else:
                self._white |= bit
            if stone == CAP:
                self._caps |= bit
                self._reserve_caps[color] -= 1
            else:
                if stone == WALL:
                    self._walls |= bit
                self._reserve_flats[color] -= count
            z ^= _square_key(sq, owners, count, stone)
            self._stack.append((ply, (sq, 0, 0, FLAT), prev, color))
            self._quiet = 0
        else:
            keys = _KEYS
            step = ply._dy * n + ply._dx
            drops = ply.drops
            h, o, top = hgt[sq], own[sq], tops[sq]
            rest = h - ply.count
            moving = o >> rest
            saved = [sq, h, o, top]
            k = ((o | 1 << h) << 2 | top) << 6 | sq
            z ^= keys.get(k) or _new_key(k)
            white, black, walls, caps = self._white, self._black, self._walls, self._caps
            bit = 1 << sq
            keep = ~bit
            white &= keep
            black &= keep
            walls &= keep
            caps &= keep
            if rest:
                o &= (1 << rest) - 1
                hgt[sq], own[sq], tops[sq] = rest, o, FLAT
                k = ((o | 1 << rest) << 2) << 6 | sq
                z ^= keys.get(k) or _new_key(k)
                if o >> (rest - 1) & 1:
                    black |= bit
                else:
                    white |= bit
            else:
                hgt[sq] = own[sq] = 0
                tops[sq] = FLAT
            t = sq
            # every square before the last gets flats on a flat or an empty square
            for d in drops[:-1]:
                t += step
                th, to = hgt[t], own[t]
                saved += (t, th, to, FLAT)
                if th:
                    k = ((to | 1 << th) << 2) << 6 | t
                    z ^= keys.get(k) or _new_key(k)
                to |= (moving & ((1 << d) - 1)) << th
                moving >>= d
                th += d
                hgt[t], own[t] = th, to
                k = ((to | 1 << th) << 2) << 6 | t
                z ^= keys.get(k) or _new_key(k)
                bit = 1 << t
                if to >> (th - 1) & 1:
                    black |= bit
                    white &= ~bit
                else:
                    white |= bit
                    black &= ~bit
            # the last square gets the moving top stone (and may have held a wall)
            t += step
            th, to, tt = hgt[t], own[t], tops[t]
            saved += (t, th, to, tt)
            if th:
                k = ((to | 1 << th) << 2 | tt) << 6 | t
                z ^= keys.get(k) or _new_key(k)
            to |= moving << th
            th += drops[-1]
            hgt[t], own[t], tops[t] = th, to, top
            k = ((to | 1 << th) << 2 | top) << 6 | t
            z ^= keys.get(k) or _new_key(k)
            bit = 1 << t
            if to >> (th - 1) & 1:
                black |= bit
                white &= ~bit
            else:
                white |= bit
                black &= ~bit
            flattened = tt == WALL
            if flattened:
                walls &= ~bit
            if top == WALL:
                walls |= bit
            elif top == CAP:
                caps |= bit
            self._white, self._black, self._walls, self._caps = white, black, walls, caps
            if flattened:
                self._quiet = 0
                if not ply.flattens:
                    ply = ply.with_flattens(True)
            else:
                self._quiet += 1
                if ply.flattens:
                    ply = ply.with_flattens(False)
            self._stack.append((ply, saved, prev, -1))
        self._hash = z
        self._tomove = 1 - mover
        self._ply += 1
        if self._draw_threefold:
            self._history.append(z)
        return ply

    def pop(self) -> Ply:
        """Undo the last ply exactly; returns it. `IndexError` when there is nothing to undo."""
        if not self._stack:
            raise IndexError("pop from a position with no plies played on it")
        ply, saved, prev, color = self._stack.pop()
        hgt, own, tops = self._hgt, self._own, self._top
        for i in range(0, len(saved), 4):
            sq = saved[i]
            hgt[sq], own[sq], tops[sq] = saved[i + 1], saved[i + 2], saved[i + 3]
        self._white, self._black, self._walls, self._caps, self._hash, self._quiet = prev
        if color >= 0:
            if ply.stone == CAP:
                self._reserve_caps[color] += 1
            else:
                self._reserve_flats[color] += ply.count
        self._tomove = 1 - self._tomove
        self._ply -= 1
        if self._draw_threefold:
            self._history.pop()
        return ply

    def play(self, ply: Ply | str) -> Ply:
        """Check `ply` (a `Ply` or PTN text) and play it; `IllegalPlyError` saying why if it is not
        legal here. Returns the ply as played (with `flattens` set)."""
        if isinstance(ply, str):
            ply = Ply.from_ptn(ply)
        why = self.why_illegal(ply)
        if why is not None:
            raise IllegalPlyError(f'"{ply.ptn()}" in {self.tps()}: {why}')
        return self.push(ply)

    def parse_ply(self, text: str) -> Ply:
        """Parse PTN ply text and check it is legal here (without playing it)."""
        ply = Ply.from_ptn(text)
        why = self.why_illegal(ply)
        if why is not None:
            raise IllegalPlyError(f'"{text}" in {self.tps()}: {why}')
        return ply

    # -- legality ----------------------------------------------------------------------------
    def why_illegal(self, ply: Ply) -> str | None:
        """None when `ply` is legal here, else the reason in words."""
        n = self._n
        over = self.outcome()
        if over is not None:
            return f"the game is already over ({over.result()})"
        try:
            squares = ply.squares(n)
        except (
            InvalidPlyError
        ) as err:  # off this board: "a5 is off a 4x4 board", "... runs off ..."
            return str(err)
        sq = ply._rank * n + ply._file
        mover = self._tomove
        if ply.direction is None:
            if self._hgt[sq]:
                return f"{ply.square} is occupied"
            if self._ply < 2:
                color = mover if self._opening == NO_SWAP else 1 - mover
                wanted = 2 if (self._ply == 0 and self._opening == DOUBLE_BLACK) else 1
                if ply.stone != FLAT:
                    return "the first ply of each player places a flat"
                if ply.count != wanted:
                    return (
                        "the double-black-stack opening starts with two black flats (2a1)"
                        if wanted == 2
                        else "place one flat, not two"
                    )
            else:
                color = mover
                if ply.count != 1:
                    return "only the double-black-stack opening places two stones at once"
            if ply.stone == CAP:
                if self._reserve_caps[color] < 1:
                    return f"{player_name(color)} has no capstones left"
            elif self._reserve_flats[color] < ply.count:
                return f"{player_name(color)} has no stones left"
            return None
        if self._ply < 2:
            return "no stack moves in the first two plies (each places one flat)"
        h = self._hgt[sq]
        if not h:
            return f"{ply.square} is empty"
        owner = self._own[sq] >> (h - 1) & 1
        if owner != mover:
            return (
                f"{ply.square} is controlled by {player_name(owner)}, "
                f"{player_name(mover)} is to move"
            )
        if ply.count > n:
            return f"the carry limit on a {n}x{n} board is {n}, not {ply.count}"
        if ply.count > h:
            return f"{ply.square} holds {h} stone{'s' if h > 1 else ''}, cannot lift {ply.count}"
        moving_top = self._top[sq]
        last = len(ply.drops) - 1
        for i, name in enumerate(squares[1:]):
            t = self._sq(name)
            if not self._hgt[t]:
                continue
            tt = self._top[t]
            if tt == CAP:
                return f"{name} is a capstone: nothing moves onto it"
            if tt == WALL and not (i == last and moving_top == CAP and ply.drops[-1] == 1):
                if moving_top != CAP:
                    return f"{name} is a wall: nothing moves onto it"
                return f"{name} is a wall: a capstone flattens it only alone, as the last drop"
        return None

    @property
    def legal_plies(self) -> LegalPlies:
        return LegalPlies(self)

    def _generate(self) -> list[Ply]:
        """Every legal ply (assumes the game is not over)."""
        T = self.T
        n = self._n
        names = T.names
        occupied = self._white | self._black
        empty = T.full & ~occupied
        out: list[Ply] = []
        if self._ply < 2:
            double = self._ply == 0 and self._opening == DOUBLE_BLACK
            color = self._tomove if self._opening == NO_SWAP else 1 - self._tomove
            need = 2 if double else 1
            if self._reserve_flats[color] < need:
                return out
            table = T.double_placements if double else [p[0] for p in T.placements]
            while empty:
                low = empty & -empty
                out.append(table[low.bit_length() - 1])
                empty ^= low
            return out
        mover = self._tomove
        flats_left = self._reserve_flats[mover] > 0
        caps_left = self._reserve_caps[mover] > 0
        if flats_left or caps_left:
            placements = T.placements
            pick = (slice(0, 3) if caps_left else slice(0, 2)) if flats_left else slice(2, 3)
            while empty:
                low = empty & -empty
                out += placements[low.bit_length() - 1][pick]
                empty ^= low
        mine = self._black if mover else self._white
        blockers = self._walls | self._caps
        walls = self._walls
        hgt, tops = self._hgt, self._top
        rays, ray_len = T.rays, T.ray_len
        while mine:
            low = mine & -mine
            sq = low.bit_length() - 1
            mine ^= low
            carry = hgt[sq]
            if carry > n:
                carry = n
            is_cap = tops[sq] == CAP
            name = names[sq]
            for d in range(4):
                x = blockers & rays[d][sq]
                if x:
                    if d == 0:
                        b = (x & -x).bit_length() - 1
                        dist = (b - sq) // n - 1
                    elif d == 1:
                        b = x.bit_length() - 1
                        dist = (sq - b) // n - 1
                    elif d == 2:
                        b = (x & -x).bit_length() - 1
                        dist = b - sq - 1
                    else:
                        b = x.bit_length() - 1
                        dist = sq - b - 1
                    if dist:
                        out += spread_plies(name, d, carry, dist)
                    if is_cap and walls >> b & 1:
                        out += flatten_plies(name, d, carry, dist)
                else:
                    dist = ray_len[d][sq]
                    if dist:
                        out += spread_plies(name, d, carry, dist)
        return out

    # every legal ply, without the game-over check (a search checks that itself)
    generate = _generate

    def count_legal(self) -> int:
        """How many legal plies there are, without listing them (0 when the game is over)."""
        if self._terminal():
            return 0
        return self._count()

    def _count(self) -> int:
        T = self.T
        n = self._n
        occupied = self._white | self._black
        empties = T.cells - occupied.bit_count()
        if self._ply < 2:
            double = self._ply == 0 and self._opening == DOUBLE_BLACK
            color = self._tomove if self._opening == NO_SWAP else 1 - self._tomove
            return empties if self._reserve_flats[color] >= (2 if double else 1) else 0
        mover = self._tomove
        total = empties * (
            (2 if self._reserve_flats[mover] else 0) + (1 if self._reserve_caps[mover] else 0)
        )
        mine = self._black if mover else self._white
        blockers = self._walls | self._caps
        walls = self._walls
        hgt, tops = self._hgt, self._top
        up, down, right, left = T.rays
        up_len, down_len, right_len, left_len = T.ray_len
        while mine:
            low = mine & -mine
            sq = low.bit_length() - 1
            mine ^= low
            carry = hgt[sq]
            if carry > n:
                carry = n
            row = SPREAD_COUNT[carry]
            if tops[sq] == CAP:
                flat_row = FLATTEN_COUNT[carry]
                x = blockers & up[sq]
                if x:
                    b = (x & -x).bit_length() - 1
                    dist = (b - sq) // n - 1
                    total += row[dist] + (flat_row[dist] if walls >> b & 1 else 0)
                else:
                    total += row[up_len[sq]]
                x = blockers & down[sq]
                if x:
                    b = x.bit_length() - 1
                    dist = (sq - b) // n - 1
                    total += row[dist] + (flat_row[dist] if walls >> b & 1 else 0)
                else:
                    total += row[down_len[sq]]
                x = blockers & right[sq]
                if x:
                    b = (x & -x).bit_length() - 1
                    dist = b - sq - 1
                    total += row[dist] + (flat_row[dist] if walls >> b & 1 else 0)
                else:
                    total += row[right_len[sq]]
                x = blockers & left[sq]
                if x:
                    b = x.bit_length() - 1
                    dist = sq - b - 1
                    total += row[dist] + (flat_row[dist] if walls >> b & 1 else 0)
                else:
                    total += row[left_len[sq]]
            else:
                x = blockers & up[sq]
                total += row[((x & -x).bit_length() - 1 - sq) // n - 1] if x else row[up_len[sq]]
                x = blockers & down[sq]
                total += row[(sq - x.bit_length() + 1) // n - 1] if x else row[down_len[sq]]
                x = blockers & right[sq]
                total += row[(x & -x).bit_length() - 2 - sq] if x else row[right_len[sq]]
                x = blockers & left[sq]
                total += row[sq - x.bit_length()] if x else row[left_len[sq]]
        return total

    # -- roads and the end of the game -------------------------------------------------------
    def _has_road(self, bits: int) -> bool:
        """Whether the squares in `bits` (one player's flats and capstones) join opposite edges.

        Answers are remembered per board size: in a search the same set of road stones comes back
        again and again (a placement leaves the other player's set as it was)."""
        if bits.bit_count() < self._n:
            return False
        cache = self.T.road_cache
        known = cache.get(bits)
        if known is None:
            if len(cache) > ROAD_CACHE_LIMIT:
                cache.clear()
            known = cache[bits] = self._flood_road(bits)
        return known

    def _flood_road(self, bits: int) -> bool:
        T = self.T
        n = self._n
        ncf, ncl = T.not_col_first, T.not_col_last
        for start, end in ((T.col_first, T.col_last), (T.row_first, T.row_last)):
            x = bits & start
            if not x or not bits & end:
                continue
            while True:
                if x & end:
                    return True
                y = (x | (x << 1 & ncf) | (x >> 1 & ncl) | (x << n) | (x >> n)) & bits
                if y == x:
                    break
                x = y
        return False

    def _road_bits(self, player: int) -> int:
        return (self._black if player else self._white) & ~self._walls

    def road(self, player: int) -> list[str] | None:
        """The squares of one road of `player` (a shortest one, edge to edge), or None."""
        bits = self._road_bits(player)
        if not self._has_road(bits):
            return None
        T, n = self.T, self._n
        best: list[int] | None = None
        for start_edge, on_end in (
            (T.col_first, lambda s: s % n == n - 1),
            (T.row_first, lambda s: s // n == n - 1),
        ):
            frontier = [s for s in range(T.cells) if bits >> s & start_edge >> s & 1]
            parent = {s: -1 for s in frontier}
            while frontier:
                nxt = []
                for s in frontier:
                    if on_end(s):
                        path = []
                        while s != -1:
                            path.append(s)
                            s = parent[s]
                        path.reverse()
                        if best is None or len(path) < len(best):
                            best = path
                        nxt = []
                        break
                    f, r = s % n, s // n
                    for ff, rr in ((f + 1, r), (f - 1, r), (f, r + 1), (f, r - 1)):
                        t = rr * n + ff
                        if 0 <= ff < n and 0 <= rr < n and bits >> t & 1 and t not in parent:
                            parent[t] = s
                            nxt.append(t)
                frontier = nxt
        return [T.names[s] for s in best] if best else None

    def _terminal(self) -> bool:
        """True when the game is over (fast; `outcome()` says how)."""
        if self._has_road(self._white & ~self._walls) or self._has_road(self._black & ~self._walls):
            return True
        if (self._white | self._black) == self.T.full:
            return True
        rf, rc = self._reserve_flats, self._reserve_caps
        if not (rf[0] or rc[0]) or not (rf[1] or rc[1]):
            return True
        return (self._draw_fifty or self._draw_threefold) and self._draw_by_policy()

    def _draw_by_policy(self) -> bool:
        if self._draw_fifty and self._quiet >= FIFTY_PLIES:
            return True
        return self._draw_threefold and self._history.count(self._hash) >= 3

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on.

        Order: roads (both at once: the player who just moved wins), then a full board or a player
        out of stones (flat count, komi to player 2), then the optional draw policies.
        """
        white_road = self._has_road(self._white & ~self._walls)
        black_road = self._has_road(self._black & ~self._walls)
        if white_road and black_road:
            return Outcome(1 - self._tomove, "road")
        if white_road:
            return Outcome(WHITE, "road")
        if black_road:
            return Outcome(BLACK, "road")
        rf, rc = self._reserve_flats, self._reserve_caps
        if (
            (self._white | self._black) == self.T.full
            or not (rf[0] or rc[0])
            or not (rf[1] or rc[1])
        ):
            white, black = self.flat_count()
            score = 2 * white - 2 * black - self.komi
            if score == 0:
                return Outcome(None, "draw")
            return Outcome(WHITE if score > 0 else BLACK, "flats")
        if (self._draw_fifty or self._draw_threefold) and self._draw_by_policy():
            return Outcome(None, "draw")
        return None

    @property
    def is_over(self) -> bool:
        return self._terminal()


class LegalPlies:
    """A lazy view of a position's legal plies: iterate, `in`, `bool()`, `count()`, `len()`."""

    __slots__ = ("_position",)

    def __init__(self, position: Position) -> None:
        self._position = position

    def __iter__(self) -> Iterator[Ply]:
        pos = self._position
        if pos._terminal():
            return iter(())
        return iter(pos._generate())

    def __contains__(self, ply: object) -> bool:
        return isinstance(ply, Ply) and self._position.why_illegal(ply) is None

    def __bool__(self) -> bool:
        return self._position.count_legal() > 0

    def count(self) -> int:
        return self._position.count_legal()

    def __len__(self) -> int:
        return self.count()

    def __repr__(self) -> str:
        return f"<LegalPlies ({', '.join(p.ptn() for p in self)}) in {self._position!r}>"


__all__ = ["LegalPlies", "Position"]

"""Static evaluation of a Tak position, in centiflats (100 = one flat), for the player to move.

What it knows, and why each term is there:
- flat count with komi: the score if the game ended on flats now; weighs more as reserves run low
  and the board fills, because then a flat ending is near;
- road potential: per row and column, how many road pieces a player has there (superlinear, and
  worth less where the opponent has a wall or capstone in the line), plus the span of each connected
  group (a group spanning 4 of 5 rows is one step from a road);
- stacks: own pieces under an own top ("hard" reserves that a spread turns into flats) and captives
  under an own top; both worth more under a capstone or wall, which cannot be covered;
- capstone: being on the board and free to move (capstone mobility);
- walls: a wall is a flat that does not count, so it pays only next to enemy road pieces;
- reserves: not a term of their own; they set how urgent the flat count is (first bullet);
- tempo: the player to move gets a small bonus.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.engine.board import STANDARD_RESERVES, Geometry, Position


@dataclass(frozen=True)
class Weights:
    flat: int = 100
    flat_endgame: int = 60  # added per flat as reserves run out
    line: tuple[int, ...] = (0, 0, 8, 22, 45, 75, 110, 150, 200)
    line_blocked_divisor: int = 3
    group_span: tuple[int, ...] = (0, 0, 10, 30, 60, 100, 140, 180, 220)
    hard_flat: int = 25
    captive: int = 12
    under_hard_top: int = 10
    cap_on_board: int = 20
    cap_mobility: int = 6
    wall: int = -30
    wall_near_enemy: int = 12
    center: int = 6
    tempo: int = 25


DEFAULT_WEIGHTS = Weights()


def evaluate(position: Position, w: Weights = DEFAULT_WEIGHTS) -> int:
    """Score for the player to move (positive = good for them)."""
    score = _white_score(position, w)
    return score if position.to_move == 0 else -score


def _white_score(position: Position, w: Weights) -> int:
    geo = Geometry.of(position.size)
    n = geo.size
    ow, ob, walls, caps = position.bitboards()
    rw = ow & ~walls
    rb = ob & ~walls
    fw = (rw & ~caps).bit_count()
    fb = (rb & ~caps).bit_count()
    occ = ow | ob
    # flats matter more the closer a flat ending is
    start_flats = _start_flats(n)
    flats, capsleft = position.reserve_lists()
    left = min(flats[0] + capsleft[0], flats[1] + capsleft[1])
    empties = geo.squares - occ.bit_count()
    urgency = max(0.0, 1.0 - min(left / start_flats, empties / geo.squares) * 2.0)
    flat_weight = w.flat + int(w.flat_endgame * urgency)
    score = flat_weight * (fw - fb) - (flat_weight * position.komi) // 2

    # road potential along lines
    line = w.line
    div = w.line_blocked_divisor
    blockers_w = (walls | caps) & ow
    blockers_b = (walls | caps) & ob
    for mask in geo.lines:
        cw = (rw & mask).bit_count()
        if cw > 1:
            v = line[cw]
            if blockers_b & mask:
                v //= div
            elif ob & mask:
                v = v * 2 // 3
            score += v
        cb = (rb & mask).bit_count()
        if cb > 1:
            v = line[cb]
            if blockers_w & mask:
                v //= div
            elif ow & mask:
                v = v * 2 // 3
            score -= v

    # connected groups: their span towards a road
    score += _group_score(geo, rw, w) - _group_score(geo, rb, w)

    # stacks: hard flats and captives (owner bits: bit i set = the i-th stone is black's)
    heights, owners, tops = position.columns()
    hard_flat, captive, under_hard = w.hard_flat, w.captive, w.under_hard_top
    for sq in [sq for sq, height in enumerate(heights) if height > 1]:
        height = heights[sq]
        below = owners[sq] & ((1 << (height - 1)) - 1)
        blacks = below.bit_count()
        if owners[sq] >> (height - 1) & 1:
            v = hard_flat * blacks + captive * (height - 1 - blacks)
            if tops[sq]:
                v += under_hard * (height - 1)
            score -= v
        else:
            v = hard_flat * (height - 1 - blacks) + captive * blacks
            if tops[sq]:
                v += under_hard * (height - 1)
            score += v

    # capstones: on the board, and how free to move they are
    c = caps
    while c:
        low = c & -c
        c ^= low
        free = (geo.spread(low) & ~(walls | caps)).bit_count()
        v = w.cap_on_board + w.cap_mobility * free
        score += v if low & ow else -v

    # walls: cost a flat's worth of counting, pay next to enemy road pieces
    ww = walls & ow
    wb = walls & ob
    score += w.wall * (ww.bit_count() - wb.bit_count())
    score += w.wall_near_enemy * (
        (geo.spread(ww) & rb).bit_count() - (geo.spread(wb) & rw).bit_count()
    )

    # centre control for road pieces
    inner = geo.inner
    score += w.center * ((rw & inner).bit_count() - (rb & inner).bit_count())

    score += w.tempo if position.to_move == 0 else -w.tempo
    return score


def _start_flats(size: int) -> int:
    f, c = STANDARD_RESERVES[size]
    return f + c


# per span-bonus table (by identity: a Weights object keeps its tuple), then road bits and size
_GROUP_CACHE: dict[int, dict[int, int]] = {}
_GROUP_CACHE_MAX = 500_000


def _group_score(geo: Geometry, road: int, w: Weights) -> int:
    """Sum over connected groups of a bonus for how many rows or columns the group spans.

    Remembered per road bitboard: a search changes one player's road pieces per ply, so the
    other player's set (and often both) comes back again and again."""
    span_bonus = w.group_span
    cache = _GROUP_CACHE.get(id(span_bonus))
    if cache is None or len(cache) > _GROUP_CACHE_MAX:
        cache = _GROUP_CACHE[id(span_bonus)] = {}
    key = road << 4 | geo.size
    known = cache.get(key)
    if known is not None:
        return known
    total = 0
    rest = road
    rows = geo.row
    cols = geo.col
    while rest:
        low = rest & -rest
        comp = geo.flood(low, road)
        rest &= ~comp
        if comp == low:
            continue
        r = sum(1 for m in rows if comp & m)
        c = sum(1 for m in cols if comp & m)
        total += span_bonus[r if r > c else c]
    cache[key] = total
    return total

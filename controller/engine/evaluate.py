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

from controller.engine.board import STANDARD_RESERVES, Board


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


def evaluate(board: Board, w: Weights = DEFAULT_WEIGHTS) -> int:
    """Score for the player to move (positive = good for them)."""
    score = _white_score(board, w)
    return score if board.to_move == 0 else -score


def _white_score(board: Board, w: Weights) -> int:
    geo = board.geo
    n = geo.size
    caps = board.capbits
    walls = board.walls
    rw, rb = board.road
    fw = (rw & ~caps).bit_count()
    fb = (rb & ~caps).bit_count()
    # flats matter more the closer a flat ending is
    start_flats = _start_flats(n)
    left = min(board.flats[0] + board.caps[0], board.flats[1] + board.caps[1])
    empties = geo.squares - board.occ.bit_count()
    urgency = max(0.0, 1.0 - min(left / start_flats, empties / geo.squares) * 2.0)
    flat_weight = w.flat + int(w.flat_endgame * urgency)
    score = flat_weight * (fw - fb) - (flat_weight * board.komi) // 2

    # road potential along lines
    line = w.line
    div = w.line_blocked_divisor
    blockers_w = (walls | caps) & board.owner[0]
    blockers_b = (walls | caps) & board.owner[1]
    ob, ow = board.owner[1], board.owner[0]
    for mask in geo.row + geo.col:
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

    # stacks: hard flats and captives
    stacks = board.stacks
    kinds = board.kinds
    tall = board.occ
    while tall:
        low = tall & -tall
        sq = low.bit_length() - 1
        tall ^= low
        stack = stacks[sq]
        height = len(stack)
        if height < 2:
            continue
        top = stack[-1]
        below = stack[:-1]
        own = below.count(top)
        captives = height - 1 - own
        v = w.hard_flat * own + w.captive * captives
        if kinds[sq] != 0:
            v += w.under_hard_top * (height - 1)
        score += v if top == 0 else -v

    # capstones: on the board, and how free to move they are
    c = caps
    while c:
        low = c & -c
        sq = low.bit_length() - 1
        c ^= low
        free = (geo.spread(low) & ~(walls | caps)).bit_count()
        v = w.cap_on_board + w.cap_mobility * free
        score += v if stacks[sq][-1] == 0 else -v

    # walls: cost a flat's worth of counting, pay next to enemy road pieces
    ww = walls & ow
    wb = walls & ob
    score += w.wall * (ww.bit_count() - wb.bit_count())
    score += w.wall_near_enemy * (
        (geo.spread(ww) & rb).bit_count() - (geo.spread(wb) & rw).bit_count()
    )

    # centre control for road pieces
    inner = geo.full & ~geo.edge
    score += w.center * ((rw & inner).bit_count() - (rb & inner).bit_count())

    score += w.tempo if board.to_move == 0 else -w.tempo
    return score


def _start_flats(size: int) -> int:
    f, c = STANDARD_RESERVES[size]
    return f + c


def _group_score(geo, road: int, w: Weights) -> int:
    """Sum over connected groups of a bonus for how many rows or columns the group spans."""
    total = 0
    rest = road
    span_bonus = w.group_span
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
    return total

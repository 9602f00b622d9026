"""Roads in one, tak and tinue, answered exactly (no evaluation, no guessing).

These are the facts a hint must never get wrong, so they are computed by rules, not by search:
- `winning_plies(position)`: every ply that wins on the spot for the player to move.
- `threatens(position, player)`: `player` would have a winning ply if it were their turn ("tak").
- `is_tinue(position, attacker, depth)`: the defender (to move) cannot stop a road within `depth`
  attacker plies, whatever they play.

Placement wins come from bitboards (`Geometry.winning_empties`). Spread wins are tried only from
computed without playing them (`spread_wins`): the owners of the carried stones say who is on top
of every square a spread touches. A bound prunes first: a spread covers at most `min(height,
size)` squares of its ray, so the player's road pieces plus those squares must already contain a
road. That is cheap enough for every leaf of the search, which is what catches threats made by
spreads at the horizon.
"""

from __future__ import annotations

from controller.engine.board import CAP, FLAT, WALL, Geometry, Ply, Position
from controller.tak.tables import compositions

DIRECTIONS = "+-><"


def placement_wins(position: Position, player: int) -> int:
    """Bitboard of empty squares where `player` completes a road by placing a flat (or capstone)."""
    if position.ply_count < 2:
        return 0
    flats, caps = position.reserve_lists()
    if not (flats[player] or caps[player]):
        return 0
    white, black, walls, _caps = position.bitboards()
    road = (black if player else white) & ~walls
    geo = Geometry.of(position.size)
    if road.bit_count() < geo.size - 1:
        return 0
    return geo.winning_empties(road, geo.full & ~(white | black))


def spread_wins(position: Position, first_only: bool = False) -> list[Ply]:
    """The spreads that win on the spot for the player to move (a road for them).

    Nothing is played: for each spread the new top of every square it touches follows from the
    carried stones' owners (bit i of the owner bits is the i-th stone from the bottom), so the
    road after it is a few integer operations. A bound prunes first: the road pieces plus every
    square the spread could reach must contain a road, else no drop sequence can make one.
    """
    me = position.to_move
    if position.ply_count < 2:
        return []
    geo = Geometry.of(position.size)
    n = geo.size
    white, black, walls, caps = position.bitboards()
    mine = black if me else white
    road = mine & ~walls
    count = road.bit_count()
    heights, owners, tops = position.columns()
    blockers = walls | caps
    has_road = position.has_road_bits
    # bound first, with one road question: own road pieces plus every square any spread could
    # drop on (a lone flat moves one square and keeps the count, so it needs `count >= n`)
    names = geo.names
    star = geo.star
    movers: list[int] = []
    bound = road
    singles = 0
    m = mine
    while m:
        low = m & -m
        m ^= low
        sq = low.bit_length() - 1
        h = heights[sq]
        if h == 1 and tops[sq] == FLAT:
            if count >= n:
                singles |= low
                movers.append(sq)
            continue
        if count + (h if h < n else n) + 1 < n:
            continue
        movers.append(sq)
        bound |= low | star[sq][h if h < n else n]
    if singles:
        bound |= geo.spread(singles) & ~blockers
    if not movers or not has_road(bound):
        return []
    # one stone moved one square: the square it lands on must finish a road (computed lazily)
    single = -1
    out: list[Ply] = []
    for sq in movers:
        low = 1 << sq
        h = heights[sq]
        top = tops[sq]
        if h == 1 and top == FLAT:
            if single < 0:
                single = geo.winning_empties(road, geo.full & ~blockers & ~road)
            if not single & geo.spread(low):
                continue
        reach = h if h < n else n
        own = owners[sq]
        rays = geo.rays[sq]
        for d in range(4):
            ray = rays[d]
            r = 0
            wall_at_end = False
            for s in ray[:reach]:
                if (blockers >> s) & 1:
                    if top == CAP and (walls >> s) & 1:
                        r += 1  # the capstone may flatten it, alone, as the last drop
                        wall_at_end = True
                    break
                r += 1
            if not r:
                continue
            masks = geo.reach[sq][d]
            if not has_road(road | low | masks[r]):
                continue
            for k in range(1, reach + 1):
                rest = h - k
                carried = own >> rest
                base = road & ~low
                if rest and (own >> (rest - 1)) & 1 == me:
                    base |= low  # the stone left on top at the origin is an own flat
                span = k if k < r else r
                if not has_road(base | masks[span]):
                    continue
                for drops in _compositions(k, span):
                    length = len(drops)
                    if wall_at_end and length == r and (drops[-1] != 1 or top != CAP):
                        continue
                    new = base & ~masks[length]
                    idx = -1
                    for j in range(length):
                        idx += drops[j]
                        if (carried >> idx) & 1 == me:
                            new |= 1 << ray[j]
                    if top == WALL:
                        new &= ~(1 << ray[length - 1])  # the wall lands on top: not a road piece
                    if has_road(new):
                        flat = wall_at_end and length == r
                        out.append(Ply(names[sq], None, DIRECTIONS[d], drops, flattens=flat))
                        if first_only:
                            return out
    return out


_COMPOSITIONS: dict[tuple[int, int], list[tuple[int, ...]]] = {}


def _compositions(total: int, max_parts: int) -> list[tuple[int, ...]]:
    key = (total, max_parts)
    found = _COMPOSITIONS.get(key)
    if found is None:
        found = _COMPOSITIONS[key] = compositions(total, max_parts)
    return found


def winning_plies(position: Position) -> list[Ply]:
    """Every ply that wins at once for the player to move (a road, or flats on a full board)."""
    me = position.to_move
    out: list[Ply] = []
    if position.ply_count < 2 or position.is_over:
        return out
    wins = placement_wins(position, me)
    flats, caps = position.reserve_lists()
    names = Geometry.of(position.size).names
    stones = [s for s, left in ((FLAT, flats[me]), (CAP, caps[me])) if left]
    while wins:
        low = wins & -wins
        out.extend(Ply(names[low.bit_length() - 1], stone) for stone in stones)
        wins ^= low
    out.extend(spread_wins(position))
    white, black, _walls, _caps = position.bitboards()
    empties = position.size**2 - (white | black).bit_count()
    if empties == 1 or flats[me] + caps[me] == 1:
        # a placement (even a wall) that fills the board or empties the reserve ends the game,
        # and then the flat count decides
        for ply in position.generate():
            if ply.direction is not None or ply in out:
                continue
            position.push(ply)
            end = position.outcome()
            position.pop()
            if end is not None and end.winner == me:
                out.append(ply)
    return out


def has_winning_ply(position: Position) -> bool:
    """Cheaper yes/no version of `winning_plies` for roads (stops at the first win)."""
    if position.ply_count < 2:
        return False
    if placement_wins(position, position.to_move):
        return True
    return bool(spread_wins(position, first_only=True))


def threatens(position: Position, player: int) -> bool:
    """Does `player` have a road in one if it were their turn? ("tak")"""
    if position.to_move == player:
        return has_winning_ply(position)
    position.toggle_turn()
    try:
        return has_winning_ply(position)
    finally:
        position.toggle_turn()


def threat_plies(position: Position, player: int) -> list[Ply]:
    """The plies with which `player` would win if it were their turn."""
    if position.to_move == player:
        return winning_plies(position)
    position.toggle_turn()
    try:
        return winning_plies(position)
    finally:
        position.toggle_turn()


class Budget:
    """A node counter that stops a proof search which grows too large (answer: unknown = False)."""

    def __init__(self, nodes: int) -> None:
        self.left = nodes

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0


def is_tinue(
    position: Position, attacker: int, depth: int = 1, budget: Budget | None = None
) -> bool:
    """With the defender to move: every defender ply loses to a road within `depth` attacker plies.

    depth 1: whatever the defender plays, the attacker then has a road in one (classic tinue).
    depth 2: ... the attacker has a ply after which the defender is again in depth-1 tinue.
    A defender ply that wins on the spot refutes. `budget` caps the work; running out means "no".
    """
    if position.to_move == attacker:
        raise ValueError("is_tinue expects the defender to move")
    if budget is None:
        budget = Budget(200_000)
    end = position.outcome()
    if end is not None:
        return end.winner == attacker
    if not threatens(position, attacker):
        return False
    for ply in position.generate():
        if not budget.spend():
            return False
        position.push(ply)
        try:
            end = position.outcome()
            if end is not None:
                if end.winner != attacker:
                    return False
                continue
            if not _attacker_wins(position, attacker, depth, budget):
                return False
        finally:
            position.pop()
    return True


def _attacker_wins(position: Position, attacker: int, depth: int, budget: Budget) -> bool:
    if has_winning_ply(position):
        return True
    if depth <= 1:
        return False
    for ply in position.generate():
        if not budget.spend():
            return False
        position.push(ply)
        try:
            end = position.outcome()
            if end is not None:
                if end.winner == attacker:
                    return True
                continue
            if is_tinue(position, attacker, depth - 1, budget):
                return True
        finally:
            position.pop()
    return False

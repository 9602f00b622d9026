"""Roads in one, tak and tinue, answered exactly (no evaluation, no guessing).

These are the facts a hint must never get wrong, so they are computed by rules, not by search:
- `winning_plies(board)`: every ply that wins on the spot for the player to move.
- `threats(board, player)`: the plies `player` would win with if it were their turn ("tak").
- `is_tinue(board, attacker, depth)`: the defender (to move) cannot stop a road within `depth`
  attacker plies, whatever they play.

Placement wins come from bitboards (`Geometry.winning_empties`). Spreads are tried only along rays
that could possibly complete a road: the road bitboard plus every square of the ray must already
contain a road, otherwise no drop sequence on that ray can make one.
"""

from __future__ import annotations

from collections.abc import Iterator

from controller.engine.board import CAP, FLAT, WALL, Board


def placement_wins(board: Board, player: int) -> int:
    """Bitboard of empty squares where `player` completes a road by placing a flat (or capstone)."""
    if board.ply_count < 2 or (board.flats[player] == 0 and board.caps[player] == 0):
        return 0
    geo = board.geo
    road = board.road[player]
    if road.bit_count() < geo.size - 1:
        return 0
    return geo.winning_empties(road, geo.full & ~board.occ)


def _spread_candidates(board: Board, player: int) -> Iterator[tuple]:
    """Spreads of `player` that could complete a road for `player` (a superset of the real ones)."""
    geo = board.geo
    road = board.road[player]
    mine = board.owner[player]
    n = geo.size
    while mine:
        low = mine & -mine
        sq = low.bit_length() - 1
        mine ^= low
        without = road & ~low
        for d in range(4):
            ray_mask = geo.ray_masks[sq][d]
            upper = without | ray_mask | low
            if upper.bit_count() < n or not geo.has_road(upper):
                continue
            yield sq, d


def winning_plies(board: Board) -> list[tuple]:
    """Every ply that wins at once for the player to move (a road, or flats on a full board)."""
    me = board.to_move
    out: list[tuple] = []
    if board.ply_count < 2:
        return out
    wins = placement_wins(board, me)
    stones = [s for s, left in ((FLAT, board.flats[me]), (CAP, board.caps[me])) if left]
    while wins:
        low = wins & -wins
        out.extend((low.bit_length() - 1, stone) for stone in stones)
        wins ^= low
    spread_dirs = set(_spread_candidates(board, me))
    empties = (board.geo.full & ~board.occ).bit_count()
    for ply in board.plies():
        if len(ply) == 2:
            # besides a road, a placement (even a wall) can end the game by filling the board or
            # emptying the reserve, and then the flat count decides
            if ply in out:
                continue
            last_piece = board.flats[me] + board.caps[me] == 1
            if empties != 1 and not last_piece:
                continue
        elif (ply[0], ply[1]) not in spread_dirs:
            continue
        board.make(ply)
        end = board.game_end()
        board.unmake()
        if end is not None and end.winner == me:
            out.append(ply)
    return out


def has_winning_ply(board: Board) -> bool:
    """Cheaper yes/no version of `winning_plies` that stops at the first win."""
    me = board.to_move
    if board.ply_count < 2:
        return False
    if placement_wins(board, me):
        return True
    for sq, d in _spread_candidates(board, me):
        for ply in _spreads_along(board, sq, d):
            board.make(ply)
            end = board.game_end()
            board.unmake()
            if end is not None and end.winner == me:
                return True
    return False


def _spreads_along(board: Board, sq: int, d: int) -> list[tuple]:
    geo = board.geo
    height = len(board.stacks[sq])
    carry = min(height, geo.size)
    blockers = board.walls | board.capbits
    ray = geo.rays[sq][d]
    dist = 0
    for s in ray:
        if (blockers >> s) & 1:
            break
        dist += 1
    out = []
    if dist:
        for count in range(1, carry + 1):
            out.extend((sq, d, drops) for drops in geo.drops[count][dist])
    if board.kinds[sq] == CAP and dist < len(ray) and board.kinds[ray[dist]] == WALL:
        for count in range(1, carry + 1):
            out.extend((sq, d, drops) for drops in geo.cap_drops[count][dist])
    return out


class _Pass:
    """Context manager: let the other player move again (a null move) to ask "what if"."""

    def __init__(self, board: Board) -> None:
        self.board = board

    def __enter__(self) -> Board:
        self.board.to_move ^= 1
        self.board.hash ^= self.board.geo.z_black
        return self.board

    def __exit__(self, *exc: object) -> None:
        self.board.to_move ^= 1
        self.board.hash ^= self.board.geo.z_black


def threatens(board: Board, player: int) -> bool:
    """Does `player` have a road in one if it were their turn? ("tak")"""
    if board.to_move == player:
        return has_winning_ply(board)
    with _Pass(board):
        return has_winning_ply(board)


def threat_plies(board: Board, player: int) -> list[tuple]:
    """The plies with which `player` would win if it were their turn."""
    if board.to_move == player:
        return winning_plies(board)
    with _Pass(board):
        return winning_plies(board)


class Budget:
    """A node counter that stops a proof search which grows too large (answer: unknown = False)."""

    def __init__(self, nodes: int) -> None:
        self.left = nodes

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0


def is_tinue(board: Board, attacker: int, depth: int = 1, budget: Budget | None = None) -> bool:
    """With the defender to move: every defender ply loses to a road within `depth` attacker plies.

    depth 1: whatever the defender plays, the attacker then has a road in one (classic tinue).
    depth 2: ... the attacker has a ply after which the defender is again in depth-1 tinue.
    A defender ply that wins on the spot refutes. `budget` caps the work; running out means "no".
    """
    if board.to_move == attacker:
        raise ValueError("is_tinue expects the defender to move")
    if budget is None:
        budget = Budget(200_000)
    if board.game_end() is not None:
        end = board.game_end()
        return end is not None and end.winner == attacker
    if not threatens(board, attacker):
        return False
    for ply in board.plies():
        if not budget.spend():
            return False
        board.make(ply)
        try:
            end = board.game_end()
            if end is not None:
                if end.winner != attacker:
                    return False
                continue
            if not _attacker_wins(board, attacker, depth, budget):
                return False
        finally:
            board.unmake()
    return True


def _attacker_wins(board: Board, attacker: int, depth: int, budget: Budget) -> bool:
    if has_winning_ply(board):
        return True
    if depth <= 1:
        return False
    for ply in board.plies():
        if not budget.spend():
            return False
        board.make(ply)
        try:
            end = board.game_end()
            if end is not None:
                if end.winner == attacker:
                    return True
                continue
            if is_tinue(board, attacker, depth - 1, budget):
                return True
        finally:
            board.unmake()
    return False

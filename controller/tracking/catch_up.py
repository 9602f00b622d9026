"""Catching up after a desync: several plies played while the board did not match the game.

A board the tracker could not explain (a piece misread at the moment it was played, most often
a light piece in a glare spot read dark) is reported illegal and then out of sync; the players,
who see nothing wrong on their board, play on. Until now the game then stayed out of sync for
good: the board never shows the expected position again. Here, on each still board while out of
sync, the tracker looks for the two or three plies from the expected position that lead to the
board the reader reads, allowing the one square whose misreading started it all (fresh bench
seed 3755, 7x7, tilt 7: white's flat moved onto c3 read dark at 0.99; black placed c5 and white
a5 before the board was still and unmatched for long enough, and the game's last 33 plies were
lost).

Part of `Tracker` (`tracker.py`), whose state it uses. Always asked about, never committed
quietly; the plies come as one candidate (`Candidate.then`, `Candidate.more`), in the order the
still boards seen on the way support best.
"""

from __future__ import annotations

from collections.abc import Mapping

from controller.tak import FLAT, Ply, Position
from controller.tracking.by_change import (
    SURELY_CHANGED,
    UNSEEN_PIECES,
    neighbours,
    unseen_pieces,
)
from controller.tracking.decisions import Ask, Candidate, Decision
from controller.tracking.evidence import SquareEvidence
from controller.tracking.scoring import (
    WRONG_SQUARE_COST,
    contradiction,
    contradictions,
    square_cost,
)

# Plies a catch-up may find (one is `_shown_by_board`'s): three covers a ply misread and the two
# that followed before the board was out of sync (`desync_after_s`); more would be many more
# chances of a fit by chance
CATCH_UP_PLIES = 3
# Squares that must be explained (changed surely, or read against the game): more, and the board
# is not a few plies on from the game (knocked over, cleared, set up anew)
CATCH_UP_SQUARES = 8
# Plies tried at most per board, about 0.3 s (fresh bench seed 3755's board, three placements'
# squares on 7x7: 489; eight squares about a stack on 7x7: under 20000, 0.06 s)
CATCH_UP_BUDGET = 20000
# What the reader may contradict of the plies found, summed over the board: one square read
# surely wrong (the misread that caused the desync) and rounding
CATCH_UP_MISMATCH = 1.75
# Intermediate still boards kept for ordering the plies found
KEPT_BOARDS = 8


class CatchUp:
    """The tracker's catch-up after a desync (a mixin of `Tracker`)."""

    def _keep_unmatched(self, evidence: Mapping[str, SquareEvidence]) -> None:
        """Remember a still board judged while the game does not match (for `_caught_up`'s
        order): boards since `unmatched_since`, the latest last."""
        since, boards = self._unmatched_boards
        if since != self.unmatched_since:
            since, boards = self.unmatched_since, []
        self._unmatched_boards = (since, [*boards, dict(evidence)][-KEPT_BOARDS:])

    def _caught_up(self, evidence, p, appearance) -> list[Decision]:
        """Out of sync, the board fits no ply: do two or three plies from the game's position
        lead to it? Every square that the reader reads against the game must be one the plies
        touch; every other square that surely changed must be one they touch, or next to one
        where a piece stands tall, before the plies or after them (a wall, a capstone or a
        stack changes what its neighbours show: what it hides behind it or no longer hides);
        each ply touches one of these squares, and the reader contradicts at most one square of
        the result, one the plies touch (the misread that lost the game). A square the reader
        read against the game already when it last matched, and still does, is a misread that
        stands, not news: it neither has to be touched nor counts against a result that leaves
        it alone (fresh bench seed 5372, 5x5, tilt 40: a light flat on d5 was never seen; a
        wall moved off d3 hid c4 and showed d4, and the next ply came before the tracker had
        asked about the first; the catch-up wanted d5, c4 and d4 touched, found nothing, and
        the game's last 14 plies were lost). Asked about, the likeliest first, each result once
        (in the order the boards seen since the desync support best)."""
        position, cfg = self.position, self.config
        standing = self._wrong_at_last_match()
        costs = contradictions(position, evidence)
        against = {sq for sq, c in costs.items() if c > WRONG_SQUARE_COST and sq not in standing}
        beside = {sq for sq, q in p.items() if q >= SURELY_CHANGED} - against
        if not against or len(against | beside) > CATCH_UP_SQUARES:
            return []
        found = _sequences(position, evidence, against, beside, standing)
        if not found:  # (None: the budget ran out)
            return []
        since, boards = self._unmatched_boards
        earlier = boards if since == self.unmatched_since else []  # (this board not yet kept)
        by_result: dict[str, tuple[float, float, list[Ply]]] = {}
        for cost, result, plies in found:
            order = _order_cost(position, plies, earlier)
            if result not in by_result or order < by_result[result][1]:
                by_result[result] = (cost, order, plies)
        ranked = sorted(by_result.values(), key=lambda r: (r[0], r[1]))
        candidates = tuple(
            Candidate(plies[0], cost, then=plies[1], more=tuple(plies[2:]))
            for cost, _, plies in ranked[: cfg.max_candidates]
        )
        best, *others = candidates
        also = f" (or {'; or '.join(c.describe() for c in others)})" if others else ""
        ask = Ask(candidates, f"caught up after the board was out of sync: {best.describe()}{also}")
        self._catch_up_ask = ask  # (its answer names the square misread: `accept`)
        return self._ask_on_board(ask, evidence, appearance)

    def _still_misread(self, evidence) -> set[str]:
        """The squares a catch-up's answer left the reader contradicting (`accept`) that it
        still contradicts as the game stands; the others are forgotten."""
        position = self.position
        self._misread_squares = {
            sq
            for sq in self._misread_squares
            if contradiction(position.stack(sq), evidence.get(sq)) > WRONG_SQUARE_COST
        }
        return self._misread_squares


def _sequences(position: Position, evidence, against: set[str], beside: set[str],
               standing: set[str]) -> list[tuple[float, str, list[Ply]]] | None:  # fmt: skip
    """Sequences of 2..CATCH_UP_PLIES plies from `position` (left as it was), each touching
    `against` or `beside`, together touching all of `against` and all of `beside` or the
    neighbours of a tall stack they touch, whose result the reader contradicts as `_caught_up`
    allows (`standing` misreads left alone not counted): (the result's cost, the result as TPS,
    plies). None when the budget ran out."""
    size = position.size
    before = position.stacks()
    targets = against | beside
    found: list[tuple[float, str, list[Ply]]] = []
    judged = 0

    def explained(touched: set[str]) -> bool:
        # a square beside one where a piece stands tall in the view, before the plies or after
        # them, may have changed by what that piece hides or shows
        tall = {sq for sq in touched
                if _tall(before.get(sq, ())) or _tall(position.stack(sq))}  # fmt: skip
        near = touched.union(*(neighbours(sq, size) for sq in tall))
        return against <= touched and beside <= near

    def judge(plies: list[Ply], touched: set[str]) -> None:
        costs = contradictions(position, evidence)
        for sq in standing - touched:
            costs.pop(sq, None)
        wrong = [sq for sq, c in costs.items() if c > WRONG_SQUARE_COST]
        if len(wrong) > 1 or not set(wrong) <= touched:
            return
        # the misread allowed is the reader not seeing what the plies did there: it reads the
        # square as the game had it before them (a piece landed on a stack read in the old top's
        # colour, a piece placed read absent), not a third look (a knocked-over stack's pieces
        # fit some plies with one of them read in the other colour)
        if wrong and contradiction(before.get(wrong[0], ()), evidence.get(wrong[0])) > (
            WRONG_SQUARE_COST
        ):
            return
        if sum(costs.values()) > CATCH_UP_MISMATCH:
            return
        if unseen_pieces(position.stacks(), touched, evidence) >= UNSEEN_PIECES:
            return
        cost = sum(square_cost(position.stack(sq), ev) for sq, ev in evidence.items())
        found.append((cost, position.tps(), list(plies)))

    def search(plies: list[Ply], touched: set[str]) -> bool:
        nonlocal judged
        if len(plies) >= 2 and explained(touched):
            judge(plies, touched)
        if len(plies) == CATCH_UP_PLIES or position.outcome() is not None:
            return True
        for ply in list(position.legal_plies):
            squares = set(ply.squares(size))
            if not squares & targets:
                continue
            judged += 1
            if judged > CATCH_UP_BUDGET:
                return False
            played = position.push(ply)
            try:
                if not search([*plies, played], touched | squares):
                    return False
            finally:
                position.pop()
        return True

    return found if search([], set()) else None


def _tall(stack) -> bool:
    """Does `stack` stand above a flat's height: two pieces or more, or a wall or capstone?"""
    return len(stack) >= 2 or (bool(stack) and stack[-1][1] != FLAT)


def _order_cost(position: Position, plies: list[Ply], boards: list[dict]) -> float:
    """How well the still boards seen on the way (oldest first) fit `plies` played in this
    order: each board as some number of them played, never fewer than for the board before,
    on the squares they touch (the rest is the same whatever the order). Plies in another order
    that lead to the same board differ only here."""
    if not boards:
        return 0.0
    squares = {sq for ply in plies for sq in ply.squares(position.size)}
    stages = []  # the touched squares' stacks after 0, 1, ... of the plies
    for ply in [None, *plies]:
        if ply is not None:
            position.push(ply)
        stages.append({sq: position.stack(sq) for sq in squares})
    for _ in plies:
        position.pop()
    best = [0.0] * len(stages)  # the best total with the last board at each stage
    for board in boards:
        fit = [sum(square_cost(stage[sq], board.get(sq)) for sq in squares) for stage in stages]
        running = float("inf")
        for j, f in enumerate(fit):
            running = min(running, best[j])
            best[j] = running + f
    return min(best)

"""Scoring: how badly a hypothesised board disagrees with the evidence. Lower is better.

A hypothesis is a board (stacks per square) that the rules engine produced: the current position,
the position after one legal ply, or a recent earlier position (a takeback). Each square adds a
cost:

    expected empty      W_OCCUPIED * p_occupied
    expected a stack    W_OCCUPIED * (1 - p_occupied)
                        + p_occupied * ( W_COLOR  * P(top colour is not the expected one)
                                       + W_KIND   * P(top kind is not the expected one)
                                       + W_HEIGHT * height_error )

so every term is weighted by what vision was sure of. `height_error` is the read height's
distance from the expected one (capped at HEIGHT_CAP pieces) times the reader's confidence, or,
where the reader gave its whole distribution over heights, the distance expected under it (less
that of the best-fitting height). Heights carry less weight than tops (they are
harder to see), but they are what separates spreads whose tops look the same (3c3+12 vs 3c3+21): a
tilted camera sees stack sides and reports heights with confidence, a camera straight above
does not, and then such spreads come out close and are asked about instead of guessed.

Scoring one ply only rescoring the squares it touches (`ply.squares(size)`), on the real `Position`
via push/pop: there is no second copy of the rules here.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from controller.tak import CAP, FLAT, WALL, WHITE, Ply, Position
from controller.tracking.evidence import SquareEvidence

W_OCCUPIED = 2.0
W_COLOR = 1.0
W_KIND = 1.0
W_HEIGHT = 0.9
HEIGHT_CAP = 1.5  # pieces: a height error never costs more than a missing piece would
HEIGHT_CONTRADICTION_CAP = 0.4

# The most a height the reader finds unlikely can surprise it (`height_surprise`): a probability
# of e^-5, 0.7 %; below that the reader is surely wrong, not informative
SURPRISE_CAP = 5.0

_KIND_INDEX = {FLAT: 0, WALL: 1, CAP: 2}

# A square whose cost is above this disagrees with the hypothesis (reported as a wrong square).
WRONG_SQUARE_COST = 0.5

Stack = tuple[tuple[int, int], ...]


def square_cost(stack: Stack, evidence: SquareEvidence | None) -> float:
    if evidence is None or evidence.unread:
        # (a call taken back must not count either way: a coin flip on every question would
        # still make any piece dearer than none, by its colour and kind, and decide a count for
        # the one that empties the square: fresh bench seed 5640, a light flat left on light
        # wood, its look back near the bare wood's)
        return 0.0
    if not stack:
        return W_OCCUPIED * evidence.p_occupied
    player, stone = stack[-1]
    p_color_ok = evidence.p_light if player == WHITE else 1.0 - evidence.p_light
    p_kind_ok = evidence.p_kind[_KIND_INDEX[stone]]
    return W_OCCUPIED * (1.0 - evidence.p_occupied) + evidence.p_occupied * (
        W_COLOR * (1.0 - p_color_ok)
        + W_KIND * (1.0 - p_kind_ok)
        + W_HEIGHT * height_error(evidence, len(stack))
    )


def height_error(evidence: SquareEvidence, height: int) -> float:
    """How far the read height is from `height` (pieces, capped), weighted by how sure it is.

    With the reader's whole distribution: the expected error under it, less that of the height it
    fits best (0 there, as for the call alone). Two spreads that each put one square one piece
    off the calls (3c1>12 against 3c1>21 with both squares read 2) then differ by what the reader
    saw of the other heights, where the call alone made them equal."""
    if evidence.height_p is None:
        return evidence.height_weight * min(abs(evidence.height - height), HEIGHT_CAP)
    errors = _expected_errors(evidence.height_p)
    return errors[min(height, len(errors)) - 1]


@functools.lru_cache(maxsize=4096)
def _expected_errors(height_p: tuple[float, ...]) -> tuple[float, ...]:
    """Per height 1, 2, ... two past the reader's tallest class K (every taller one costs the
    same). The class K is "K or more" (`SquareEvidence.readable`): it is no error for any
    height from K up."""
    tallest = len(height_p)

    def error(read: int, n: int) -> float:
        return 0.0 if read == tallest and n >= tallest else min(abs(read - n), HEIGHT_CAP)

    expected = [sum(p * error(h, n) for h, p in enumerate(height_p, 1))
                for n in range(1, tallest + 3)]  # fmt: skip
    best = min(expected)
    return tuple(e - best for e in expected)


def height_surprise(evidence: SquareEvidence | None, height: int) -> float:
    """How surprised the reader is to find `height` pieces on a square: -log of the probability
    it gives that height, at most SURPRISE_CAP; 0 where it gave no distribution over heights,
    reads the square empty, or `height` is 0 (whether a square is empty is the occupied term's).

    Unlike `height_error`, which charges a height by its distance from the reader's and so hardly
    tells two heights the reader is unsure between, this says how much likelier one of them is,
    as the reader's own probabilities do: a height read 3 at 0.73 and 4 at 0.18 makes 4 surprise
    it 1.4 more than 3."""
    if (evidence is None or evidence.unread or evidence.height_p is None or height <= 0
            or evidence.p_occupied < 0.5):  # fmt: skip
        return 0.0
    p = evidence.height_p[evidence.readable(height) - 1]
    return min(-math.log(max(p, 1e-12)), SURPRISE_CAP)


def square_costs(position: Position, evidence: Mapping[str, SquareEvidence]) -> dict[str, float]:
    """Cost of every square of the board for the position as it stands."""
    return {name: square_cost(position.stack(name), ev) for name, ev in evidence.items()}


@dataclass(frozen=True)
class Scored:
    ply: Ply
    cost: float


def score_plies(position: Position, evidence: Mapping[str, SquareEvidence]) -> list[Scored]:
    """Every legal ply of `position`, scored against the evidence, best first.

    `position` is left exactly as it was (each ply is pushed and popped).
    """
    base = square_costs(position, evidence)
    total = sum(base.values())
    size = position.size
    scored: list[Scored] = []
    for ply in list(position.legal_plies):
        touched = ply.squares(size)
        played = position.push(ply)
        try:
            cost = total
            for name in touched:
                cost += square_cost(position.stack(name), evidence.get(name)) - base.get(name, 0.0)
        finally:
            position.pop()
        scored.append(Scored(played, cost))
    scored.sort(key=lambda s: s.cost)
    return scored


def contradiction(stack: Stack, evidence: SquareEvidence | None) -> float:
    """How confidently the reading contradicts `stack` on one square (0 = it agrees or is unsure).

    Unlike `square_cost` (a soft score used to rank hypotheses), only the reading's best guess
    counts
    here, weighted by how far its probability is from a coin flip: a 0.75-sure "empty" on an empty
    square contradicts nothing, a 0.95-sure "occupied" on it contradicts strongly.
    """
    if evidence is None:
        return 0.0
    sure = lambda p: max(0.0, 2.0 * p - 1.0)  # noqa: E731  0.5 -> 0, 1.0 -> 1
    if not stack:
        return W_OCCUPIED * sure(evidence.p_occupied)
    player, stone = stack[-1]
    if evidence.p_occupied < 0.5:
        # read empty: a piece there contradicts that, and the kind the reader leans to there
        # as far as it half saw a piece (continuous with a square read occupied at 0.5)
        return (W_OCCUPIED * sure(1.0 - evidence.p_occupied)
                + 2.0 * evidence.p_occupied * kind_against(evidence, stone))  # fmt: skip
    p_color_ok = evidence.p_light if player == WHITE else 1.0 - evidence.p_light
    out = W_COLOR * sure(1.0 - p_color_ok) + kind_against(evidence, stone)
    height_err = min(abs(evidence.height - evidence.readable(len(stack))), HEIGHT_CAP)
    # Heights are the hardest thing to read: one piece off is not a contradiction (it still ranks
    # hypotheses through `square_cost`), and a height alone never makes a square "wrong".
    return out + min(HEIGHT_CONTRADICTION_CAP,
                     W_HEIGHT * evidence.height_weight * max(0.0, height_err - 1.0))  # fmt: skip


def kind_against(evidence: SquareEvidence, stone: int) -> float:
    """How much likelier the reader's likeliest kind is than `stone`'s (0 if it is `stone`'s)."""
    return W_KIND * (max(evidence.p_kind) - evidence.p_kind[_KIND_INDEX[stone]])


def sure_of_kind(evidence: SquareEvidence | None, stone: int) -> float:
    """How sure the reader is that the top is a `stone` (0 where it calls another kind)."""
    return evidence.kind_sure[_KIND_INDEX[stone]] if evidence is not None else 0.0


def contradictions(position: Position, evidence: Mapping[str, SquareEvidence]) -> dict[str, float]:
    return {name: contradiction(position.stack(name), ev) for name, ev in evidence.items()}


def mismatch(
    position: Position,
    evidence: Mapping[str, SquareEvidence],
    squares: Iterable[str] | None = None,
) -> float:
    """How confidently the board contradicts `position`, summed over `squares` (default: all)."""
    if squares is None:
        return sum(contradictions(position, evidence).values())
    return sum(contradiction(position.stack(sq), evidence.get(sq)) for sq in squares)


def wrong_squares(position: Position, evidence: Mapping[str, SquareEvidence]) -> list[str]:
    """Squares where the board, as read, contradicts `position` (sorted a1, a2, ..., b1 ...)."""
    costs = contradictions(position, evidence)
    return sorted(name for name, cost in costs.items() if cost > WRONG_SQUARE_COST)

"""A ply the tracker committed surely, looked at again for what the game as recorded may have
wrong. Used by the recorder (`takboard record`, which marks the ply `?`) and by the running board
(`controller.service.camera`, which marks it in the journal and on the page): a sure ply wrong
without a mark is the one error a user cannot see.

The tracker commits a ply that leads every rival on everything it weighs. Two of its rivals can
still be the ply played, and only a second look tells: one that fits the board's CHANGES better
and lost only on what the reader read, which the reader may have wrong (`rival_of_sure`); and,
boards later, a spread that took every piece off its square where the board now shows a piece
(`emptied_yet_seen`): the reader missed a piece for a while and sees it once what stood in front
of it goes.

    doubt = rival_of_sure(tracker, commit)            # right after `tracker.step` committed it
    doubts = emptied_yet_seen(tracker, commit, plies, unsure)
"""

from __future__ import annotations

import contextlib
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass

from controller.tak import WHITE, Ply, Position
from controller.tracking.by_change import other_drops
from controller.tracking.change import CHANGED_ABOVE
from controller.tracking.decisions import Commit
from controller.tracking.tracker import Evaluation, Hypothesis, Tracker

# A rival of a sure ply that fits the changes better is named (`rival_of_sure`) when the reader
# holds no more than this against it: about one square read surely against it (fresh bench seed
# 5257: a flat read empty at 0.98, 1.91).
RIVAL_CONTRADICTED_AT_MOST = 2.0
# A spread the tracker was sure of, that took every piece off its square, is in doubt after the
# fact when a later board (one a ply was committed on, no ply having touched the square since)
# shows a piece there at least this surely, of the colour the same spread carrying fewer pieces
# would have left on top (`emptied_yet_seen`; fresh bench seed 5432: the flat `c2<` left on c2 was
# read empty at 0.97 until the stack behind it went, 0.67 then).
PIECE_LEFT_SEEN = 0.6


@dataclass(frozen=True)
class Doubt:
    """Ply `number` of the game may be wrong: one of `others` may have been played instead."""

    number: int
    others: tuple[Ply, ...]
    reason: str


def judged_now(tracker: Tracker, commit: Commit) -> Evaluation | None:
    """The board `commit` was judged on, when it is the tracker's last (None for a ply played
    again after a revision: no board of its own)."""
    last = tracker.last
    return last if last is not None and commit in last.decisions else None


def rival_of_sure(tracker: Tracker, commit: Commit) -> Doubt | None:
    """A ply the tracker was sure of, in doubt when a rival explains what changed better and lost
    only on a square or so the reader read against it; None when there is none, or when the
    tracker's last board is not this commit's."""
    last = judged_now(tracker, commit)
    if last is None:
        return None
    return rival_explains_change(tracker, commit, last) or cheaper_count(tracker, commit, last)


def rival_explains_change(tracker: Tracker, commit: Commit, last: Evaluation) -> Doubt | None:
    """In doubt when a rival fits the board's changes better (`structure`), the reader holds no
    more than RIVAL_CONTRADICTED_AT_MOST against it, and it moves or places on a square that
    surely changed (`CHANGED_ABOVE`) which the ply leaves alone. The ply won on what the reader
    saw, and the change it leaves there was excused as a neighbour's spill (a taller stack's
    image runs onto the next square by up to 3.5). Fresh bench seed 5257 (6x6, tilt 39):
    `2c2+11` dropped its last flat on c4, which the reader read empty at 0.98 (1.91 against it)
    though c4 changed by 2.11; `2c2+` was written without a mark. On the 632 games stored in
    session 43 this marks 17 plies: that one and 16 right ones."""
    ranked, mine = _considered(tracker, commit, last)
    if mine is None or mine.structure is None:
        return None
    size = tracker.position.size
    touched = set(commit.ply.squares(size))
    for h in ranked:
        rival = h.ply
        if (rival is None or rival == commit.ply or h.back or h.structure is None
                or h.structure >= mine.structure
                or h.contradiction > RIVAL_CONTRADICTED_AT_MOST):  # fmt: skip
            continue
        changed = [sq for sq in rival.squares(size) if sq not in touched
                   and tracker.changes.get(sq, 0.0) >= CHANGED_ABOVE]  # fmt: skip
        if changed:
            return Doubt(commit.number, (rival,),
                         f"{rival.ptn()} fits the changes better ({changed[0]} changed, which "
                         "this ply leaves alone)")  # fmt: skip
    return None


def cheaper_count(tracker: Tracker, commit: Commit, last: Evaluation) -> Doubt | None:
    """A spread in doubt when the same spread with other counts or drops scored cheaper, fitted
    the board's changes (`structure_ok`), and was passed over only for what the reader holds
    against it, no more than RIVAL_CONTRADICTED_AT_MOST: the reader's misread of one square then
    chose the count. Fresh bench seed 5430 (6x6, tilt 28): `3b4>` moved b4's whole stack, a
    light wall on top, onto c4; the reader read a light wall still on b4 at 0.76 (the wall's
    image beside it), which ruled `3b4>` out though it scored 0.54 cheaper, and `2b4>` was
    written without a mark."""
    if commit.ply.is_placement:
        return None
    ranked, mine = _considered(tracker, commit, last)
    if mine is None:
        return None
    ok = tracker.config.structure_ok
    for h in ranked:
        rival = h.ply
        if (rival is not None and not h.back and h.cost < mine.cost
                and other_drops(rival, commit.ply)
                and h.structure is not None and h.structure <= ok
                and h.contradiction <= RIVAL_CONTRADICTED_AT_MOST):  # fmt: skip
            return Doubt(commit.number, (rival,),
                         f"{rival.ptn()} fits the changes better; the reader's reading ruled "
                         "it out")  # fmt: skip
    return None


def _considered(tracker: Tracker, commit: Commit, last: Evaluation
                ) -> tuple[list[Hypothesis], Hypothesis | None]:  # fmt: skip
    """The hypotheses the commit's board was weighed with (the tracker's `max_considered` best),
    and the commit's own among them (None: not there)."""
    ranked = last.ranked[: tracker.config.max_considered]
    return ranked, next((h for h in ranked if h.ply == commit.ply and not h.back), None)


def emptied_yet_seen(tracker: Tracker, commit: Commit, plies: Sequence[Ply],
                     unsure: Container[int] = ()) -> list[Doubt]:  # fmt: skip
    """The spreads recorded surely (numbers not in `unsure`) that took every piece off a square
    where the board `commit` was judged on shows a piece (`PIECE_LEFT_SEEN`), nothing played
    there since, of the colour the same spread carrying fewer would have left on top: each in
    doubt, naming those others. `plies`: the game's plies as recorded, ply 1 first (the tracker
    has them too, and maybe a ply or two past `commit`). At most one doubt per ply.

    The reader may miss a piece for a while and see it later: on fresh bench seed 5432 (5x5,
    tilt 34) `c2<` took a light wall off a dark flat onto b2, the flat, in front of the dark
    stack on c3, was read empty at 0.97, and `2c2<` was committed (1.55 ahead) and written
    without a mark; three plies later the stack on c3 was spread away and the flat read at
    0.67. A square read wrong on the spread's own board is the tracker's to weigh; this is for
    what only a later board shows."""
    last = judged_now(tracker, commit)
    if last is None:
        return []
    with as_after(tracker.position, commit.number):
        position = tracker.position
        bare = [sq for sq, seen in last.evidence.items()
                if not seen.unread and seen.p_occupied >= PIECE_LEFT_SEEN
                and position.height(sq) == 0]  # fmt: skip
    doubts: list[Doubt] = []
    for square in bare:
        number = last_touched(plies, square, before=commit.number, size=position.size)
        if number is None or number in unsure or any(d.number == number for d in doubts):
            continue
        ply = plies[number - 1]
        if ply.is_placement or ply.square != square:
            continue
        light = last.evidence[square].p_light >= 0.5
        others = tuple(q for q, (player, _) in carrying_fewer(tracker.position, ply, number)
                       if (player == WHITE) == light)  # fmt: skip
        if not others:
            continue
        colour = "light" if light else "dark"
        doubts.append(Doubt(number, others,
                            f"ply {commit.number}'s board showed a {colour} piece on {square}, "
                            f"which {others[0].ptn()} would have left"))  # fmt: skip
    return doubts


def last_touched(plies: Sequence[Ply], square: str, *, before: int, size: int) -> int | None:
    """The number of the last of `plies` (ply 1 first) before ply `before` that took pieces from
    or put pieces on `square`; None when none did."""
    for number in range(min(before - 1, len(plies)), 0, -1):
        if square in plies[number - 1].squares(size):
            return number
    return None


def carrying_fewer(position: Position, ply: Ply, number: int
                   ) -> list[tuple[Ply, tuple[int, int]]]:  # fmt: skip
    """`ply`, ply `number` of the game `position` holds: a spread that emptied its square; -> the
    legal spreads from that square in its direction that carry fewer pieces, each with the piece
    it would have left on top."""
    with as_after(position, number - 1):
        stack = position.stack(ply.square)
        return [(q, stack[len(stack) - q.count - 1]) for q in position.legal_plies
                if not q.is_placement and q.square == ply.square
                and q.direction == ply.direction and q.count < len(stack)]  # fmt: skip


@contextlib.contextmanager
def as_after(position: Position, number: int) -> Iterator[None]:
    """`position` as the game stood just after ply `number` (the plies past it taken off for the
    block, and put back after)."""
    later: list[Ply] = []
    while position.ply_count > number:
        later.append(position.pop())
    try:
        yield
    finally:
        for ply in reversed(later):
            position.push(ply)

"""Revising a recent close call: the board fits no ply, or fits one only as a close call, and
would fit clearly had a question asked about a few plies back been answered the other way (a flat
taken for a wall is found out when a stack is later spread over it). Part of `Tracker`
(`tracker.py`), whose state it uses: the plies back to the call are taken back, the call is asked
again with the alternative that fits first, and once it is answered the plies since are played
again (`_played_then`) and the board is judged again.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from controller.tak import Ply, Position
from controller.tracking.by_change import other_drops
from controller.tracking.decisions import Ask, Candidate, Decision, Takeback
from controller.tracking.scoring import mismatch

if TYPE_CHECKING:  # (tracker.py imports this module)
    from controller.tracking.tracker import Hypothesis

# How many plies back a close call may be revised by a later board. Far: a flat taken for a wall
# shows only when a stack is moved onto it, which may be much later (bench seed 22: `Sd5?` at ply
# 6, the spread onto d5 at ply 30; seed 37: a count asked at ply 49 shows at ply 54). Trying is
# cheap (only on a board no ply fits; replaying checks legality, not every legal ply).
REVISE_DEPTH = 60
# A close call revised because a later board fits the other way better (`_hindsight`): better by
# this much, about one square read surely wrong (the match cost). Bench: seed 22's right revision
# came out 0.99 ahead, seed 31's 2.97; a wrong one, found by chance, 0.49.
HINDSIGHT_MARGIN = 0.75
# A revision is judged this much dearer per ply between the close call and the board that
# revises it: the further back, the more plies played again on top, and the more chances that
# one of them makes some other reading fit by chance. (Fresh bench seeds 2723, with session 25's
# reader, and 2856: a right answer 16 and 17 plies back, `Sa4` and `a3`, revised wrong on a
# board that fitted nothing else; on the 350 stored games of 2701-2900 these are the only two
# revisions it changes.)
PER_PLY_BACK = 0.05


def _same_spread(position: Position, ply: Ply) -> list[Ply]:
    """The legal spreads from `ply`'s square, in its direction, ending on its last square, other
    than `ply` itself: what it may have been with another count or other drops."""
    if ply.is_placement:
        return []
    size = position.size
    end = ply.squares(size)[-1]
    return [q for q in position.legal_plies
            if other_drops(q, ply) and q != ply and q.squares(size)[-1] == end]


def _redirected(position: Position, ply: Ply, squares: set[str] | None = None) -> set[Ply]:
    """The legal spreads from `ply`'s square with its count and drops in another direction
    (through one of `squares`, if given): what it may have been where those squares' stacks
    were other than the game had them when it was judged."""
    if ply.is_placement:
        return set()
    size = position.size
    return {q for q in position.legal_plies
            if not q.is_placement and q.square == ply.square and q.direction != ply.direction
            and q.count == ply.count and q.drops == ply.drops
            and (squares is None or squares & set(q.squares(size)[1:]))}  # fmt: skip


class Revisions:
    """The tracker's revisions of close calls (a mixin of `Tracker`)."""

    def _revise(self, evidence, p, changed) -> list[Decision]:
        """The board fits no ply, and a recent ply was a close call: would another candidate of
        that call (with the plies since played on top of it) explain the board? A flat taken for a
        wall shows when a stack is later spread over it. Then the plies back to that one are taken
        back, it is asked about again with the candidate that fits first, and once that is answered
        the plies since are played again and the board is judged again.
        """

        def fits(dearer: float) -> float | None:  # some ply explains the board, judged by change
            return self._revision_score(evidence, p, changed, dearer)

        return self._revise_asked(lambda original, others: others, fits,
                                  "a later board fits only this one")  # fmt: skip

    def _revise_moved_elsewhere(self, evidence, p, changed) -> list[Decision]:
        """As `_revise`, with what a recently asked ply may have been where the reader did not see
        the piece it moved (`_moved_elsewhere`): for a placement, a spread onto its square; for a
        spread, the same spread in another direction. Only when no candidate asked about fits
        (fresh bench seed 604: `d4?`, guessed for `Sd4`, made a road that the next ply showed
        false, and `c4>` fitted that ply as well as `Sd4`), and no two plies at once
        (quick-reply bench seed 323: `c1` revised to `d1<` on a quick reply's board, which it
        fitted by chance)."""

        def fits(dearer: float) -> float | None:
            return self._revision_score(evidence, p, changed, dearer)

        return self._revise_asked(self._moved_elsewhere, fits, "a later board fits only this one")

    def _hindsight(self, evidence, p, changed, best: Hypothesis) -> list[Decision]:
        """The board fits a ply only as a close call: would it fit one clearly better had a recent
        close call gone another way? A flat taken for a wall, or a spread's counts taken wrong,
        show when a later ply moves onto that square: the later ply then looks like some other
        ply, one the reader contradicts (bench seed 22: a wall moved onto a flat taken for a wall
        at ply 6 was taken for a wall moved onto a square the reader surely saw empty) or one
        that fits poorly (seed 31: a spread of one where two were carried, then two plies later
        a stack one too short).

        A ply is weighed with what the reader contradicts of it, and a revision with how much
        dearer its alternative was judged when asked about (one not asked about: as much dearer
        as the close call's own board scored it, and at least the commit margin; fresh bench
        seed 4319: `3d3+21` asked about, `3d3+12` scored 1.52 dearer and not asked; the next
        ply, a close call, fitted better with `3d3+12`, which at 0.6 dearer came out ahead, and
        a right guess was revised wrong); the revision must come out ahead by
        `HINDSIGHT_MARGIN`. Among the many
        plies from a square and the many close calls of a game, one that happens to fit about
        as well is always found (seed 31: a wall 40 plies back taken for a flat, 0.5 ahead).
        Tried in place of a close call: its other candidates, other stones on its square, and the
        same spread with other counts or drops.

        The game as recorded is weighed the same way as a revision (its best-fitting ply by cost
        and contradiction, not the ply ranked first by cost alone): weighed otherwise, each of
        two readings of a close call can look better than the other, and a revision is revised
        back and forth without end (fresh bench seed 207: ply 24 `Sd2` / `Cd2`, until the
        recorder's stack overflowed)."""
        cfg = self.config
        recorded = self._revision_score(evidence, p, changed, 0.0)
        against = min(best.cost + best.contradiction,
                      recorded if recorded is not None else math.inf) - HINDSIGHT_MARGIN

        def fits(dearer: float) -> float | None:
            score = self._revision_score(evidence, p, changed, dearer)
            return score if score is not None and score <= against else None

        def alike(original: Ply, others: list[Ply]) -> list[Ply]:
            # and a close call's usual confusions: another stone on the square, or the same
            # spread with other counts or drops (not every spread of a tall stack: dozens, each
            # judged on the board, and each one more chance of a fit by chance)
            return [q for q in self._from_square(original, others)
                    if q in others or q.direction == original.direction]  # fmt: skip

        return self._revise_asked(alike, fits, "a later board fits it better",
                                  unasked_dearer=cfg.commit_margin, as_judged=True)  # fmt: skip

    def _revise_by_board(self, evidence, appearance) -> list[Decision]:
        """The board fits no ply, and a recent ply was asked about: does the whole board, as the
        reader reads every square, show the position another reading of that ply would have
        given (with the plies since played on top)? Any legal ply from the same square counts,
        not only the candidates asked about: a board seen mid-spread (the hand paused with a
        lifted stack where the hand gate did not see it, bench seed 8) asks about spreads the
        finished spread is not among. Then, as in `_revise`, it is asked about again; the board
        now is the one the next is compared to.

        Not when the game as recorded shows the board as well: then the board says nothing about
        which reading was right, and what did not fit is a change the reader missed (fresh bench
        seed 632: a light flat placed on b4, read empty at 0.87, turned a wall on e2 that the
        reader read at 1.00 into a capstone, and the plies since were played again without b4).
        """
        # (a square the reader read against the game at the last match already, as it does
        # now, says nothing new: fresh seed 4052, a light flat placed on d3 that the reader never
        # saw, asked about and answered; eight plies later a wall it did not see either left no
        # ply fitting, and the board, d3 read empty, "showed" the unseen spread that the
        # question had offered instead: the whole game since was played again on it)
        standing = self._wrong_at_last_match()
        read_anew = [sq for sq in evidence if sq not in standing]
        if mismatch(self.position, evidence, read_anew) <= self.config.match_cost:
            return []

        def shows(dearer: float) -> float | None:  # the board, square by square, shows it
            cost = mismatch(self.position, evidence)
            return cost + dearer if cost <= self.config.match_cost else None

        revised = self._revise_asked(self._from_square, shows, "the board shows this one")
        if revised:
            self._accepted, self._looks = dict(evidence), appearance
            self.unmatched_since = None
        return revised

    def _revision_score(self, evidence, p, changed, dearer: float) -> float | None:
        """A revision's score, in the revised position: the best ply that fits the board by
        change, the reader contradicting it by no more than the match cost (fresh bench seed
        3177: on a board mid-spread, pieces lifted off d4 and held out of view, `Sd3?` was
        revised to `d3`, with which `2d4-` fitted by change though the reader saw one wall on
        d3 and no stack of three), weighed with what the reader contradicts of it, plus how much
        `dearer` the revision's alternative was judged when asked about (None: no ply fits)."""
        judge = self._judge(self.position, evidence, p, changed)
        fits = self._uncontradicted(judge.ranked(0)[: self.config.max_considered])
        return fits[0].cost + dearer if fits else None

    def _from_square(self, original: Ply, others: list[Ply]) -> list[Ply]:
        """A revision's alternatives: the other candidates asked about, then every legal ply from
        the same square, and the spreads onto a placement's square (`_onto_placed`). The
        position is the one before `original`."""
        return [*others, *(
            q for q in self.position.legal_plies
            if q.square == original.square and q != original and q not in others
        ), *self._onto_placed(original, others)]  # fmt: skip

    def _onto_placed(self, original: Ply, others: list[Ply]) -> list[Ply]:
        """For a placement, the spreads that end on its square: a flat moved onto an empty
        square looks like one placed there when the square it left hardly changed (fresh bench
        seed 729: a light flat the reader never saw on c6, moved to d6, was recorded `d6?`;
        the next ply put a dark flat on c6, where the game had a light one, and the game was
        out of sync for its last 27 plies). The position is the one before `original`."""
        if not original.is_placement:
            return []
        size = self.position.size
        return [q for q in self.position.legal_plies
                if not q.is_placement and q.squares(size)[-1] == original.square
                and q not in others]  # fmt: skip

    def _moved_elsewhere(self, original: Ply, others: list[Ply]) -> list[Ply]:
        """What `original` may have been where the reader did not see the piece it moved: for a
        placement, a spread onto its square (`_onto_placed`); for a spread, the same spread in
        another direction (fresh bench seed 6354, 5x5, tilt 6: `c2<` moved a light wall onto
        b2, a sliver from above in a glare, read empty at 0.97; `c2-`, onto c1's flat of its
        colour, was asked alone and guessed, and 24 plies later `b2<` found no wall on b2: the
        game was out of sync for its last 21 plies). The position is the one before
        `original`."""
        if original.is_placement:
            return self._onto_placed(original, others)
        return sorted(_redirected(self.position, original) - set(others), key=str)

    def _revise_asked(
        self,
        alternatives: Callable[[Ply, list[Ply]], list[Ply]],
        fits: Callable[[float], float | None],
        reason: str,
        *,
        unasked_dearer: float = 0.0,
        as_judged: bool = False,
    ) -> list[Decision]:
        """Every revision: for each ply asked about in the last REVISE_DEPTH, the position is
        taken back to just before it and `alternatives(original, other candidates)` are tried in
        its place, each with the plies since played on top; `fits(dearer)` says how well the
        board then fits (lower is better; None: it does not), `dearer` being how much dearer than
        the original that alternative was judged when asked about (`unasked_dearer` if it was not
        a candidate; `as_judged`: or as much dearer as it was scored on the close call's board,
        if more). The best fit of all wins (newest first among equals: bench seed 37, where
        the newest close call's other answer let a ply fit by chance, and the one that was wrong,
        7 plies older, let the ply played fit exactly). Then `Takeback` to it and `Ask` again,
        that alternative first; once answered, `accept` plays the plies since again (one of them
        changed if the alternative left it no longer legal: `_played_then`). The position is left
        as it is when nothing fits."""
        position = self.position
        self._asked = [(n, o) for n, o in self._asked
                       if position.ply_count - REVISE_DEPTH < n <= position.ply_count]  # fmt: skip
        # (kept as long as the questions they go with: a long game's close calls would otherwise
        # pile up; those of plies taken back stay, for when they are played again)
        oldest = position.ply_count - REVISE_DEPTH
        self._judged_then = {n: j for n, j in self._judged_then.items() if n > oldest}
        # (score, number, alternative, original, the plies since as they would be played again)
        best: tuple[float, int, Ply, Ply, list[Ply]] | None = None
        asked = {n for n, _ in self._asked}
        # the other directions each asked spread could take when it was judged (the position
        # before it is the same whichever older call is revised: found once)
        could: dict[int, set[Ply]] = {}
        for number, others in reversed(self._asked):
            back = position.ply_count - number + 1
            quiet = {k for k in range(number + 1, number + back) if k not in asked}
            popped: list[Ply] = []
            for _ in range(back):
                popped.append(position.pop())
                k = position.ply_count + 1  # the number of the ply just taken back
                if k > number and k in asked and k not in could:
                    could[k] = _redirected(position, popped[-1])
            popped.reverse()  # oldest first
            original, later = popped[0], popped[1:]
            judged = self._judged_then.get(number, {}) if as_judged else {}
            try:
                for alternative in alternatives(original, list(others)):
                    dearer = others.get(
                        alternative, max(unasked_dearer, judged.get(alternative, 0.0))
                    ) + PER_PLY_BACK * (back - 1)  # fmt: skip
                    # (a count revised: the stacks it dropped on hold other heights since)
                    recounted = frozenset(
                        {*alternative.squares(position.size), *original.squares(position.size)}
                        if other_drops(alternative, original) else ()
                    )  # fmt: skip
                    found = self._played_then(alternative, later,
                                              lambda more, d=dearer: fits(d + more), quiet,
                                              could, recounted)  # fmt: skip
                    if found is not None and (best is None or found[0] < best[0]):
                        best = (found[0], number, alternative, original, found[1])
            finally:
                for ply in popped:
                    position.push(ply)
        if best is None:
            return []
        _, number, alternative, original, again = best
        back = position.ply_count - number + 1
        popped = [position.pop() for _ in range(back)][::-1]  # the revised ply, then the later
        self._replay, self._replay_revised = popped[1:], (alternative, again)
        self._replay_asked = [(n, o) for n, o in self._asked if n > number]
        self._asked = [(n, o) for n, o in self._asked if n < number]
        self._reevaluate = True
        ask = Ask((Candidate(alternative, 0.0), Candidate(original, 0.0)),
                  reason=f"ply {number} revised: {reason}")  # fmt: skip
        return [Takeback(back), *self._ask(ask)]

    def _played_then(
        self, alternative: Ply, later: list[Ply], fits: Callable[[float], float | None],
        quiet: set[int], could: dict[int, set[Ply]] | None = None,
        recounted: frozenset[str] = frozenset(),
    ) -> tuple[float, list[Ply]] | None:
        """(`fits(more)`, the later plies as played) with `alternative` and then `later`
        played; None if none fits. The position is restored.

        A spread's count decided wrong leaves a later spread off the same stack carrying pieces
        it no longer has (fresh bench seed 528: `3b1+` recorded for `3b1+12`, then `4b2>13` for
        `2b2>11`, both asked; eight plies later no ply fitted and the game was out of sync for its
        last 16 plies). So one later spread that the alternative leaves illegal may be replaced by
        the same spread with another count or drops that ends on the same square
        (`_same_spread`); the best fit of those counts. So may one that stays legal but starts
        on a square whose height a revised count changes (`recounted`, when the alternative is
        the original with other drops): the stack left a piece shorter may still hold as many
        as the later spread carried (fresh bench seed 6294, 4x4: `3b1>12` revised to `3b1>21`
        at ply 44 left `4d1<112` legal, where `3d1<111` was played; nothing fitted, a placement
        further back was revised wrongly instead, and 14 plies were lost). Not for other
        revisions: a placement revised into a spread onto its square, with a later spread
        recounted, fitted a board 19 plies on by chance (fresh bench seed 1374, replayed with
        no `MISREAD_COUNT_MARGIN`, as its test does).
        Any other later ply must stay legal.
        A later ply the board showed clearly when it was played (its number in `quiet`:
        committed without a question) makes the revision `commit_margin` dearer when it is so
        replaced (`more`), as a revision of a ply nobody asked about is (fresh bench seed 1217,
        4x4, tilt 34: `b1` asked about against `a1>`, 0.74 dearer; 14 plies later a stack's
        height read one short at 0.88 fitted `a1>` better, with the quiet `3a1+` four plies
        after it turned into `2a1+`; three plies went wrong).

        Or one later spread that was asked about may be replaced by the same spread in another
        direction through a square the alternative changes, one it could not take when it was
        judged (`could`: per later asked ply's number, the directions it could take then): a
        flat guessed a wall is no square to spread onto, and the spread that did was asked about
        as the other directions (fresh bench seed 1407, 4x4, tilt 4: `c2` guessed `Sc2` at ply
        14; `d2<` onto it at ply 24 was asked as `d2-` or `d2+`, and when ply 14 was revised,
        ply 24 stayed `d2-`; 3 more plies went wrong). Directions it could take then were
        judged then: trying them again is chances of a fit by chance (fresh bench seed 1566:
        two right plies changed to other directions, 4 plies lost)."""
        position = self.position
        best: tuple[float, list[Ply]] | None = None

        first = position.ply_count + 1  # the alternative's number
        opened = set(alternative.squares(position.size))  # squares the revision changes

        def play(plies: list[Ply], done: list[Ply], more: float | None) -> None:
            nonlocal best
            pushed = 0
            try:
                for i, ply in enumerate(plies):
                    number = first + len(done) + i
                    if ply not in position.legal_plies:
                        if more is not None or i == 0:  # (never the alternative itself)
                            return
                        recount(plies, done, i, number)
                        return
                    if (more is None and i > 0 and not ply.is_placement
                            and ply.square in recounted):
                        recount(plies, done, i, number)  # (and as it was, below)
                    if more is None and i > 0 and could is not None and number in could:
                        for other in _redirected(position, ply, opened) - could[number]:
                            play([other, *plies[i + 1 :]], done + plies[:i], 0.0)
                    position.push(ply)
                    pushed += 1
                score = fits(more or 0.0)
                if score is not None and (best is None or score < best[0]):
                    best = (score, (done + plies)[1:])
            finally:
                for _ in range(pushed):
                    position.pop()

        def recount(plies: list[Ply], done: list[Ply], i: int, number: int) -> None:
            # the i-th of `plies`, ply `number`, as the same spread with each other count or
            # drops ending on its square (`_same_spread`), dearer if the board showed it clearly
            more = self.config.commit_margin if number in quiet else 0.0
            for other in _same_spread(position, plies[i]):
                play([other, *plies[i + 1 :]], done + plies[:i], more)

        play([alternative, *later], [], None)
        return best

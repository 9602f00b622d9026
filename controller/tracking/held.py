"""A spread under way: pieces lifted off a stack and held in a hand out of view, a spread whose
last drop may still be in the hand, and the quick reply made after one. Part of `Tracker`
(`tracker.py`), whose state it uses: such a board is waited for, or held back until the next
board shows how the spread ended.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from controller.tak import Ply
from controller.tracking.by_change import ChangeJudge, neighbours
from controller.tracking.change import changes, faint_changes, light_only, p_changed
from controller.tracking.decisions import Ask, Candidate, Commit, Decision
from controller.tracking.evidence import SquareEvidence, differs
from controller.tracking.gate import StableReading

if TYPE_CHECKING:  # (tracker.py imports this module)
    from controller.tracking.tracker import Hypothesis


class Held(NamedTuple):
    """A spread held back while its pieces may still be in a hand (`_held_in_hand`)."""

    ply: Ply
    matched: tuple  # the board it was judged on (evidence, signatures)
    # the other spreads of as many pieces off the same stack that fitted that board's changes
    # too (`structure_ok`): where the pieces went, the next board may tell (`_settle_held`)
    rivals: tuple[Ply, ...] = ()


class HeldSpread:
    """The tracker's spreads under way (a mixin of `Tracker`)."""

    def _held_in_hand(self, best: Hypothesis, evidence, p, stable: StableReading) -> bool:
        """Is `best` a spread the camera sees only as pieces lifted off a stack, while the
        reader saw no stack grow where it drops them? Then the pieces may still be in a hand the
        camera does not see (held high, it is imaged beyond the board), as when no ply fits
        (`_lifted`): the board is judged again once it has stood `lifted_grace_s`, and a hand
        that comes back and drops them makes a new board. Fresh bench seed 741: a flat lifted
        off a5 and held out of view for 1.8 s fitted `a5>` onto b5's flat of its colour (b5
        read height 1, surely), committed quietly; then it was dropped on a4 (`a5-`), and 16
        plies after it were recorded wrong without a mark. The bench's players leave the board
        still for only 1.0-1.6 s between plies: when the next board fits no ply, the spread held
        back is committed and that board judged after it (`_commit_held`)."""
        if best.ply is None or best.ply.is_placement or best.height_against <= 0.0:
            return False
        if not self._lifted(evidence, p):
            return False
        return self._wait_for_the_drop(stable)

    def _in_hand_unseen(self, close: list[Hypothesis], evidence, p,
                        stable: StableReading) -> bool:  # fmt: skip
        """Before a close call between spreads is asked about (`close`: the best first, and
        the plies about as good): do they fit only as pieces lifted off one stack, no other
        square's look changed even faintly, the reader contradicting each where it drops
        them? Then the pieces may still be in a hand (as `_held_in_hand`), and the board is
        judged again once it has stood `lifted_grace_s`, or when the next board comes. Fresh
        bench seed 1353 (5x5): a dark capstone lifted off d5, no square changed where it could
        land (d4 and e5, dark flats on top, changed by 0.07 and 0.09, still read as flats);
        `d5-` and `d5>` were asked about at once and `d5-` guessed, and when the capstone came
        down on e5 the game went out of sync (23 plies lost)."""
        return self._lifted_only(close, evidence, p) and self._wait_for_the_drop(stable)

    def _lifted_only(self, close: list[Hypothesis], evidence, p) -> bool:
        """`_in_hand_unseen`'s question: do the spreads of `close` fit only as pieces lifted off
        one stack, no other square's look changed even faintly, the reader contradicting each
        where it drops them?"""
        best = close[0]
        if best.ply is None or best.ply.is_placement:
            return False
        square = best.ply.square
        if not all(h.ply is not None and not h.ply.is_placement and h.ply.square == square
                   and h.contradiction > 0.0 for h in close):  # fmt: skip
            return False  # (one the reader does not contradict is what it saw: seed 1473)
        if self._lifted(evidence, p) != square:
            return False
        # a square changed, if faintly: the pieces may have landed there
        return not any(faint > 0.0 for sq, faint in self._faint.items() if sq != square)

    def _wait_for_the_drop(self, stable: StableReading) -> bool:
        """Wait for lifted pieces to come down, unless the board has stood `lifted_grace_s`
        already: -> whether it waits (the board is judged again when it has stood, `step`, or
        on the next board)."""
        if stable.at - stable.since >= self.config.lifted_grace_s:
            return False
        self.unmatched_since = stable.since  # (the clock `step` judges `lifted_grace_s` by)
        self._lifted_waits = True
        return True

    @staticmethod
    def _came_down(ply: Ply | None, waited: Ask) -> bool:
        """Is `ply` the spread waited on (`_in_hand_unseen`), the pieces come down: as many
        lifted off the same stack as one of the question's candidates lifts (not more: that
        was the spread and then another ply off the same stack, fresh bench seed 2067)?"""
        return ply is not None and not ply.is_placement and any(
            c.ply.square == ply.square and c.ply.count == ply.count for c in waited.candidates)

    def _held_then(self, held: Held, best: Hypothesis,
                   stable: StableReading) -> list[Decision]:  # fmt: skip
        """A spread was held back (`_held_in_hand`), and this board fits `best` as one ply (or a
        takeback) from before it. It may as well be the spread held back, then the next player's
        ply on top.

        `best` the same spread with other counts or drops (fresh bench seed 1120, 4x4 seen from
        straight above: `3c4>` emptied c4, the reader saw it empty; the next ply put a light
        flat there, and the board was just what `2c4>` leaves, the light bottom flat on c4.
        `2c4>` was guessed and the game went wrong from there, 34 of 48 plies): when a ply after
        the held spread fits this board by what changed since the held board, both are asked
        about, the two plies first: on a still board with no hand in view the reader saw the
        spread done.

        `best` a takeback (fresh bench seed 1434, 4x4 at tilt 5: `a2>` dropped a light flat
        on b2's light top, which the reader read no higher, and was held back; `c1>` came
        quickly after, a dark flat onto d1's dark top, and the board was just what taking back
        the two plies before `a2>` leaves but for b2's height: "takeback 2" was committed and 6
        plies recorded wrong): when a ply after the held spread fits, the held spread is
        committed and this board judged after it. A spread done on a still board and then
        undone with the two plies before it is far less likely than a game going on."""
        ply, other = held.ply, best.ply
        if best.back and other is None:
            if self._after_held(held.ply, held.matched, stable) is None:
                return []
            return self._settle_held(held, stable)
        if (other is None or other.is_placement or other.square != ply.square
                or other.direction != ply.direction):  # fmt: skip
            return []
        found = self._after_held(held.ply, held.matched, stable)
        if found is None:
            return []
        played, after = found
        self._quiet = None
        ask = Ask((Candidate(played, after.cost, then=after.ply),
                   Candidate(other, best.cost + best.contradiction)),
                  f"the spread held back, then the next ply: {played.ptn()} then "
                  f"{after.ply.ptn()}")  # fmt: skip
        return self._ask_on_board(ask, stable.evidence, stable.appearance)

    def _after_held(self, ply: Ply, matched: tuple,
                    stable: StableReading) -> tuple[Ply, Candidate] | None:  # fmt: skip
        """The spread `ply`, held back on the board `matched`, as played, and the ply after it
        that best fits this board by what changed since the held board (the reader not
        contradicting it), scored by its cost and contradiction; None if none fits."""
        then_evidence, then_looks = matched
        if then_looks is None:
            return None
        evidence = stable.evidence
        looks = changes(stable.appearance, then_looks)  # type: ignore[arg-type]
        p = {sq: p_changed(c) for sq, c in looks.items()}
        faint = faint_changes(stable.appearance, then_looks, looks)  # type: ignore[arg-type]
        moved = self._changed(evidence, then_evidence)
        position = self.position
        played = position.push(ply)
        try:
            judge = ChangeJudge(position, evidence, p, moved, then_evidence, faint,
                                light_only(stable.appearance, then_looks))  # fmt: skip
            nexts = self._uncontradicted(judge.plies())
        finally:
            position.pop()
        if not nexts:
            return None
        return played, nexts[0]

    def _settle_held(self, held: Held, stable: StableReading) -> list[Decision]:
        """The next board came, and it is the next ply's: the spread held back was played. The
        held spread is committed and this board judged after it, unless this board says the
        pieces went elsewhere: a rival spread off the same stack (`Held.rivals`), followed by
        the ply that best fits this board after it (`_after_held`), fits it better than the
        held spread so followed, by the commit margin. Then both pairs are asked about, best
        first: the held board never showed where the pieces came down.

        Fresh bench seed 6035 (4x4, tilt 38): `d2+` put a dark flat on d3, dark wood, read
        empty at 0.99 (its look changed 1.67); `d2<` onto c2's dark flat, read no higher, was
        held back; with `c3>` played onto d3 next, "d2+ then c3>" fitted this board 0.8 better
        than "d2< then c3>", whose `d2<` was committed quietly (live: 3 plies wrong)."""
        pairs = []
        for spread in (held.ply, *held.rivals):
            found = self._after_held(spread, held.matched, stable)
            if found is not None:
                pairs.append((found[1].cost, spread, found[1].ply))
        pairs.sort(key=lambda pair: pair[0])
        mine = next((cost for cost, spread, _ in pairs if spread == held.ply), None)
        if mine is None or pairs[0][0] > mine - self.config.commit_margin:
            return self._commit_held(held) + self._evaluate(stable)
        self._quiet = None
        candidates = tuple(Candidate(spread, cost, then=after) for cost, spread, after in pairs)
        ask = Ask(candidates[: self.config.max_candidates],
                  f"the pieces lifted off {held.ply.square} were not seen to come down, and the "
                  "next ply tells where better than the board before it")  # fmt: skip
        return self._ask_on_board(ask, stable.evidence, stable.appearance)

    def _commit_held(self, held: Held) -> list[Decision]:
        """Commit the spread `_held_in_hand` held back; its board becomes the one to compare the
        next to."""
        ply, matched = held.ply, held.matched
        self._before_commit = (self._accepted, self._looks)
        played = self.position.push(ply)
        out: list[Decision] = [Commit(played, self.config.commit_margin, self.position.ply_count)]
        out += self._game_over()
        self._accepted, self._looks = matched
        self._lifted_waits, self.unmatched_since = False, None
        return out

    def _ask_held(self, held: Held) -> list[Decision]:
        """The frames ended with the spread `held` held back (`_held_in_hand`): no later board
        will show where its pieces came down, and the reader saw no stack grow where it drops
        them, so it is asked about, not committed quietly, with the spreads of as many pieces
        off the same stack that the reader does not contradict (fresh bench seed 4697: the
        game's last ply, `b4>`, held back as `b4-` onto b3, read one high surely, was written
        without a mark when the video ended 0.4 s later)."""
        ply, matched = held.ply, held.matched
        ranked = self.last.ranked if self.last is not None else []
        cost = next((h.cost for h in ranked if h.ply == ply), 0.0)
        others = [Candidate(h.ply, h.cost) for h in ranked[: self.config.max_considered]
                  if h.ply is not None and h.ply != ply and not h.ply.is_placement
                  and h.ply.square == ply.square and h.ply.count == ply.count
                  and h.contradiction <= self.config.match_cost]  # fmt: skip
        candidates = (Candidate(ply, cost), *sorted(others, key=lambda c: c.cost))
        return self._ask(Ask(candidates[: self.config.max_candidates],
                             "the recording ended before the pieces were seen to come down"),
                         matched)

    def _lifted(self, evidence: Mapping[str, SquareEvidence],
                p: Mapping[str, float]) -> str | None:  # fmt: skip
        """Does the board differ from the last one matched only by pieces gone from one stack whose
        top the player to move controls (a spread under way, the lifted pieces in a hand)? The
        square surely changed (or faintly, above the board's noise: below), and the reader sees
        it empty now, or lower, or topped by another colour; any other square that surely
        changed is its neighbour and reads as it did (a stack lifted uncovers the square behind
        it in the camera's view: fresh bench seed 1416, tilt 35, a3's three lifted and a4
        behind changed by 2.25, read unchanged). The square, or None."""
        if self._accepted is None or self.position.ply_count < 2:
            return None
        then = self._accepted
        # (a piece lifted off one of its colour changes its square's look faintly, height only:
        # one that stands out from the board's noise and that the reader reads lower counts;
        # fresh bench seed 1604, 4x4, tilt 31: a dark flat lifted off a4's dark flat, a4
        # changing by 0.92, was committed as `a4>` onto b4 and then dropped on a3)
        moved = [sq for sq, q in p.items() if q >= 0.5 or (
            q > 0.0 and self._faint.get(sq, 0.0) > 0.0 and self._lowered(sq, evidence, then))]
        if not moved:
            return None
        lowered = [sq for sq in moved if self._lowered(sq, evidence, then)]
        if len(lowered) != 1:
            return None
        (square,) = lowered
        beside = neighbours(square, self.position.size)
        if all(sq == square or (sq in beside and sq in then
                                and not differs(evidence[sq], then[sq]))
               for sq in moved):  # fmt: skip
            return square
        return None

    def _lowered(self, square: str, evidence: Mapping[str, SquareEvidence],
                 accepted: Mapping[str, SquareEvidence]) -> bool:  # fmt: skip
        """Does the reader see `square`'s stack, topped by the player to move's piece, empty now,
        or lower than on the board last matched (`accepted`), or topped by the other colour?"""
        stack, then = self.position.stack(square), accepted.get(square)
        if not stack or stack[-1][0] != self.position.to_move or then is None:
            return False
        now = evidence[square]
        return (not now.occupied or now.height < then.height - 0.5
                or (now.p_light >= 0.5) != (then.p_light >= 0.5))  # fmt: skip

    def _lifted_wait(self, stable: StableReading, p: Mapping[str, float],
                     changed: set[str] | None = None) -> bool:  # fmt: skip
        """Does a board that fits no ply look `_lifted` (and, with `changed`, the squares whose
        reading changed since the last match, does the reader read no other square changed),
        and has it stood less than `lifted_grace_s`? Then it is judged again when it has stood
        (`step`), or when the pieces come down and make a new board."""
        if self.state != "tracking":
            return False
        square = self._lifted(stable.evidence, p)
        if square is None or (changed is not None and changed - {square}):
            return False
        if self.unmatched_since is None:
            self.unmatched_since = stable.since
        if stable.at - self.unmatched_since >= self.config.lifted_grace_s:
            return False
        self._lifted_waits = True
        return True

"""Plies the camera did not see clearly: a ply nobody saw (a piece moved onto a stack with the
same top, a light flat on light wood), a piece the reader cannot see where the look changed, a
phantom the reader sees beside a tall or standing piece. Part of `Tracker` (`tracker.py`), whose
state it uses; each case is asked about, never committed quietly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from controller.tak import FLAT, WHITE, Ply
from controller.tracking.by_change import (
    SURELY_CHANGED,
    ChangeJudge,
    colour_contradiction,
    neighbours,
    other_drops,
    stands_out,
    top_colour_kept,
)
from controller.tracking.change import (
    SHADOWED,
    UNCHANGED_BELOW,
    board_noise,
    changes,
    p_changed,
)
from controller.tracking.decisions import Ask, Candidate, Decision
from controller.tracking.evidence import FLIP_MIN_CHANGE, FLIP_OVER_NOISE, SquareEvidence
from controller.tracking.gate import StableReading
from controller.tracking.scoring import contradiction, kind_against, wrong_squares

if TYPE_CHECKING:  # (tracker.py imports this module)
    from controller.tracking.tracker import Hypothesis

# A flat placed where the look changed this much on a board judged "nothing happened" may have
# been missed (`_missed`): seed 22's light flat changed its square by 0.99; an empty square
# next to seed 41's hand changed by 0.36 and ranked above the ply that was played.
MISSED_FLAT_CHANGE = 0.5
# ... or from `FLIP_MIN_CHANGE` and `FLIP_OVER_NOISE` times the board's noise where the reader's
# occupancy rose by this much: a piece it half saw
HALF_SEEN_RISE = 0.2
# ... and a wall or capstone placed there is offered too, this much dearer than the flat: the
# reader's commonest miss is a light flat on light wood, but a light wall can go unseen as well
# (fresh bench seed 1565, tilt 19: `Sf4`, read empty at 0.87, was asked about as `f4` alone)
UNSEEN_STANDING = 1.0
# A placement on the square whose look changed most on that quiet board, by this many times the
# board's noise, is offered too even where the reader saw nothing come, never alone (`_unseen`:
# fresh bench seed 4052, 5x5, tilt 32: a light flat placed on d3 changed it by 0.36, 3.6 times
# the board's noise and more than any other square, read empty at 0.99; the one ply offered, a
# flat moved onto a flat of its colour unseen, was wrong, and the players had no right answer)
FAINTLY_SHOWS = 3.0
# ... and alone, when no other ply is on offer, where its change is this many times the board's
# noise (as `UNSEEN_OVER_NOISE`: a piece the reader cannot see). Fresh bench seed 4763 (4x4, tilt
# 26): the third ply's light flat on a4, in a glare spot, changed it by 0.46 (23 times the noise)
# and was read empty at 1.00; the next ply's dark flat then fitted only as the pair "c1 then c1+"
# in place of ply 2, asked and guessed, two plies wrong. Seed 3388's unseen `b5` (0.33, 12 times)
# is asked about so too, where "c2- then d2<" was guessed for it and `d2<`.
FAINTEST_ALONE_OVER_NOISE = 10.0
# A piece read on a square a ply empties, beside a standing piece or a tall stack, this surely
# or less, may be that piece's image: the ply is asked about, not called illegal (`_phantom_left`)
PHANTOM_LEFT = 0.9
# A square whose look surely changed back to within this of how it looked when the game last had
# it bare is taken for bare again, whatever the reader reads there (`_bare_again`; change units,
# `UNCHANGED_BELOW` is 0.7: compared across many plies, a square drifts further than across one,
# its neighbours' stacks rising over its strip: seed 1839's b4, bare, 2.25 from its bare look)
BARE_AGAIN = 1.2
# ... when the reader reads a piece there this surely or less: a light flat on light wood looks
# much like the bare wood too, and a reader sure of it is right (seed 528: a light flat left on
# a2 by a spread, 0.37 from bare, read at 0.999)
BARE_OVERRULES = 0.98
UNREAD = SquareEvidence(p_occupied=0.5, p_light=0.5, p_kind=(1 / 3, 1 / 3, 1 / 3), height=0.0,
                        height_weight=0.0, unread=True)  # the reader's call on a square, taken back
# An empty square read empty whose look changed by this much, and this many times the board's
# median change, after a hand: a piece placed there that the reader cannot see
# (`_unseen_after_hand`)
UNSEEN_CHANGE = 0.5
UNSEEN_OVER_NOISE = 10.0
# A piece placed where the reader sees none, on a square whose look only darkened, greyly, as
# under a shadow (`Tracker._shadow_fell`): a standing piece is offered first, by this much. Seen
# from above a thin wall shows mostly its shadow, where a flat covers the square with its own
# colour. On the stored bench games, of the pieces placed unseen and asked about so, 7 of 8 walls
# changed their square that way and 1 of 19 flats. A capstone is seen more often (it is thick),
# but not always: fresh bench seed 3110, a light capstone on g1 read empty at 0.66-1.00 darkened
# it so, and was asked about as a wall; which of the two it is, the reader's lean there says.
SHADOW_OF_STANDING = 0.3
# Darker by this much (signature units, `change.darkened`), a square a dark piece came to changed
# as that piece changes it, whatever its shadow did (`_dark_piece_came`)
DARK_PIECE_DARKENS = 1.0


def kind_unseen(ply: Ply, there: SquareEvidence | None) -> float:
    """What a placement on a square the reader reads empty pays for its stone, in a question
    that presumes a piece came there: the reader's lean between the kinds, had it seen a piece,
    counted in full (`scoring` counts it only as far as the square may be occupied, which here
    is next to nothing). Fresh bench seed 3388 (5x5): a wall on b4, read empty at 0.96 and,
    given a piece, a wall at 0.99, was asked about as a flat first, 0.07 ahead (the wall's
    prior), and guessed so; the game lost 4 of its 28 plies."""
    if not ply.is_placement or there is None or there.p_occupied >= 0.5:
        return 0.0
    return kind_against(there, ply.stone)


class Unseen:
    """The tracker's plies the camera did not see clearly (a mixin of `Tracker`)."""

    def _missed(self, evidence, p, changed) -> list[Decision]:
        """The board fits no ply; would it fit one if a ply had been played before it that changed
        no square's look? A piece moved from a stack onto a neighbour with the same top, seen
        from above, changes only heights (bench seeds 24, 32, 33, 41, tilts 6-9 degrees: the hand
        came and went, the board looked unchanged, "nothing happened" won, and the next ply was
        the other player's, which the position then does not allow); and so may a light flat
        placed on light wood, seen from straight above, which the reader misses too. Such plies
        of the player to move that let some ply explain the board are asked about, the ones whose
        squares changed most on the quiet board first (a faint change is still a change: seed
        41's squares 0.14 and 0.24 against 0.05 elsewhere); once answered, the board is judged
        again. Only when a hand came and went before that quiet board: a ply needs a hand, and a
        piece of the wrong colour placed after a board nobody touched stays an illegal board."""
        if self._quiet is None:
            return []

        def fits() -> bool:  # (with the unseen ply played)
            judge = self._judge(self.position, evidence, p, changed)
            return any(self._fits_by_change(j) for j in judge.plies())

        found = self._unseen(self._quiet, fits)
        if not found:
            return []
        self._quiet = None
        self._reevaluate = True
        candidates = tuple(Candidate(ply, cost) for cost, ply in found)
        return self._ask(Ask(candidates[: self.config.max_candidates],
                             "a ply before this board was not seen"))  # fmt: skip

    def _missed_before_last(self, evidence, p, changed) -> list[Decision]:
        """The board fits no ply, the last ply was committed quietly, and a hand had come and gone
        before it leaving a board judged "nothing happened": was a ply made then, unseen, so
        that the last ply was the next player's and this board is the one after? (Fresh bench
        seed 1037, tilt 27: black's second-ply flat on d3, light on light wood, changed d3's
        look by 0.51 and was read occupied at 0.6-0.75; white's `a2` was then taken for ply 2,
        and black's `a4` fitted nothing: the game lost 32 of its 48 plies.) `_missed` looks
        only at the quiet board just before; this looks one commit further back, with the same
        plies on offer (`_unseen`). Asked as that ply then the last, the last alone at the end;
        once answered, the board is judged again."""
        position = self.position
        if self._quiet_commit is None or position.ply_count != self._quiet_commit[0]:
            return []
        number, committed, quiet = self._quiet_commit
        if quiet is None:
            return []
        last = position.pop()
        try:
            if last != committed:
                return []

            def fits() -> bool:  # (with the unseen ply played)
                if last not in position.legal_plies:
                    return False
                position.push(last)
                try:
                    return self._revision_score(evidence, p, changed, 0.0) is not None
                finally:
                    position.pop()

            found = self._unseen(quiet, fits)
        finally:
            position.push(last)
        if not found:
            return []
        return self._ask_in_place_of_last(
            tuple(Candidate(ply, cost, then=last) for cost, ply in found),
            f"ply {number} revised: a ply before it was not seen, {found[0][1].ptn()} then "
            f"{last.ptn()}",
        )

    def _unseen(self, quiet: tuple, fits: Callable[[], bool]) -> list[tuple[float, Ply]]:
        """Plies of the player to move that may have been made unseen before the quiet board
        `quiet` (`_quiet`'s (changes, evidence, evidence compared to)), and after which
        `fits()` holds (called with the ply played): (score, ply), best first, the ones
        whose squares changed most on the quiet board and whose pieces and heights the reader
        saw there first."""
        quiet_changes, quiet_evidence, quiet_before = quiet
        position = self.position
        before = position.stacks()
        then = ChangeJudge(position, quiet_evidence, {}, None, quiet_before)
        found: list[tuple[float, Ply]] = []
        # a placed piece shows, but a light flat on light wood seen from straight above may show
        # only a little, and the reader may not see it at all (seed 22: b4 changed by 0.99
        # against 0.1 elsewhere, read empty at 0.92)
        noise = board_noise(quiet_changes)
        faint = max(MISSED_FLAT_CHANGE, FLIP_OVER_NOISE * noise)
        # ... or less, where the reader half saw a piece come (fresh bench seed 2085, 4x4, tilt
        # 29: the second ply's light flat on c3 changed it by 0.2, six times the board's noise,
        # and was read occupied at 0.29, from 0.001; the third ply was taken for the second, and
        # the game went out of sync at its fifth, 28 of 30 plies lost)
        half_seen = max(FLIP_MIN_CHANGE, FLIP_OVER_NOISE * noise)

        def shows(square: str) -> bool:
            change = quiet_changes.get(square, 0.0)
            now, then = quiet_evidence.get(square), quiet_before.get(square)
            rose = (now.p_occupied - then.p_occupied
                    if now is not None and then is not None else 0.0)  # fmt: skip
            return change >= faint or (change >= half_seen and rose >= HALF_SEEN_RISE)

        # ... and the square that changed most, if faintly (`FAINTLY_SHOWS`), beside plies that
        # show: a question must hold the right answer, even an unlikely one
        most = max(quiet_changes, key=quiet_changes.__getitem__, default=None)
        faintest = (
            most if most is not None and not shows(most)
            and quiet_changes[most] >= max(FLIP_MIN_CHANGE, FAINTLY_SHOWS * noise) else None
        )  # fmt: skip
        faint_plies: list[tuple[float, Ply]] = []  # (placements there: not an answer alone)

        for ply in list(position.legal_plies):
            if ply.is_placement and not shows(ply.square) and ply.square != faintest:
                continue
            touched = ply.squares(position.size)
            played = position.push(ply)
            try:
                after = {sq: position.stack(sq) for sq in touched}
                altered = [sq for sq in touched if after[sq] != before.get(sq, ())]
                if not ply.is_placement and not all(
                    top_colour_kept(before.get(sq, ()), after[sq]) for sq in altered
                ):
                    continue  # a top changed colour: it would have been seen. (Not its kind:
                    # the game's wall may be a guess. Fresh bench seed 731: `Sd2?` for `d2` at
                    # ply 14; ten plies later its flat, moved onto a dark flat unseen, was a wall
                    # moved there to the game, and the game went out of sync for its last 29.)
                if not fits():
                    continue
                seen = sum(quiet_changes.get(sq, 0.0) for sq in altered) / len(altered)
                # the heights the reader read change so count for the ply, and those it surely
                # read unchanged against it (fresh seed 4052, tilt 32: `c5>` unseen, c5 and d5
                # read two high before and after at 0.96, was guessed over the flat on d3)
                news = 0.0
                for sq in altered:
                    favour, _, against = then.height_news(sq, len(before.get(sq, ())),
                                                          len(after[sq]))  # fmt: skip
                    news += favour + against
                # a placement the reader read as no piece at all is less likely than one it half
                # saw (seed 1037: d3 read occupied at 0.7 and b4 surely empty, both changed 0.5)
                there = quiet_evidence.get(ply.square) if ply.is_placement else None
                unseen = max(0.0, 1.0 - 2.0 * there.p_occupied) if there is not None else 0.0
                if ply.is_placement and ply.stone != FLAT:
                    unseen += UNSEEN_STANDING  # (offered, after the flat)
                if there is not None:
                    unseen += kind_unseen(played, there)
                faint_only = ply.is_placement and ply.square == faintest
                (faint_plies if faint_only else found).append((news - seen + unseen, played))
            finally:
                position.pop()
        # alone it is an answer only where the look changed as a piece the reader cannot see
        # changes it (`FAINTEST_ALONE_OVER_NOISE`); else the board stays unexplained, as before
        alone = max(FLIP_MIN_CHANGE, FAINTEST_ALONE_OVER_NOISE * noise)
        if not found and not any(quiet_changes.get(q.square, 0.0) >= alone
                                 for _, q in faint_plies):
            return []
        return sorted(found + faint_plies, key=lambda f: f[0])

    def _placed_unseen(self, ranked: list[Hypothesis], evidence, appearance) -> list[Decision]:
        """Plies that fit what changed and are ruled out only because the reader reads a square
        they leave a piece on as empty (it reads every other square as they leave it: fresh
        bench seed 204, a capstone moved onto a flat of its colour, seen as the capstone gone
        from c3 and c4 uncovered behind it, fits `c3+` so, but the reader sees the capstone on
        d3, and `_shown_by_board` asks about `c3>`).
        A light flat on wood of its own colour is the reader's commonest miss (fresh bench seed
        632: `b4`, its look changed by 1.44, read empty at 0.87; the game went out of sync for
        its last 8 plies). Asked about, never committed quietly.

        Each such square's look must have changed, and not as a shadow moving (`_shade_moved`):
        fresh bench seed 702, straight above, a wall moved onto a flat of its colour changed
        nothing; the shadow it had cast on b1 was gone, and b1 was asked about as a piece unseen
        (`b2-` for `b2>`), which left a later spread one piece short, quietly."""
        position, cfg = self.position, self.config

        def unseen(sq: str) -> bool:
            return bool(position.stack(sq)) and evidence[sq].p_occupied < 0.5

        def shadow_only(h: Hypothesis, sq: str) -> bool:
            return (self._shade_moved(sq, h.ply) and not self._dark_piece_came(h.ply, sq)
                    and not self._standing_piece_came(h.ply, sq))  # fmt: skip

        found = [
            Candidate(h.ply, h.cost + h.contradiction - missed + self._standing_unseen(h.ply)
                      + kind_unseen(h.ply, evidence.get(h.ply.square)))
            for h, squares, missed in self._misread_only(ranked, evidence, unseen)
            if not any(self.changes.get(sq, 0.0) < UNCHANGED_BELOW or shadow_only(h, sq)
                       for sq in squares)
            and missed > 0.0 and h.colour_contradiction - missed <= cfg.match_cost
        ]  # fmt: skip
        if not found:
            return []
        found.sort(key=lambda c: c.cost)
        position.push(found[0].ply)
        try:  # (the squares it leaves a piece on)
            squares = ", ".join(sq for sq in found[0].ply.squares(position.size)
                                if unseen(sq) and sq in evidence)  # fmt: skip
        finally:
            position.pop()
        ask = Ask(tuple(found[: cfg.max_candidates]),
                  f"the look of {squares} changed, but the reader sees no piece there")
        return self._ask_on_board(ask, evidence, appearance)

    def _unseen_after_hand(self, ranked: list[Hypothesis], stable: StableReading
                           ) -> list[Decision]:  # fmt: skip
        """A hand came and went, the board fits no ply but "nothing happened", and yet an empty
        square the reader reads empty changed its look far beyond the board's noise (at least
        `UNSEEN_CHANGE`, and `UNSEEN_OVER_NOISE` times the median change), in colour, not by
        the light alone, or darker by the light alone with no neighbour changed whose stack's
        shadow it could be (a wall seen from above shows mostly its shadow: fresh bench seed
        3110's last ply, `Sf3`, read empty at 0.92, f3 darker by a grey 1.16, was never
        recorded): a piece the reader cannot see was placed there. Asked about, the
        placements there first (fresh bench seed 1374, 4x4, tilt 38: the second ply's light
        flat on light wood, read empty at 0.99, changed d3 by 0.92 with the board's noise at
        0.02; the board was taken as unchanged, the third ply recorded as the second, and the
        game was recorded wrong from there, 4 plies without a mark). `_placed_unseen` asks the
        same where the change alone fits the placement; this is for a change the absolute
        scale calls faint. Also asked when no hypothesis fits and "nothing happened" ranks
        first (fresh bench seed 1758: d1 changed by 1.15, "nothing happened" failed the
        structure check by 0.003, the placement on d1 by 0.18)."""
        if not stable.after_hand or not self.changes or self.state != "tracking":
            return []
        evidence, position = stable.evidence, self.position
        floor = board_noise(self.changes)
        squares = [
            sq for sq, change in self.changes.items()
            if not position.stack(sq) and evidence[sq].p_occupied < 0.5
            and change >= max(UNSEEN_CHANGE, UNSEEN_OVER_NOISE * floor)
            and (self._light_only.get(sq, 0.0) < SHADOWED
                 or (self._shadow_fell(sq) and not self._shade_moved(sq)))
        ]  # fmt: skip
        if len(squares) != 1:  # (more than one: a hand's shadow or a knock, not one piece)
            return []
        square = squares[0]
        found = [Candidate(h.ply, h.cost + h.contradiction + kind_unseen(h.ply, evidence[square]))
                 for h in ranked if h.ply is not None
                 and h.ply.is_placement and h.ply.square == square]  # fmt: skip
        if not found:
            return []
        found.sort(key=lambda c: c.cost)
        self._quiet = None
        ask = Ask(tuple(found[: self.config.max_candidates]),
                  f"the look of {square} changed, but the reader sees no piece there")
        return self._ask(ask, (dict(evidence), stable.appearance))

    def _standing_unseen(self, ply: Ply) -> float:
        """What a placement the reader does not see gains (negative) for being a wall or a
        capstone on a square whose look darkened as under a shadow (`SHADOW_OF_STANDING`; fresh
        bench seed 1978, 4x4, tilt 12: two dark walls on dark wood, read empty at 1.00, each
        asked about as a flat first)."""
        if ply.is_placement and ply.stone != FLAT and self._shadow_fell(ply.square):
            return -SHADOW_OF_STANDING
        return 0.0

    def _close_to_nothing(self, best: Hypothesis, below: list[Hypothesis],
                          stable: StableReading) -> list[Decision]:  # fmt: skip
        """A hand came and went and "nothing happened" is the best hypothesis, but a ply that
        fits what changed, the reader not contradicting it, comes within the commit margin of
        it: the ply is asked about, never dropped quietly (fresh bench seed 1481, tilt 37: a
        dark flat placed on b1 changed its look by 0.6, a grey shift like a shadow's, read
        occupied at 0.44; "nothing happened" won by 0.08, the next placement, in the other
        colour than the game expected, was taken for a takeback, and the game was lost from
        its 12th ply)."""
        cfg = self.config
        # (after motion with no hand flagged too: a question costs a tap, a ply dropped a game;
        # fresh bench seed 1881, the game's last wall on the far corner, "nothing happened"
        # ahead by 0.005, was never asked. Not for a missed ply, `_quiet`: after a nudge, a piece
        # of the wrong colour is an illegal board, not the sign of a ply unseen)
        if not (stable.after_hand or stable.after_motion) or self.state != "tracking":
            return []
        close = [h for h in below[: cfg.max_considered]
                 if h.ply is not None and h.cost - best.cost < cfg.commit_margin
                 and self._fits_by_change(h) and h.contradiction <= cfg.match_cost]  # fmt: skip
        if not close:
            return []
        self._quiet = None
        # best first as weighed with what the reader contradicts, as every question is (fresh
        # bench seed 1786, tilt 1.4: `e1<` and `e1+`, a light flat moved off a light stack onto
        # a light one either way, were offered in the order of their cost alone, and `e1+`,
        # which the reader contradicted more, was guessed)
        weighed = sorted((Candidate(h.ply, h.cost + h.contradiction) for h in close),
                         key=lambda c: c.cost)
        ask = Ask(tuple(weighed[: cfg.max_candidates]),
                  "nothing happened, or this: the board barely changed")  # fmt: skip
        return self._ask(ask, (dict(stable.evidence), stable.appearance))

    def _misread_only(
        self, ranked: list[Hypothesis], evidence, misread: Callable[[str], bool]
    ) -> Iterator[tuple[Hypothesis, list[str], float]]:
        """The best-ranked plies that fit what changed and that the reader reads as they leave
        every square but those where `misread(square)` holds (called with the ply played):
        (the ply's hypothesis, those squares, the part of its colour contradiction on them).
        A square the ply leaves alone that the reader read as it does now at the last match
        too counts for none (fresh bench seed 1396: a light flat on a2, read empty since it was
        placed and asked about, kept c2's, read empty as well, from being asked about; the game
        went out of sync and 5 plies were later recorded wrong without a mark)."""
        position, cfg = self.position, self.config
        # (and one read now as it was read then, against the game, however surely either time:
        # fresh bench seed 4454, 4x4, tilt 4, a dark wall on a3 read bare at 0.62 then and 0.70
        # now crossed the bar for a square read wrong, and `b3`, a dark flat the reader did not
        # see either, was reported illegal; the game went out of sync for its last 6 plies)
        before = self._wrong_at_last_match() | {
            sq for sq, then in (self._accepted or {}).items()
            if sq in evidence and evidence[sq].label() == then.label()
        }
        for h in ranked[: cfg.max_considered]:
            if h.ply is None or h.structure is None or h.structure > cfg.structure_ok:
                continue
            position.push(h.ply)
            try:
                altered = h.ply.squares(position.size)
                odd = [sq for sq in altered if sq in evidence and misread(sq)]
                part = sum(colour_contradiction(position.stack(sq), evidence[sq]) for sq in odd)
                others_wrong = set(wrong_squares(position, evidence)) - set(odd)
                others_wrong -= before - set(altered)
            finally:
                position.pop()
            if not others_wrong:
                yield h, odd, part

    def _phantom_left(self, ranked: list[Hypothesis], evidence, appearance) -> list[Decision]:
        """Plies that fit what changed and are ruled out only because the reader still reads a
        piece, not surely (`PHANTOM_LEFT`), on a square they empty next to a wall, a capstone
        or a stack of `TALL` (fresh bench seed 937, straight above: `c5<` left c5 read as a
        light wall at 0.84 beside the wall on d5; nothing fitted, and the game was out of sync
        for its last 34 plies). The reader reads every other square as the ply leaves it.
        Asked about, never committed quietly."""
        cfg = self.config
        found = [
            Candidate(h.ply, h.cost + h.contradiction - seen)
            for h, ghosts, seen in self._ghosted(ranked, evidence)
        ]
        if not found:
            return []
        found.sort(key=lambda c: c.cost)
        ask = Ask(tuple(found[: cfg.max_candidates]),
                  "the reader still sees a piece where it left, beside a standing piece")
        return self._ask_on_board(ask, evidence, appearance)

    def _ghosted(
        self, ranked: list[Hypothesis], evidence, *, left_surely: bool = False
    ) -> Iterator[tuple[Hypothesis, list[str], float]]:
        """`_misread_only` for a piece still read, not surely (`PHANTOM_LEFT`), on a square the
        ply empties beside a wall, a capstone or a stack of `TALL`: the plies, the squares of
        such ghosts (at least one), and the part of the colour contradiction on them.
        `left_surely`: also a piece read up to `BARE_OVERRULES` on such a square anywhere,
        whose look surely changed (a piece left it, by the look)."""
        position, cfg = self.position, self.config

        def ghost(sq: str) -> bool:
            if position.stack(sq) or evidence[sq].p_occupied < 0.5:
                return False
            if left_surely and evidence[sq].p_occupied <= BARE_OVERRULES and \
                    p_changed(self.changes.get(sq, 0.0)) >= SURELY_CHANGED:
                return True
            return evidence[sq].p_occupied <= PHANTOM_LEFT and any(
                stands_out(position.stack(n)) for n in neighbours(sq, position.size))

        for h, ghosts, seen in self._misread_only(ranked, evidence, ghost):
            if ghosts and h.colour_contradiction - seen <= cfg.match_cost:
                yield h, ghosts, seen

    def _bare_again(self, evidence, appearance) -> dict[str, SquareEvidence]:
        """`evidence`, with the reader's call taken back on each square the game has a piece
        on, read occupied but not surely (`BARE_OVERRULES`), whose look surely changed, back
        to how it looked when the game last had it bare (`BARE_AGAIN`): what left it most
        likely left it bare, and the reader's call there no longer counts either way. The
        reader sometimes sees the wood a dark piece uncovers as a light flat: fresh bench seeds
        1839 (a dark flat moved off c3, its look changed by 7.7, to within 0.9 of its bare
        look, read as a light flat at 0.97) and 2169 (the same on c5, 0.26 from bare, read at
        0.79). Each time "the flat moved off, and the reply placed right there" was guessed
        for the move alone, and 22 and 14 plies were lost. (A phantom read where the look did
        not come back is `_phantom_left`'s to ask about.)"""
        if not self._bare:
            return evidence
        # (against the looks kept for the other squares: the board-wide shift is theirs)
        from_bare = changes(appearance, {**self._looks, **self._bare})
        position = self.position  # (a square the game has bare now is compared to itself)
        bare = [sq for sq in self._bare
                if from_bare.get(sq, math.inf) <= BARE_AGAIN and position.stack(sq)
                and 0.5 <= evidence[sq].p_occupied <= BARE_OVERRULES
                and p_changed(self.changes.get(sq, 0.0)) >= SURELY_CHANGED]  # fmt: skip
        return {**evidence, **dict.fromkeys(bare, UNREAD)} if bare else evidence

    def _ghost_rival(self, best: Hypothesis, ranked: list[Hypothesis], evidence, p) -> Ask | None:
        """Before `best` is committed quietly: does a rival explain a square whose look surely
        changed, which `best` leaves alone, the reader contradicting the rival only by a ghost
        there (`_ghosted`)? A flat moved off d3 onto d2 beside a stack of three, d3 then read
        as a light piece at 0.7-0.8: the placement on d2 fitted every reading, d3's change was
        excused as its neighbour's, and it was committed quietly (the tracker's own readings;
        not yet seen on the bench, where `_phantom_left` found the ghosts that stalled a game).
        Asked about, the rival first: the square's look says a piece left it, and the reader
        only doubtfully says one is there."""
        touched = set(best.ply.squares(self.position.size))
        rivals = [
            h for h, ghosts, _ in self._ghosted(ranked, evidence, left_surely=True)
            if h.ply != best.ply
            and any(sq not in touched and p.get(sq, 0.0) >= SURELY_CHANGED for sq in ghosts)
        ]
        if not rivals:
            return None
        candidates = [*(Candidate(h.ply, h.cost) for h in rivals), Candidate(best.ply, best.cost)]
        return Ask(tuple(candidates[: self.config.max_candidates]),
                   "the reader still sees a piece where the look says one left, beside a "
                   "standing piece")

    def _unseen_rival(self, best: Hypothesis, ranked: list[Hypothesis], evidence,
                      p) -> Ask | None:  # fmt: skip
        """Before `best` is committed quietly: does a rival put a piece on a square whose look
        surely changed, which `best` leaves alone, the reader contradicting the rival only by
        reading that square bare (and not as a shadow `best` moved there, `_shade_moved`)? The
        mirror of `_ghost_rival`. Fresh bench seed 4445 (4x4, tilt 24): `d2<` moved a dark flat
        onto the bare c2, whose look changed by 4.5 (35 times the noise); the reader read c2
        bare at 0.93 and d3 a piece higher at 0.87, so `d2+`, onto d3, fitted every reading,
        c2's change excused as its neighbour's, and it was committed without a question.
        Asked about, the rival first: the square's look says a piece came, and only the reader
        says none is there. Not the same spread with other drops: the square beyond a spread's
        last drop is where the stack it raised shows its image (fresh bench seeds 4400 and
        4437: `2d2+` and `2c4-` asked as `2d2+11` and `2c4-11` first, and guessed so), and
        counts are weighed by `count_margin`. Nor a square the reader reads bare more surely
        than `BARE_OVERRULES`, as `_ghost_rival` takes no piece read that surely for a ghost:
        fresh bench seed 4631 (6x6, tilt 12): `a4-` took one of a4's two pieces onto a3, read
        one higher at 0.99; b4, beside a4, brightened by 1.41 and was read bare at 0.999, and
        `a4>`, onto b4, was asked first and guessed."""
        cfg = self.config
        touched = set(best.ply.squares(self.position.size))
        rivals = []
        for h in ranked[: cfg.max_considered]:
            if (h.ply is None or h.ply == best.ply or h.structure is None
                    or h.structure > cfg.structure_ok
                    or other_drops(h.ply, best.ply)):  # fmt: skip
                continue
            unseen = [sq for sq in h.altered
                      if sq not in touched and p.get(sq, 0.0) >= SURELY_CHANGED
                      and 1.0 - BARE_OVERRULES <= evidence[sq].p_occupied < 0.5
                      and not self._shade_moved(sq, best.ply)
                      and self._top_after(h.ply, sq) is not None]  # fmt: skip
            if not unseen:
                continue
            self.position.push(h.ply)
            try:
                there = sum(contradiction(self.position.stack(sq), evidence[sq]) for sq in unseen)
            finally:
                self.position.pop()
            if h.contradiction - there <= cfg.match_cost:
                rivals.append(h)
        if not rivals:
            return None
        candidates = [*(Candidate(h.ply, h.cost) for h in rivals), Candidate(best.ply, best.cost)]
        return Ask(tuple(candidates[: cfg.max_candidates]),
                   "the look says a piece came where the reader sees none")

    def _dark_piece_came(self, ply: Ply, square: str) -> bool:
        """Does `ply` leave a dark piece on top of `square`, where the square darkened by more
        than a shadow's edge (`DARK_PIECE_DARKENS`)? Then a grey change there is the piece's as
        well as a shadow's (fresh bench seed 1130, tilt 19: a dark wall moved from c3 onto c2,
        read empty at 0.95; c2 darkened by the grey shift a shadow makes, so `_shade_moved`
        put it down to the wall's shadow, no ply fitted, and the game was out of sync from its
        6th ply). A shadow that went brightens (seed 702), and a light piece can look like it."""
        if self._darkened.get(square, 0.0) < DARK_PIECE_DARKENS:
            return False
        top = self._top_after(ply, square)
        return top is not None and top[0] != WHITE

    def _standing_piece_came(self, ply: Ply, square: str) -> bool:
        """Does `ply` leave a wall or capstone on top of `square`, where the square's look only
        darkened, as under a shadow? Seen from above, a standing piece shows mostly its shadow
        (`SHADOW_OF_STANDING`), so a grey darkening there is what it changes, not a neighbour's
        shadow moved (fresh bench seed 3540, 6x6, tilt 2.4: `c2<`, a light wall moved onto
        b2, read empty at 0.91, b2 darker by a grey 0.85; the ply was put down to c2's shadow,
        no ply fitted, and the game's last 11 plies were never recorded). A shadow that went
        brightens instead (seed 702: the square a wall's shadow had darkened)."""
        if not self._shadow_fell(square):
            return False
        top = self._top_after(ply, square)
        return top is not None and top[1] != FLAT

    def _top_after(self, ply: Ply, square: str) -> tuple[int, int] | None:
        """(player, stone) on top of `square` once `ply` is played (None: bare). The position
        is left as it was."""
        self.position.push(ply)
        try:
            stack = self.position.stack(square)
        finally:
            self.position.pop()
        return stack[-1] if stack else None

    def _shade_moved(self, square: str, ply: Ply | None = None) -> bool:
        """Did `square` change by the light alone, next to a square whose look surely changed
        (the shadow of a stack moved there)? A light flat on wood of its colour changes mostly
        the brightness too, but alone (fresh bench seed 811: b1, 2.72, read empty).
        With `ply` (what changed the neighbour), only a neighbour that stands out before or
        after it casts a shadow worth the name: a lone flat's is a sliver (fresh bench seed
        4168, 4x4, tilt 4: `d4<` moved a light flat onto c4, read empty; c4 brightened by 1.42
        and was put down to d4's shadow, no ply fitted, and 16 of 44 plies were lost)."""
        if self._light_only.get(square, 0.0) < SHADOWED:
            return False
        position = self.position
        surely = [n for n in neighbours(square, position.size)
                  if p_changed(self.changes.get(n, 0.0)) >= SURELY_CHANGED]  # fmt: skip
        if ply is None or not surely:
            return bool(surely)
        before = {n: position.stack(n) for n in surely}
        position.push(ply)
        try:
            return any(stands_out(before[n]) or stands_out(position.stack(n)) for n in surely)
        finally:
            position.pop()


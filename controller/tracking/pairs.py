"""Two plies at once: the player to move's ply and the reply, made with no still board between
them (a quick reply: the second hand came in as the first left, or the camera did not see the
pause). Part of `Tracker` (`tracker.py`), whose state it uses. Always asked about, never committed
quietly: judging every pair is many more chances of a fit by chance, and a question costs one
confirmation.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from controller.tak import FLAT, WHITE, Ply
from controller.tracking.by_change import (
    MISREAD_COLOUR,
    SURELY_CHANGED,
    TALL,
    UNSEEN_PIECES,
    neighbours,
    stands_out,
    touching_pairs,
    unseen_pieces,
)
from controller.tracking.decisions import Ask, Candidate, Decision, Takeback
from controller.tracking.evidence import SquareEvidence
from controller.tracking.revisions import HINDSIGHT_MARGIN
from controller.tracking.scoring import mismatch, wrong_squares

if TYPE_CHECKING:  # (tracker.py imports this module)
    from controller.tracking.tracker import Hypothesis

# A pair of plies is asked about instead of one ply that fits only by excusing a square whose look
# surely changed (`_pair_instead`) when it fits better by this much: about one square read surely
# wrong, as for a revision in hindsight (HINDSIGHT_MARGIN)
PAIR_MARGIN = 0.75
# A piece read on the square a ply emptied, this doubtfully or less (contradiction units: read
# occupied at about 0.75), beside a tall stack, is more likely a phantom than a reply placed there
# (`_with_first_alone`)
PHANTOM_DOUBT = 1.0
# ... and a piece read beside a wall or capstone just placed, this surely or less (p occupied),
# is more likely the standing piece's own image than a reply (`_pair_instead`)
PHANTOM_OCCUPIED = 0.75
# ... and a standing piece read where a ply just emptied a square, beside a wall or capstone, is
# that piece's image when the reader reads it in that piece's colour at least this likely (a
# reader sure of the other colour sees another piece; one in doubt may see the image)
IMAGE_COLOUR_DOUBT = 0.35


class TwoPlies:
    """The tracker's pairs of plies (a mixin of `Tracker`)."""

    def _last_was_two(self, evidence, p, changed) -> list[Decision]:
        """The board fits no ply of the player to move, and the last ply was committed quietly:
        was that ply two, a quick reply moving at once what the first placed or moved, that left
        the board just as the one ply would have? Then it is the other player's turn, and the
        board may fit one of theirs. In the opening the second player places the first's flat,
        and the first may move it on at once (quick-reply bench seed 302: `f5` and at once
        `f5<`, seen as the placement `e5`, silently; black's next placement was then illegal,
        and the game ran out of sync for its last 29 plies).

        Still boards alone cannot tell such a pair from the one ply, nor the pairs from each
        other (every neighbour of the square may have been the first ply's), so it is asked
        about with the pairs in place of the last ply, the one ply last; once answered, the board
        is judged again."""
        position = self.position
        if self._quiet_commit is None or position.ply_count != self._quiet_commit[0]:
            return []
        last = position.pop()
        try:
            if last != self._quiet_commit[1]:
                return []
            pairs = self._pairs_as(last)
        finally:
            position.push(last)
        if not pairs:
            return []
        first, reply = pairs[0]
        position.pop()
        position.push(first)
        position.push(reply)
        try:  # the same board as `last` left, with the other player to move: does a ply fit?
            fits = self._revision_score(evidence, p, changed, 0.0) is not None
        finally:
            position.pop()
            position.pop()
            position.push(last)
        if not fits:
            return []
        return self._ask_in_place_of_last(
            tuple(Candidate(a, 0.0, then=b) for a, b in pairs),
            f"ply {position.ply_count} revised: a later board fits it as two plies at once, "
            f"{first.ptn()} then {reply.ptn()}",
        )

    def _reply_was_phantom(self, evidence, p, changed) -> list[Decision]:
        """The board fits no ply, and the last ply was the reply of two plies seen at once,
        guessed: was that reply a phantom? Without it the same player is to move again, and if
        a ply of theirs then fits the board, the reply is taken back and that ply asked about.
        Fresh bench seed 3865 (4x4, tilt 36): `b3>` made c3 three high, and the reader read c4
        behind it empty and b4 beside it a piece higher (c3's image); "b3> then c4<" fitted
        that better than `b3>` alone. The next ply, `b2-`, then fitted only as a pair with
        another phantom before it, and so on: 59 plies recorded for 55, 46 right. A reply that
        was played leaves the other player to move, and their ply rarely fits in place of it."""
        position = self.position
        if self._guessed_reply is None or self._guessed_reply[0] != position.ply_count:
            return []
        reply = position.pop()
        try:
            if reply != self._guessed_reply[1] or not self._beside_risen(reply):
                return []
            judge = self._judge(position, evidence, p, changed)
            fits = self._uncontradicted(judge.ranked(0)[: self.config.max_considered])
        finally:
            position.push(reply)
        if not fits:
            return []
        number = position.ply_count
        position.pop()
        self._guessed_reply = None
        ask = Ask(tuple(fits[: self.config.max_candidates]),
                  f"ply {number} ({reply.ptn()}) taken back: the reply seen with ply "
                  f"{number - 1} was not played, and this board fits a ply without it")  # fmt: skip
        return [Takeback(1), *self._ask(ask)]

    def _beside_risen(self, reply: Ply) -> bool:
        """Does `reply` touch only squares next to a stack that the ply before it (the last in
        the position) left rising in the camera's view (`stands_out`), where the reader sees
        phantoms: pieces hidden behind it, its image on a neighbour? (A reply elsewhere is as
        likely played: fresh bench seed 212, `e3 then f5<` for `b3` then `f5<`, the reply
        real.)"""
        position, size = self.position, self.position.size
        first = position.last_ply
        if first is None:
            return False
        risen = {sq for sq in first.squares(size) if stands_out(position.stack(sq))}
        near = {n for sq in risen for n in neighbours(sq, size)}
        return bool(risen) and set(reply.squares(size)) <= near

    def _ask_in_place_of_last(self, pairs: tuple[Candidate, ...], reason: str) -> list[Decision]:
        """Take back the last ply, committed quietly, and ask `pairs` in its place, the ply
        alone last; once answered, the board is judged again."""
        last = self.position.pop()
        self._quiet_commit = None
        self._reevaluate = True
        ask = Ask((*pairs[: self.config.max_candidates - 1], Candidate(last, 0.0)), reason)
        return [Takeback(1), *self._ask(ask)]

    def _pairs_as(self, ply: Ply) -> list[tuple[Ply, Ply]]:
        """Pairs of plies from the position here that leave the board as `ply` does: the second
        a spread off a square the first placed on or moved through (two plies apart from each
        other leave two changes, one ply one)."""
        position = self.position
        size = position.size
        position.push(ply)
        target = position.stacks()
        position.pop()
        found = []
        for first in list(position.legal_plies):
            touched = set(first.squares(size))
            position.push(first)
            try:
                for reply in list(position.legal_plies):
                    if reply.is_placement or reply.square not in touched:
                        continue
                    position.push(reply)
                    if position.stacks() == target:
                        found.append((first, reply))
                    position.pop()
            finally:
                position.pop()
        return found

    def _two_plies(self, evidence, p, changed, appearance) -> list[Decision]:
        """The board fits no ply, but two, the player to move's and then the reply, played with no
        still board between them: a quick reply (the second hand came in as the first left), or
        a pause the camera did not see (a hand gate that flagged the whole of it). Without this
        the board was illegal and then out of sync for good, until the players took both plies
        back. Asked about, never committed quietly: judging every pair is many more chances of
        a fit by chance, and a question costs one confirmation. Candidates are pairs, best
        first; accepting one records both (`accept(ply, then=reply)`)."""
        candidates = self._pairs(evidence, p, changed)
        revised = self._revise_for_pair(evidence, p, changed, candidates) if candidates else []
        if revised:
            return revised
        if not candidates:
            return []
        self._quiet = None
        offered = self._with_first_alone(candidates)
        misread = [c for c in self._colour_misread_instead()
                   if all(o.then is not None or o.ply != c.ply for o in offered)]
        for single in misread:  # each before the first it scores better than, the order kept
            at = next((i for i, o in enumerate(offered) if o.cost > single.cost), len(offered))
            offered = (*offered[:at], single, *offered[at:])
        offered = offered[: self.config.max_candidates]
        alone = " or ".join(c.ply.ptn() for c in misread)
        or_alone = f" (or {alone} alone, a top's colour misread)" if misread else ""
        ask = Ask(offered, f"two plies at once: {candidates[0].describe()}{or_alone}")
        return self._ask_on_board(ask, evidence, appearance)

    def _colour_misread_instead(self) -> list[Candidate]:
        """Single plies to ask about beside the pairs that fit the board: those that fit by
        change but are ruled out only by the colour the reader reads on one square they alter
        (at most `MISREAD_COLOUR`: one flat's top read surely in the other colour), scored by
        cost and contradiction as the pairs are. A pair that leaves a square whose look changed
        unexplained is no likelier than one ply with one top misread (fresh seed 6106, 5x5,
        tilt 8: `2b2>11` dropped a light flat on d2, read dark surely; "b2> then b2>", leaving
        d2's new dark flat unexplained, was the only candidate, and the game ran two plies
        astray for its last 13)."""
        if self.last is None:
            return []
        cfg = self.config
        return [
            Candidate(h.ply, h.cost + h.contradiction)
            for h in self.last.ranked[: cfg.max_considered]
            if h.ply is not None and h.structure is not None and h.structure <= cfg.structure_ok
            and cfg.match_cost < h.colour_contradiction <= MISREAD_COLOUR
            and h.contradiction - h.colour_contradiction <= cfg.match_cost
        ]

    def _revise_for_pair(self, evidence, p, changed, pairs: tuple[Candidate, ...]
                         ) -> list[Decision]:  # fmt: skip
        """Two plies at once fit the board, or none do, and a recent close call was asked about:
        would a pair fit clearly better (`HINDSIGHT_MARGIN`) had that call gone the other way?
        A flat guessed a wall is found out when it is moved, and moved as a quick reply it is
        one of a pair (fresh bench seed 1523, 5x5: `e1` asked as `Se1`, 0.001 ahead; `b3` and
        at once `e1+` onto a flat, which a wall on top contradicted, was taken for `b3` then
        `e1<` onto d1, the wall's other neighbour, and the next spread off e2 was recorded one
        piece short without a mark). Then, as in `_revise`, that call is asked about again,
        and the board is judged again once it is answered. Only for a pair that touches the
        call's square: every pair is many chances of a fit by chance, and one far from the call
        says nothing of it (fresh bench seed 1589: a game already a few plies astray revised
        ply 34, 20 plies back, from right to wrong, for a pair on other squares).
        With `pairs` empty (no pair fits as the game stands), only as a last resort, once
        every other reading of the board has failed: a game a few plies astray fits some pair
        with some old call revised by chance (fresh bench seed 1374, 4x4, tilt 38: ply 17,
        right, revised 19 plies back for a pair where one ply, found later, had been played;
        20 plies lost and 2 silent errors), but a game left out of sync is lost for good
        (fresh bench seed 1475, tilt 7: ply 28 revised 20 plies back, 53 of 58 plies, and 47
        without)."""
        against = (pairs[0].cost if pairs else math.inf) - HINDSIGHT_MARGIN
        size = self.position.size
        call: set[str] = set()  # the squares of the close call being revised

        def asked(original: Ply, others: list[Ply]) -> list[Ply]:
            call.clear()
            call.update(sq for q in (original, *others) for sq in q.squares(size))
            return others

        def fits(dearer: float) -> float | None:
            found = self._pairs(evidence, p, changed)
            if not found or found[0].cost + dearer > against:
                return None
            pair = found[0]
            touched = {*pair.ply.squares(size), *pair.then.squares(size)}  # type: ignore[union-attr]
            return pair.cost + dearer if touched & call else None

        return self._revise_asked(asked, fits,
                                  "a later board fits two plies at once with this one")  # fmt: skip

    def _with_first_alone(self, pairs: tuple[Candidate, ...]) -> tuple[Candidate, ...]:
        """`pairs`, and the best pair's first ply alone where its reply only places a piece on a
        square the first ply emptied and the first ply alone was ruled out only by the reader's
        doubtful reading of that square (no more than twice `match_cost`: a piece seen there at
        0.85 or less). Where the reading is weaker still (`PHANTOM_DOUBT`) and the square is
        next to a stack of `TALL` pieces or more, where the reader sees phantoms, or where it
        reads there a standing piece in the colour of one standing beside it (that piece's
        image: doubtful is enough), the ply alone comes first (fresh bench seed 914: `d3-`
        beside a four-stack, d3 then read occupied at 0.69, was asked about only as "d3- then
        Sd3"; the guess ran the game off by a ply, and one ply later went wrong unmarked; fresh
        seed 3014, tilt 9: `2c3<11` took a light wall off c3, which then read as a dark wall at
        0.82 like d3's beside it, and the guess "then Sc3" cost 24 of 55 plies); else last
        (quick-reply games on the tracker's own readings, seed 305: `c5>` and at once `c5`
        beside a stack of three, the new c5 read at 0.87, is the pair)."""
        best = pairs[0]
        reply, size = best.then, self.position.size
        if reply is None or not reply.is_placement or best.ply.is_placement:
            return pairs
        if reply.square not in best.ply.squares(size) or self.last is None:
            return pairs
        cfg = self.config
        alone = next((h for h in self.last.ranked if h.ply == best.ply), None)
        if alone is None or alone.structure is None or alone.structure > cfg.structure_ok:
            return pairs
        single = Candidate(best.ply, alone.cost + alone.contradiction)
        position = self.position
        position.push(best.ply)
        try:
            beside = neighbours(reply.square, size)
            tall = any(len(position.stack(sq)) >= TALL for sq in beside)
            image = self._image_of_standing(reply.square, beside)
        finally:
            position.pop()
        # (a standing piece's image may be read as surely as a piece: fresh bench seed 4443, 4x4,
        # tilt 32: `a1>` emptied a1 beside a light wall, a1 was then read a wall at 0.98 in no
        # colour surely, and the question offered only "a1> then Sa1" or "a1> then a1")
        if alone.colour_contradiction > 2 * cfg.match_cost and not image:
            return pairs
        if (tall and alone.colour_contradiction <= PHANTOM_DOUBT) or image:
            return (single, *pairs)[: cfg.max_candidates]
        return (*pairs[: cfg.max_candidates - 1], single)

    def _image_of_standing(self, square: str, beside: list[str]) -> bool:
        """Does the reader read on `square` a standing piece in the colour of a wall or capstone
        on top of one of the squares `beside` it (in the position as it stands), or in no colour
        surely (`IMAGE_COLOUR_DOUBT`)?"""
        ev = self.last.evidence.get(square) if self.last is not None else None
        if ev is None or ev.p_occupied < 0.5 or ev.p_kind[0] >= 0.5:
            return False
        tops = (self.position.top(sq) for sq in beside)
        return any(top is not None and top[1] != FLAT
                   and (ev.p_light if top[0] == WHITE else 1.0 - ev.p_light) >= IMAGE_COLOUR_DOUBT
                   for top in tops)  # fmt: skip

    def _pairs(self, evidence, p, changed) -> tuple[Candidate, ...]:
        """Pairs of plies that fit the board by change, and that the reader does not confidently
        contradict (a pair may pile pieces out of the reader's sight, and only its heights then
        tell it from a spread still in hand), scored by cost and contradiction (`_best_pairs`)."""
        judge = self._judge(self.position, evidence, p, changed)
        return self._best_pairs(self._uncontradicted(judge.pairs()))

    def _best_pairs(self, pairs: list[Candidate]) -> tuple[Candidate, ...]:
        """The best-scored pairs, best first, at most `max_candidates`. Pairs that share their
        first ply are each a candidate: the reply is as much in question (quick-reply bench seed
        324: `2b3+` then `Cb2`, asked as `2b3+` then `b3-` with nothing else on offer)."""
        return tuple(sorted(pairs, key=lambda c: c.cost))[: self.config.max_candidates]

    def _pair_instead(self, evidence, p, changed, best: Hypothesis, appearance,
                      held: Ply | None = None) -> list[Decision]:
        """The board fits `best`, one ply, but only by excusing a square it leaves alone where the
        look surely changed (as a phantom in a stack's shadow, as the shadow itself): is that the
        reply, made before the board was still? `c3-` onto a flat, and black's flat placed
        beside it at once, was recorded as `c3-` alone (d3 excused as a phantom next to a stack
        of two); on the tracker's own readings (seed 450), `d1` with `d2+` onto a stack with the
        same top was recorded as `Sd1` alone, d2 and d3 excused as the wall's shadows. When a
        pair fits clearly better (`PAIR_MARGIN`), the pair is asked about, the best single plies
        after it. `held`: a spread held back on the board before this one (`_held_in_hand`)."""
        assert best.ply is not None
        touched = set(best.ply.squares(self.position.size))
        if all(sq in touched for sq, q in p.items() if q >= SURELY_CHANGED):
            return []
        pairs = self._pairs(evidence, p, changed)
        single = best.cost + best.contradiction
        if not pairs or pairs[0].cost > single - PAIR_MARGIN:
            return []
        alone = Candidate(best.ply, single)
        # the ply alone is always on offer, in the last place if nothing puts it first (a pair
        # that starts with it is another answer: fresh bench seed 1027, `Sd2` with a phantom in
        # its shadow, was asked as "Sd2 then Sd1", "Sd2 then d1" or "d2 then Sd1", with no
        # way to answer `Sd2`)
        candidates = (*pairs[: self.config.max_candidates - 1], alone)
        first_alone = self._with_first_alone(pairs)[0]
        if first_alone.then is None and first_alone.ply != best.ply:
            # the best pair's first ply alone, its reply likely a phantom (`_with_first_alone`)
            candidates = (first_alone, *candidates)
        left = [sq for sq, q in p.items() if q >= SURELY_CHANGED and sq not in touched]
        # The pair's first ply a spread the camera saw on a still board before this one, held
        # back while its pieces might still be in a hand: the squares it emptied are the ones
        # read as phantoms, and the pair comes first (fresh bench seed 1203, tilt 7: `e5<` held
        # back, then a capstone placed on e4 at once; e5 beside it read occupied at 0.7, "Ce4
        # alone" was guessed, and the game went out of sync after a silent error)
        seen_first = held is not None and pairs[0].ply == held
        if not seen_first and (self._beside_raised(best.ply, left)
                               or self._beside_standing(best.ply, left, evidence)
                               or self._reply_in_shadow(best.ply, pairs[0], left)):
            # the changes the ply leaves are where a stack it raised shows phantoms: the ply
            # alone first (fresh bench seed 716: `2c2-` onto c1, four high, with a dark flat
            # read at 0.96 beside it on d1, guessed "2c2- then d1"; the game ran a ply off for
            # 9 plies, then 2 off, and 9 plies were recorded wrong without a mark)
            candidates = (alone, *(c for c in candidates if c != alone))
        candidates = candidates[: self.config.max_candidates]
        alone_too = " or ".join(c.ply.ptn() for c in candidates if c.then is None)
        ask = Ask(candidates, f"two plies at once: {pairs[0].describe()} (or {alone_too} alone)")
        self._quiet = None
        return self._ask(ask, (dict(evidence), appearance))

    def _pair_not_takeback(self, evidence, p, changed, best: Hypothesis,
                           appearance) -> list[Decision]:  # fmt: skip
        """The board fits `best`, a takeback, only by excusing a square it leaves alone where
        the look surely changed: are they two plies at once instead, one of them unseen before?
        Fresh bench seed 1929: `b3` placed on the square `2b3-` had just emptied, read empty,
        then `2b2+11` onto b3 and b4 made b2 bare and b3 occupied again, as before `2b3-`: that
        was taken back, b4 (changed by 4.8, the reader turned) excused beside the stack of two,
        and 28 plies were lost. Players take back a ply by putting the board back as it was, so
        a real takeback leaves no square it does not restore surely changed. When a pair fits
        clearly better (`PAIR_MARGIN`) it is asked about."""
        assert best.back
        if all(sq in best.altered for sq, q in p.items() if q >= SURELY_CHANGED):
            return []
        pairs = self._pairs(evidence, p, changed)
        if not pairs or pairs[0].cost > best.cost + best.contradiction - PAIR_MARGIN:
            return []
        ask = Ask(pairs[: self.config.max_candidates],
                  f"two plies at once: {pairs[0].describe()} (or a takeback of {best.back})")
        self._quiet = None
        return self._ask(ask, (dict(evidence), appearance))

    def _beside_raised(self, ply: Ply, squares: list[str]) -> bool:
        """Is each of `squares` next to a square where `ply` leaves a stack of `TALL` pieces or
        more? (Not a lone wall or capstone: a reply placed beside a wall just placed is common,
        quick-reply bench seed 306: `Sb2` then `c2`, guessed `Sb2` alone, then 2 plies silently
        wrong.)"""
        position = self.position
        size = position.size
        position.push(ply)
        try:
            raised = {sq for sq in ply.squares(size) if len(position.stack(sq)) >= TALL}
        finally:
            position.pop()
        return bool(squares) and all(raised & set(neighbours(sq, size)) for sq in squares)

    def _beside_standing(self, ply: Ply, squares: list[str], evidence) -> bool:
        """Is each of `squares` next to a wall or capstone `ply` placed, and read occupied no
        more surely than `PHANTOM_OCCUPIED`, or read as a piece standing in that piece's own
        colour? A standing piece rises 0.7-0.8 of a pitch, and a tilted camera sees it over its
        neighbour (fresh bench seed 1027, tilt 36: `Sd2`, and d1 behind it read as a dark wall
        at 0.58-0.64 for 2 s, was guessed "Sd2 then Sd1", and the game went out of sync 2 plies
        later; fresh bench seed 1318, tilt 22: white's `Sb3`, and a3 beside it read as a light
        wall at 0.84, was guessed "Sb3 then Sa3", black's wall, and the game was out of sync
        for its last 38 plies). A reply placed there is the other player's and read surely
        (quick-reply bench seed 306: `Sb2` and at once `c2`, read at 1.00, is the pair)."""
        if not ply.is_placement or ply.stone == FLAT:
            return False
        beside = set(neighbours(ply.square, self.position.size))
        player = self.position.placing_color  # (`ply` is a placement of the player to move)

        def image(ev: SquareEvidence) -> bool:  # the standing piece's own look, there
            p_own = ev.p_light if player == WHITE else 1.0 - ev.p_light
            return ev.p_occupied >= 0.5 and ev.p_kind[0] < 0.5 and p_own >= 0.5

        return bool(squares) and all(
            sq in beside and (evidence[sq].p_occupied <= PHANTOM_OCCUPIED or image(evidence[sq]))
            for sq in squares
        )

    def _reply_in_shadow(self, ply: Ply, pair: Candidate, squares: list[str]) -> bool:
        """Is `pair` `ply` (a wall or capstone placed) or another kind on its square, then a
        piece placed on one of `squares`, each of them beside `ply`'s square and changed as a
        shadow changes a square: darker, by the light alone (`change.light_only`)? A standing
        piece throws its shadow over a neighbour, and the reader may read the shadow as a dark
        flat (fresh bench seed 1718, 7x7, tilt 7.5: white's `Sg2`, and g1 beside it read as a
        dark flat at 0.94, its look changed by 3.6, a grey darkening; "Sg2 then g1" was guessed,
        and the game was out of sync for the next 38 plies, with a silent error). A dark flat
        placed on the wood darkens its square by the light alone too, one placement in ten on
        the bench, so this only orders the question: the ply alone first."""
        if not ply.is_placement or ply.stone == FLAT or not squares:
            return False
        first, reply = pair.ply, pair.then
        if not (first.is_placement and first.square == ply.square and reply is not None
                and reply.is_placement and reply.square in squares):  # fmt: skip
            return False
        beside = set(neighbours(ply.square, self.position.size))
        return all(sq in beside and self._shadow_fell(sq) for sq in squares)

    def _pair_shown_by_board(self, evidence, p, appearance) -> list[Decision]:
        """As `_shown_by_board`, for two plies at once: no pair fits by what changed, but the
        reader, square by square, reads the position two plies on (no square confidently
        contradicted, no pieces missing from the stacks they leave). Fresh quick-reply bench
        seed 305 (tilt 23): `2e1<11`, then `2e3<`; the two-piece stack taken off e1, at the
        board's edge, changed e1's look by 0.6 only, and the game went out of sync. Only pairs
        that each touch a square whose look surely changed are tried (a few hundred, each read
        against the whole board)."""
        position = self.position
        sure = {sq for sq, q in p.items() if q >= SURELY_CHANGED}
        found: list[Candidate] = []
        for first, reply in touching_pairs(position, sure):
            cost = mismatch(position, evidence)
            if cost <= self.config.match_cost:
                stacks = position.stacks()
                if unseen_pieces(stacks, stacks.keys(), evidence) < UNSEEN_PIECES:
                    found.append(Candidate(first, cost, then=reply))
        if not found:
            return []
        candidates = self._best_pairs(found)
        self._quiet = None
        ask = Ask(candidates, f"two plies at once: {candidates[0].describe()} (the board shows "
                              "them, though not every square they move looks changed)")
        return self._ask_on_board(ask, evidence, appearance)

    def _played_over(self, evidence, p, changed, appearance) -> list[Decision]:
        """The board was reported illegal, fitting a ply but for the colour the reader read on a
        square it left a piece on (`_by_colour_only`), and now fits that ply and then a ply of
        the other player, the reader still reading that square's colour as before: the players
        played on over the alarm, and the reader misreads the piece (fresh bench seed 1155,
        tilt 38: white's light flat on c3 read dark at 1.00; the board was illegal, then out of
        sync for the game's last 12 plies). Asked about, the pair first; a piece of the wrong
        colour that the players replace makes a board that fits the ply, and no question.
        Only where the pair leaves every other square as the reader reads it."""
        if not self._overruled:
            return []
        position, cfg = self.position, self.config
        judge = self._judge(position, evidence, p, changed)
        found = []
        for j in judge.pairs():
            squares = self._overruled.get(j.ply)
            if squares is None or j.structure > cfg.structure_ok or j.then is None:
                continue
            position.push(j.ply)
            position.push(j.then)
            try:
                wrong = set(wrong_squares(position, evidence))
            finally:
                position.pop()
                position.pop()
            if wrong <= squares:
                found.append(Candidate(j.ply, j.cost, then=j.then))
        if not found:
            return []
        found.sort(key=lambda c: c.cost)
        first = found[0]
        misread = ", ".join(sorted(self._overruled[first.ply]))
        self._overruled = {}
        ask = Ask(tuple(found[: cfg.max_candidates]),
                  f"played on over an illegal board: {first.describe()}, the reader reading "
                  f"{misread} in the other colour")  # fmt: skip
        return self._ask_on_board(ask, evidence, appearance)

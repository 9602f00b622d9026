"""Scoring hypotheses by what CHANGED on the board, the reader's answers only where it changed.

With appearance signatures (`change.py`) the tracker knows, per square, how sure it is that the
square changed since the board last matched the game (`p[s]`). Every hypothesis (nothing happened,
each legal ply, each takeback) alters a set A of squares; it is scored:

    structure = sum over s in A      W_ALTERED   * visible(s) * (1 - p[s])   (must have changed)
              + sum over s not in A  W_UNALTERED * discount(s) * p[s]        (must not have)
    reading   = sum over s in A      p[s] * clip(cost(after) - cost(before)) (the reader's news;
                                     beyond the clip at a small share, to order ties)
    cost      = structure + reading

`visible(s)` is 1 when the square's top piece (or emptiness) changes, HEIGHT_ONLY_VISIBLE when
only the height does (a flat dropped on a flat of its colour is hard to see from above) and
SAME_COLOUR_VISIBLE when the top changes kind but not colour (a capstone moved onto a flat of its
colour).
`discount(s)` is NEXT_TO_ALTERED for a square next to an altered one and NEXT_TO_TALL next to a tall
stack: a stack rises over its neighbour behind it in the camera's view, so a change there may be the
neighbour's. Next to an altered square that stands tall before or after (a capstone or wall placed
or moved, a tall stack built or taken down) it is NEXT_TO_RISEN: such a piece covers and shadows
several neighbours at once (bench: a capstone placed on d5 changed d6 by 3.7 and e5 by 1.7, as much
as a placed flat changes its own square). When the reader's own answer for the square changed too
(`reader_moved`) it may be a piece knocked onto the next square, or the reader seeing a phantom in
the new stack's shadow (it does, next to walls and tall stacks): then it counts NEXT_TO_TALL_READ
next to an altered square whose stack is now tall or standing (`rises_in_view`), in full elsewhere;
but a piece read there before and now read bare only doubtfully is hidden behind that stack, and
counts NEXT_TO_RISEN (`half_hidden`).
A stack built up or taken down also moves its shadow, which on a low light reaches two or three
squares (bench seed 37: a spread off a stack of three flats and a wall changed the two squares
behind it by 3.8, as much as a placed piece): a square within a shadow's reach
(`shadow_reach`) of an altered square, and not next to one, whose change is the light's alone
(`change.light_only`: a grey shift, no change of colour) counts IN_SHADOW.

A square a hypothesis alters only in height (same top piece) barely changes its look, so its
reading term, scaled by that change, says next to nothing: two spreads that differ only in which
neighbour got the flat tie (bench: 10 of 32 imperfect games began with such a tie, the reader
reading the right neighbour's new height at 0.98). For those squares the reader's own height
CHANGE since the last match counts instead (`height_news`): a height misread the same way before
and after cancels out, and only a reader that saw the stack grow or shrink tells the two apart.
A reader that saw the stack change as the hypothesis says also counts as the square having
changed (a spread dropping on two stacks of its colours' tops failed the structure check on bench
seed 14 with the reader reading both new heights right); how surely it saw that comes from its
height beliefs before and after (`height_change_share`), not from its two calls alone.

A square nobody touched costs every hypothesis the same, whatever the reader says about it: a
square misread the same way since the last match can never stall the game. But where a square's
look changed even a little and the reader's answer there turned since the last match, the turn
counts (`_reader_turn`): towards what a hypothesis leaves on a square it alters, as a second
hint that the square changed (combined with the look's: 1 - (1 - p)(1 - turn / W_OCCUPIED));
against what a hypothesis leaves on a square it does not alter, as a contradiction, so that
hypothesis is asked about rather than committed. Next to a piece standing tall the reader's
turns are not trusted (it sees phantoms in their shadows). The reading term is
relative (how much better the reader likes the square as the hypothesis leaves it than as it was),
so "nothing happened" pays nothing for the reader, and it counts only as far as the square visibly
changed: a square a ply alters out of sight (a stack one piece lower) gains nothing from a height
the reader has been misreading all along. (Subtracting the same gain at the last match instead was
tried: it credits any hypothesis whenever a misread of the old stack goes away.) Colour of a
placed piece is fixed by the rules, so among placements on the changed square only the kind is the
reader's to decide; among spreads, the squares that changed fix
the direction and distance, and the reader's tops and heights on them the drop counts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace

from controller.tak import CAP, FLAT, WALL, WHITE, Ply, Position
from controller.tracking.evidence import SquareEvidence, flipped_squares, lost_sight
from controller.tracking.scoring import W_COLOR, W_OCCUPIED, contradiction, square_cost

W_ALTERED = 2.0
W_UNALTERED = 2.0
# bench seeds 4, 20, 21: a capstone moved onto a flat of its colour changed that square by 0.5-0.8
# (from above, a disk of the same colour on it; the body rises over the next square's strip);
# seed 4 (tilt 4, a neighbour it rose over) still missed the structure check by 0.1 at 0.4
SAME_COLOUR_VISIBLE = 0.3
HEIGHT_ONLY_VISIBLE = 0.25  # bench: a flat dropped on a flat of its colour changed 0.3-0.7; and
# 2 x 0.25 stays under the commit margin: a ply differing from the best only out of sight is asked
NEXT_TO_ALTERED = 0.25
NEXT_TO_TALL = 0.5
NEXT_TO_RISEN = 0.1
NEXT_TO_TALL_READ = 0.4
# ... but a piece the reader read there before and now reads bare, less surely than this, is
# hidden behind the stack risen beside it, not gone: it counts NEXT_TO_RISEN (`half_hidden`;
# fresh seed 5987, 7x7, tilt 34: a capstone moved in front of a wall, read bare at 0.6 after)
HALF_SEEN = 0.2
# bench seed 37: a spread off a stack with a wall on top, onto an 8-high stack, changed four
# squares by light alone, three beyond the neighbours; at NEXT_TO_RISEN they missed structure_ok
IN_SHADOW = 0.05
# with structure_ok 0.9 (tracker): a neighbour surely changed, also by the reader's account, is one
# too many; without the reader's account up to three are the altered squares' doing
# A bare square the reader reads bare, now and when the board last matched, at least this surely:
# no piece was dropped on it unseen, so a change there by light alone next to a tall piece is that
# piece's shadow (`ChangeJudge._shadowed`)
BARE_SURE = 0.95
PHANTOM_GONE = 1.0  # reading cost units: half a square read surely wrong (see ChangeJudge)
TALL = 3  # pieces: a stack this tall rises over its neighbours in the camera's view
# A tall stack's top is seen beyond its square, where the square's signature no longer looks (vision
# .appearance: up to 0.45 pitch behind its centre): at 6 pieces (0.9 pitch) and 35 degrees from
# the lens the top face is 0.6 pitch behind. A change of its top is then as hard to see as a
# height's (bench seed 37: a dark flat dropped on a light 8-high stack at the far edge, unseen).
TOP_OUT_OF_SIGHT = 6  # pieces
# A square the reader did not see as the game has it when the board last matched (a piece there
# read empty: hidden behind a taller neighbour, or a light flat on light wood in a glare; or a
# square the game has empty read occupied) does not show its top changing clearly either: a ply
# that changes that top may find its look changed only a little. Fresh bench seed 212 (tilt 39):
# a dark flat on b3, read empty at 0.82 for 20 plies, was moved off; b3's look changed by 1.17,
# the ply missed the structure check by 0.16, and the game went out of sync for its last 15 plies.
UNSEEN_VISIBLE = 0.5
# A stack casts its shadow up to SHADOW_PER_HEIGHT times its height away: lights as low as 25
# degrees (a window, a lamp; tan 25 = 0.47). Heights in pitches (the reference board's pieces).
SHADOW_PER_HEIGHT = 2.2
FLAT_THICKNESS = 0.15
STANDING_HEIGHT = 0.7  # a wall on its edge, a capstone
READING_CLIP = 2.0  # one square's reading never counts for more than this either way
# ... beyond which it counts at this share: enough to order two plies that both gain more than the
# clip on a square, not enough to outweigh another square. (Fresh bench seed 2820, tilt 34:
# `2c3<` took a dark capstone and the flat under it off a stack of three onto b3; c3 was read one
# high at 1.00 and b3 three high at 0.67, and `c3<` tied it at -3.6 exactly, both gains clipped
# on both squares, and was guessed. On the 300 stored games of sets 2701-2850, at 0.1: 3 games
# gain 5 plies, one already lost loses its last ply; at 0.2 the same, and two questions fewer.)
BEYOND_CLIP = 0.1
# Per piece of height change the reader saw on a square altered only in height, at full height
# confidence: under the commit margin, so it orders a question's candidates but does not settle
# a tie alone (the reader's heights are its weakest calls).
W_HEIGHT_NEWS = 0.5
HEIGHT_NEWS_CLIP = 2.0  # pieces
# What a placement costs before any evidence: players place flats most of the time, and a reader
# that takes a flat for a wall now and then must not turn such flats into walls quietly (a wall
# then needs the reader surer of it by this much more to be committed without a question).
STONE_PRIOR = {FLAT: 0.0, WALL: 0.15, CAP: 0.15}


def height_change_share(then: tuple[float, ...], now: tuple[float, ...], grown: int) -> float:
    """How likely it is, by the reader's height beliefs on a square at two moments (P(height =
    1, 2, ...) each), that the stack grew by `grown` pieces between them (negative: shrank): the
    chance that the two readings are `grown` apart, sum over h of P_then(h) P_now(h + grown),
    out of all the ways they can be apart (the product of the two totals: 1 for beliefs that sum
    to 1). Both misread the same way cancel, as with the calls; but a reading unsure between two
    heights weighs each, where its call names one."""
    total = sum(then) * sum(now)
    if total <= 0.0:
        return 0.0
    apart = sum(p * now[h + grown] for h, p in enumerate(then) if 0 <= h + grown < len(now))
    return apart / total


def stone_prior(ply: Ply) -> float:
    """What `ply` costs before any evidence for the stone it places (`STONE_PRIOR`; 0 for a
    spread)."""
    return STONE_PRIOR[ply.stone] if ply.is_placement else 0.0


# What a takeback costs before any evidence: players take back a ply or two a game at most, and
# play one every turn. A spread that leaves the tops of an older position (a flat moved back onto
# the square it came from, the pieces it covered read as one stack) must not be taken for a
# takeback on a misread height (fresh bench seed 106, ply 6: b5> taken for "takeback 2", 0.78
# ahead on c5 read one high instead of two; the game then lost its sync for good). With it, such a
# tie is asked about as the ply; a real takeback, which no ply explains, is ahead by 2 or more.
TAKEBACK_PRIOR = 1.0
# Two plies at once (`ChangeJudge.pairs`): each must touch a square whose look surely changed
# (p >= SURELY_CHANGED), and the tops the two change must include such a square and lie only
# where the look changed at least a little (p >= LOOK_CHANGED). Plies that change no top are
# `_missed`'s to find (tracker): a pair of them could explain any board, and judging every pair
# costs too much.
SURELY_CHANGED = 0.5
LOOK_CHANGED = 0.2
# ... and the stacks it leaves may hold at most this many pieces more than the reader counts on
# them (heights weighed by their confidence): a spread still under way, the rest of the stack in a
# hand out of view, looks like a pair that piled the missing pieces out of sight (a flat dropped
# on c3 from a stack lifted off c2 = "c2+, then 2c2+" with c3 three high, read one high)
UNSEEN_PIECES = 1.5

Stack = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Judged:
    """One hypothesis scored by change. `ply` played, or `back` plies taken back, or neither."""

    cost: float
    structure: float  # how badly the pattern of changed squares fits (0 = perfectly)
    contradiction: float  # how confidently the reader contradicts it on the squares it alters
    # (and how much more surely than at the last match on changed squares it leaves alone)
    colour_contradiction: float  # the part of it about pieces there or not and top colours
    altered: frozenset[str]
    ply: Ply | None = None
    back: int = 0
    # the part of `contradiction` from heights the reader saw NOT change as the hypothesis says
    height_against: float = 0.0
    then: Ply | None = None  # two plies at once (`ChangeJudge.pairs`): `ply`, then this one


def colour_contradiction(stack: Stack, evidence: SquareEvidence | None) -> float:
    """How confidently the reader says the square is not even roughly what `stack` is: a piece
    where it wants none or none where it wants one, or a top of the other colour (0: it agrees or
    is unsure). A changed square contradicted so rules a ply out (the tracker's `fits`); kinds and
    heights only make a ply asked about. The bench's reader does call a light flat dark with full
    confidence now and then, which then stalls the game; letting colours through as questions was
    measured with the session-2 reader (bench seeds 1-9: 68.6 % plies exact but 4 silent errors,
    against 61.6 % and 1) and not kept then; with today's, a colour the reader is not sure of
    beyond about 0.95 only makes a question (`FLAT_COLOUR_TRUST`, `STANDING_COLOUR_TRUST`:
    50 games, 97.10 -> 97.58 % exact, silent errors 2 -> 2)."""
    if evidence is None:
        return 0.0
    sure = max(0.0, 2.0 * evidence.p_occupied - 1.0)  # a piece is there
    if not stack:
        return W_OCCUPIED * sure
    if evidence.p_occupied < 0.5:
        return W_OCCUPIED * max(0.0, 1.0 - 2.0 * evidence.p_occupied)
    p_light = evidence.p_light if stack[-1][0] == WHITE else 1.0 - evidence.p_light
    # a colour read off a standing piece's side (both the ply and the reader say it stands)
    standing = stack[-1][1] != FLAT and evidence.p_kind[1] + evidence.p_kind[2] >= 0.5
    trust = STANDING_COLOUR_TRUST if standing else FLAT_COLOUR_TRUST
    return trust * W_COLOR * max(0.0, 1.0 - 2.0 * p_light)


# A wall's or capstone's colour is read from a thin side in shade, and wrongly far more often than a
# flat's lit face (bench/vision: walls 96.1 %, flats 99.5 %; seed 24's dark walls read light at
# 0.98 and the game stopped at the first one placed). Contradicted so, a ply is still ruled in, and
# then asked about (the tracker never commits a ply the reader contradicts on a square it alters).
STANDING_COLOUR_TRUST = 0.5
# A flat's colour is read off its lit face and rarely wrong (99.5 %), but a light flat read dark at
# 0.91 (bench seed 29) ruled the ply out and the game stopped: up to about 0.95 sure, a wrong colour
# makes the ply asked about instead.
FLAT_COLOUR_TRUST = 0.8
# A ply the reader contradicts by no more than this (`colour_contradiction`) is contradicted by one
# flat's top read surely in the other colour at most: a misread, which a question can settle (the
# tracker's `_colour_misread_instead`, `fits_alone`); more is a piece surely seen where it wants
# none, or none where it wants one, or two tops misread.
MISREAD_COLOUR = FLAT_COLOUR_TRUST * W_COLOR + 1e-9


def shadow_reach(stack: Stack) -> int:
    """How many squares away the shadow of `stack` may fall (0 for an empty square)."""
    if not stack:
        return 0
    top = STANDING_HEIGHT if stack[-1][1] != FLAT else FLAT_THICKNESS
    height = (len(stack) - 1) * FLAT_THICKNESS + top
    return max(1, math.ceil(SHADOW_PER_HEIGHT * height - 1e-9))


def within(name: str, reach: int, size: int) -> list[str]:
    """Squares at most `reach` squares from `name` in any direction (kings' moves), not itself."""
    f, r = ord(name[0]) - ord("a"), int(name[1:]) - 1
    return [
        f"{chr(ord('a') + ff)}{rr + 1}"
        for ff in range(max(0, f - reach), min(size, f + reach + 1))
        for rr in range(max(0, r - reach), min(size, r + reach + 1))
        if (ff, rr) != (f, r)
    ]


def stands_out(stack: Stack) -> bool:
    """Does `stack` rise over its neighbours in a camera's view: a wall or capstone on top, or
    `TALL` pieces?"""
    return len(stack) >= TALL or (bool(stack) and stack[-1][1] != FLAT)


def top_colour_kept(old: Stack, new: Stack) -> bool:
    """Is there a top piece before and after, of one colour? (A piece added to or taken off a
    stack of that colour: from above it barely shows.)"""
    return bool(old) and bool(new) and old[-1][0] == new[-1][0]


def neighbours(name: str, size: int) -> list[str]:
    return within(name, 1, size)


def unseen_pieces(stacks: Mapping[str, Stack], squares: Iterable[str],
                  evidence: Mapping[str, SquareEvidence]) -> float:  # fmt: skip
    """How many more pieces `stacks` has on `squares` than the reader counts there, each
    square's count weighed by its height confidence (a square read empty counts as empty)."""
    out = 0.0
    for sq in squares:
        ev = evidence.get(sq)
        if ev is None:
            continue
        seen, weight = (ev.height, ev.height_weight) if ev.p_occupied >= 0.5 else (0.0, 1.0)
        out += weight * (ev.readable(len(stacks.get(sq, ()))) - seen)
    return out


def other_drops(a: Ply, b: Ply) -> bool:
    """Are `a` and `b` spreads off one square in one direction: the same spread, but for its
    count or drops? (They differ in heights only, the reader's weakest calls.)"""
    return (not a.is_placement and not b.is_placement and a.square == b.square
            and a.direction == b.direction)  # fmt: skip


def touching_pairs(position: Position, squares: set[str]) -> Iterator[tuple[Ply, Ply]]:
    """Every pair of plies, the player to move's and then the reply, that each touch one of
    `squares`, yielded with both played on `position` (taken back before the next pair; the
    position is as it was once the iteration ends). The reply may undo a top the first changed
    (a piece moved onto a stack the reply then spreads from), so only touching is asked of each."""
    size = position.size

    def touches(ply: Ply) -> bool:
        return any(sq in squares for sq in ply.squares(size))

    if not squares:
        return
    for first in [q for q in position.legal_plies if touches(q)]:
        played = position.push(first)
        try:
            for second in [q for q in position.legal_plies if touches(q)]:
                reply = position.push(second)
                try:
                    yield played, reply
                finally:
                    position.pop()
        finally:
            position.pop()


class ChangeJudge:
    """Scores hypotheses of one position against one still board's changes and evidence."""

    def __init__(
        self,
        position: Position,
        evidence: Mapping[str, SquareEvidence],
        p_changed: Mapping[str, float],
        reader_moved: set[str] | None = None,
        accepted: Mapping[str, SquareEvidence] | None = None,
        faint: Mapping[str, float] | None = None,
        light_only: Mapping[str, float] | None = None,
        quiet: set[str] | None = None,
    ) -> None:
        self.position = position
        self.size = position.size
        self.evidence = evidence
        self.p = p_changed
        self.before = position.stacks()
        # squares that changed at all: the only ones an unaltering hypothesis pays for
        self.moved = {sq: p for sq, p in p_changed.items() if p > 0.0}
        self.accepted = accepted or {}  # the evidence of the board last matched
        # per square, `change.p_faint`: what a faint change says where a change is expected faint
        self.faint = faint or {}
        # per square, `change.light_only`: how much its change is a shadow's (light alone)
        self.light_only = light_only or {}
        # squares whose look surely did not change (`change.quiet_squares`): their heights did
        # not either, whatever the reader reads there now (`height_news`)
        self.quiet = quiet or set()
        # a square whose reading changed to agree with the game where it disagreed before is a
        # phantom gone, not a piece moved: the reader had seen one in a tall neighbour's shadow,
        # and the neighbour left (bench seed 22: a wall moved off d4, c4 read empty again)
        self.reader_moved = {
            sq for sq in reader_moved or set()
            if not self._phantom_gone(sq, self.before.get(sq, ()))
        }  # fmt: skip
        # squares the reader surely saw a piece come to or go from: a shadow does not do that (a
        # dark flat placed on wood darkens its square by a grey shift too: bench seed 40 with a
        # retrained classifier, b3's new flat, a change of 5.5 read occupied at 1.00, excused as
        # the shadow of a wall two squares off; the placement two plies later was recorded in
        # place of both)
        self.reader_flipped = flipped_squares(evidence, self.accepted)
        # per changed square, how much more surely the reader contradicts it as it stands than
        # at the last match: what a hypothesis that leaves it alone pays (the same for all, so
        # taken once). A square misread the same way all along pays nothing (it must never
        # stall the game); one whose look changed and whose reading turned against the game
        # must not be left alone quietly (a flat read at 0.75 moved to the next square, its own
        # square's look changing faintly: the placement next to it fitted the changes as well
        # and was recorded without a question; bench seed 40, `d4+` as `d5`)
        self.turned_against = {
            sq: max(0.0, self._reader_turn(sq, self.before.get(sq, ()))) for sq in self.moved
        }
        tall = {sq for sq, st in self.before.items() if len(st) >= TALL}
        self.near_tall = {n for sq in tall for n in neighbours(sq, self.size)}

    def _phantom_gone(self, square: str, stack: Stack) -> bool:
        """Does the reader now agree with `stack` on `square` much better than it did?"""
        now, then = self.evidence.get(square), self.accepted.get(square)
        if now is None or then is None:
            return False
        return square_cost(stack, now) + PHANTOM_GONE <= square_cost(stack, then)

    def rises_in_view(self, square: str, stack: Stack) -> bool:
        """Does `stack` rise over its neighbours in the view? Two pieces or more, or a wall or a
        capstone, and the reader sees it so too (not just the hypothesis saying so)."""
        ev = self.evidence.get(square)
        if not stack or ev is None or ev.p_occupied < 0.5:
            return False
        if len(stack) >= 2:
            return ev.height >= 1.5
        return stack[-1][1] != FLAT and ev.p_kind[0] < 0.5

    def hidden(self, square: str) -> bool:
        """Did the reader read a piece on `square` when the board last matched and no longer
        read one now? (Next to a stack built up to rise in the view: hidden behind it.)"""
        return lost_sight(self.evidence.get(square), self.accepted.get(square))

    def half_hidden(self, square: str) -> bool:
        """`hidden`, and the reader still half sees a piece there (HALF_SEEN): a piece behind a
        stack that rose beside it is seen in part; one a ply took away is read bare surely."""
        ev = self.evidence.get(square)
        return self.hidden(square) and ev is not None and ev.p_occupied >= HALF_SEEN

    def height_news(self, square: str, old: int, new: int) -> tuple[float, float, float]:
        """What the reader's height change on `square` says of a hypothesis that takes its stack
        from `old` pieces to `new`: the reading term (never above 0: in favour only), how sure
        the reader is that the stack changed so (0..1), and how confidently it says the stack
        did not (a contradiction: the hypothesis is then asked about, not committed). The change
        looked for is the one the reader can see (`SquareEvidence.readable`: a stack of 9 grown
        to 10 is read 8 before and after).

        In favour only, because a reader that did NOT see a change may just have misread it now
        (bench seed 13: d2 read two high after a flat left it, which as a cost made a placement
        next to it win quietly over the spread that was played). As a contradiction it still
        stops a quiet commit: bench seed 8, a hand pausing just beyond the far edge with a lifted
        stack (the gate missed it) left a board where the stack seemed spread onto b5, whose
        height the reader read unchanged at 1.0."""
        now, then = self.evidence.get(square), self.accepted.get(square)
        if now is None or then is None or now.p_occupied < 0.5 or then.p_occupied < 0.5:
            return 0.0, 0.0, 0.0
        grown = now.readable(new) - then.readable(old)
        # where its look surely did not change, neither did its height: a height read anew
        # there was moved by a neighbour's piece (`change.quiet_squares`)
        seen = 0.0 if square in self.quiet else now.height - then.height
        weight = min(now.height_weight, then.height_weight)

        def off(by: float) -> float:
            return min(HEIGHT_NEWS_CLIP, abs(by))

        news = W_HEIGHT_NEWS * weight * (off(seen - grown) - off(seen))
        if square not in self.quiet and now.height_p is not None and then.height_p is not None:
            # read from the two beliefs, not the two calls: a stack of two read three at 0.55
            # (two at 0.27), then one at 0.95, fits a piece taken off better than its calls'
            # change of two does (fresh bench seed 5006: `d1<` guessed as `c1`, the placement
            # beside it that leaves d1 alone)
            agrees = height_change_share(then.height_p, now.height_p, grown)
        else:
            agrees = weight * max(0.0, 1.0 - abs(seen - grown)) if abs(seen) >= 0.5 else 0.0
        return min(0.0, news), agrees, max(0.0, news)

    def _uncovered(self, after: Mapping[str, Stack], altered: set[str]) -> set[str]:
        """The neighbours of a stack that stood tall and was taken down: a square behind it is
        uncovered, and one the reader reads no more against the game than before is read as it
        is once more, not a piece knocked there (fresh bench seed 1589, 4x4, tilt 38: `4a3>112`
        took a six-high stack down to two; a4 behind it changed by 8.1 and its reading changed,
        closer to the game's; taken for a piece knocked there, it made the ply miss the
        structure check, and the board was taken for two plies at once). A stack knocked over
        puts pieces the reader sees where the game has none."""
        return {
            n for sq in altered if self._stood_tall(sq)
            and len(after.get(sq, ())) < len(self.before.get(sq, ()))
            for n in neighbours(sq, self.size)
        }  # fmt: skip

    def _stood_tall(self, square: str) -> bool:
        """Did the square's stack rise over its neighbours before (the matched position)?"""
        return stands_out(self.before.get(square, ()))

    def _shadowed(self, after: Mapping[str, Stack], altered: set[str], near: set[str]) -> set[str]:
        """Squares that the shadows of altered stacks, before or after, may reach, beyond the
        altered squares' neighbours: a neighbour's change may as well be a piece dropped on it
        unseen (a flat on a flat of its colour changes the light more than the colour too:
        bench seed 46, d3 next to c3 where a spread may or may not have ended). A bare
        neighbour the reader surely reads bare is in reach of any altered stack's shadow, a
        flat's too (else a wall would explain a flat's shadow better): nothing was dropped there
        (fresh bench seed 3674, 4x4, tilt 22: a dark wall moved from b1 onto b2's
        dark flat hardly changed b2 from above, but its shadow left a1 and fell on a2, each
        changed by 3.6 by light alone; `b1+` missed the structure check by 0.1 and the game
        went out of sync for its last 17 plies)."""
        out: set[str] = set()
        for sq in altered:
            reach = max(shadow_reach(self.before.get(sq, ())), shadow_reach(after.get(sq, ())))
            if reach >= 2:
                out.update(within(sq, reach, self.size))
        return (out - near) | {sq for sq in near if self._bare_all_along(sq)}

    def _bare_all_along(self, square: str) -> bool:
        """Is `square` bare in the game, and read bare surely now and when the board last
        matched?"""
        now, then = self.evidence.get(square), self.accepted.get(square)
        return (not self.before.get(square) and now is not None and then is not None
                and max(now.p_occupied, then.p_occupied) <= 1.0 - BARE_SURE)  # fmt: skip

    def judge(self, after: Mapping[str, Stack], altered: set[str], **what) -> Judged:
        near = {n for sq in altered for n in neighbours(sq, self.size)}
        near_tall = {
            n for sq in altered if self.rises_in_view(sq, after.get(sq, ()))
            for n in neighbours(sq, self.size)
        }
        # (a piece the reader saw arrive next to a stack taken down was more likely knocked there)
        near_risen = near_tall | {
            n for sq in altered if self._stood_tall(sq) for n in neighbours(sq, self.size)
        }
        uncovered = self._uncovered(after, altered)
        shadowed = self._shadowed(after, altered, near)
        carried_unseen = self._carried_unseen(what.get("ply"), what.get("then"))
        structure = 0.0
        reading = 0.0
        contra = colours = against_heights = 0.0
        for sq in altered:
            old, new = self.before.get(sq, ()), after.get(sq, ())
            same_top = bool(old) and bool(new) and old[-1] == new[-1]
            visible = (HEIGHT_ONLY_VISIBLE if same_top
                       else SAME_COLOUR_VISIBLE if top_colour_kept(old, new) else 1.0)  # fmt: skip
            if max(len(old), len(new)) >= TOP_OUT_OF_SIGHT:
                visible = min(visible, HEIGHT_ONLY_VISIBLE)
            if self._unseen(sq, old) or sq in carried_unseen:
                visible = min(visible, UNSEEN_VISIBLE)
            changed = self.p.get(sq, 0.0)
            if visible < 1.0:
                changed = max(changed, self.faint.get(sq, 0.0))
            if same_top:
                news, agrees, against = self.height_news(sq, len(old), len(new))
                reading += news
                changed = max(changed, agrees)  # the reader saw the stack grow or shrink so
                contra += against
                against_heights += against
            elif changed < 1.0 and (hint := changed or self.faint.get(sq, 0.0)) > 0.0:
                # its look changed a little, and the reader turned to what this leaves there:
                # two hints, each short of sure (bench seed 40: a flat read at 0.75 moved off d4,
                # d4 read empty at 1.00 but its look changed by 1.15 only, p 0.45). A change
                # under what counts as one that still stands out from the board's noise (faint,
                # `change.p_faint`) is a first hint too, on a square the hypothesis alters: fresh
                # bench seed 1440 (tilt 35), a light wall moved onto a5's dark flat from a4 in
                # front of it, where the camera saw it before: a5 changed by 0.61, the reader
                # turned from a dark flat to a wall; seed 1481 (tilt 37), a dark flat placed on
                # b1 changed it by 0.6 (4.7 times the noise), read occupied at 0.44
                changed = 1.0 - (1.0 - hint) * (1.0 - self.turned(sq, old, new))
            structure += W_ALTERED * visible * (1.0 - changed)
            ev = self.evidence.get(sq)
            gain = square_cost(new, ev) - square_cost(old, ev)
            clipped = max(-READING_CLIP, min(READING_CLIP, gain))
            reading += self.p.get(sq, 0.0) * (clipped + BEYOND_CLIP * (gain - clipped))
            against = colour_contradiction(new, ev)
            misread = self._colour_misread(sq, old, new, against)
            contra += contradiction(new, ev) - misread
            colours += against - misread
        for sq, p in self.moved.items():
            if sq in altered:
                continue
            if sq not in near_risen:  # (next to a tall piece the reader sees phantoms)
                contra += self.turned_against[sq]
            discount = (
                NEXT_TO_RISEN if sq in near_tall and self.half_hidden(sq)
                else (NEXT_TO_TALL_READ if sq in near_tall else 1.0)
                if sq in self.reader_moved
                and (sq not in uncovered or self.turned_against[sq] > 0.0)
                else NEXT_TO_RISEN if sq in near_risen
                else NEXT_TO_ALTERED if sq in near
                else NEXT_TO_TALL if sq in self.near_tall
                else 1.0
            )  # fmt: skip
            if sq in shadowed and sq not in self.reader_flipped:
                # the light alone changed: a shadow moved with the stack
                shade = self.light_only.get(sq, 0.0)
                discount = min(discount, 1.0 - (1.0 - IN_SHADOW) * shade)
            structure += W_UNALTERED * discount * p
        return Judged(structure + reading, structure, contra, colours, frozenset(altered),
                      height_against=against_heights, **what)

    def _colour_misread(self, square: str, old: Stack, new: Stack, against: float) -> float:
        """How much of the reader's colour contradiction `against` of `new` on `square` it made
        of `old` too when the board last matched, both tops of one colour: a piece whose colour
        the reader misreads all along says nothing of a ply that leaves that colour on top
        (fresh bench seed 1155: a light flat on c3 read dark at 1.00; a light flat moved onto
        it later was ruled out, and the move the other way was committed quietly)."""
        then = self.accepted.get(square)
        if not old or not new or old[-1][0] != new[-1][0] or then is None:
            return 0.0
        return min(against, colour_contradiction(old, then))

    def _carried_unseen(self, *plies: Ply | None) -> set[str]:
        """The squares spreads among `plies` drop pieces on from a stack the reader did not see
        (`_unseen`): a piece it never saw where it stood hardly changes the look of where it
        goes either (fresh bench seed 1565, 6x6, tilt 19: a light wall on f4, read empty at
        0.87 when placed and at 1.00 after, was moved to f5, each square's look changing by
        1.0; `f4+` missed the structure check, and the game went out of sync for its last 36
        plies)."""
        out: set[str] = set()
        for ply in plies:
            if ply is not None and not ply.is_placement and self._unseen(
                ply.square, self.before.get(ply.square, ())
            ):
                out.update(ply.squares(self.size)[1:])
        return out

    def _unseen(self, square: str, stack: Stack) -> bool:
        """Did the reader, when the board last matched, read `square` empty where the game had
        `stack` on it, or occupied where the game had it empty?"""
        then = self.accepted.get(square)
        return then is not None and (then.p_occupied < 0.5) == bool(stack)

    def turned(self, square: str, old: Stack, new: Stack) -> float:
        """How surely (0..1) the reader turned from `old` on `square` to `new` since the board
        last matched: toward what the hypothesis leaves, or away from what was there, whichever
        says more. A square read doubtfully before gains little toward the new (fresh bench seed
        1560, tilt 27: a dark flat moved off b4, read there at 0.58 before and empty at 1.00
        after, b4's look changing by 0.35; weighed toward the new only, `b4-` scored as if b4
        had hardly turned, and the flat placed on b3, which leaves b4 alone, was committed
        without a mark)."""
        turn = max(-self._reader_turn(square, new), self._reader_turn(square, old))
        return min(1.0, max(0.0, turn) / W_OCCUPIED)

    def _reader_turn(self, square: str, stack: Stack) -> float:
        """How much more surely the reader contradicts `stack` on `square` now than when the
        board last matched (negative: less surely)."""
        return (contradiction(stack, self.evidence.get(square))
                - contradiction(stack, self.accepted.get(square)))  # fmt: skip

    def nothing(self) -> Judged:
        return self.judge(self.before, set())

    def plies(self) -> list[Judged]:
        position, size = self.position, self.size
        out = []
        for ply in list(position.legal_plies):
            touched = ply.squares(size)
            played = position.push(ply)
            try:
                after = {sq: position.stack(sq) for sq in touched}
            finally:
                position.pop()
            altered = {sq for sq in touched if after[sq] != self.before.get(sq, ())}
            judged = self.judge(after, altered, ply=played)
            if ply.is_placement:
                judged = replace(judged, cost=judged.cost + stone_prior(ply))
            out.append(judged)
        return out

    def pairs(self) -> list[Judged]:
        """Two plies, the player to move's and the reply, with no still board between them (a
        quick reply: the second hand came in as the first left, or the camera's view of the
        pause was blocked). Each judged as one hypothesis on the board as both leave it, with
        `ply` the first and `then` the second, both placements paying their stone prior.
        Only pairs that could show are judged (`touching_pairs`, `_shows`): a handful, where
        all of them would be tens of thousands."""
        sure = {sq for sq, p in self.p.items() if p >= SURELY_CHANGED}
        looked = {sq for sq, p in self.p.items() if p >= LOOK_CHANGED}
        out = []
        for first, reply in touching_pairs(self.position, sure):
            squares = {*first.squares(self.size), *reply.squares(self.size)}
            after = {sq: self.position.stack(sq) for sq in squares}
            if not self._shows(after, sure, looked):
                continue
            altered = {sq for sq, st in after.items() if st != self.before.get(sq, ())}
            if unseen_pieces(after, altered, self.evidence) >= UNSEEN_PIECES:
                continue
            judged = self.judge(after, altered, ply=first, then=reply)
            prior = stone_prior(first) + stone_prior(reply)
            out.append(replace(judged, cost=judged.cost + prior))
        return out

    def _shows(self, after: Mapping[str, Stack], sure: set[str], looked: set[str]) -> bool:
        """Does a hypothesis that leaves `after` (its squares) show on a board whose looks
        changed on `looked` and surely on `sure`: a top it changes on a surely changed square,
        and none where nothing changed?"""
        before = self.before
        tops = [sq for sq, st in after.items()
                if (st[-1] if st else None) != (before[sq][-1] if before.get(sq) else None)]
        return any(sq in sure for sq in tops) and all(sq in looked for sq in tops)

    def takebacks(self, depth: int) -> list[Judged]:
        position = self.position
        popped: list[Ply] = []
        out = []
        try:
            for back in range(1, min(depth, position.ply_count) + 1):
                try:
                    popped.append(position.pop())
                except IndexError:  # started from a TPS: nothing before it to go back to
                    break
                after = position.stacks()
                altered = {sq for sq in after.keys() | self.before.keys()
                           if after.get(sq, ()) != self.before.get(sq, ())}  # fmt: skip
                judged = self.judge(after, altered, back=back)
                out.append(replace(judged, cost=judged.cost + TAKEBACK_PRIOR))
        finally:
            for ply in reversed(popped):
                position.push(ply)
        return out

    def ranked(self, takeback_depth: int) -> list[Judged]:
        out = [self.nothing(), *self.plies(), *self.takebacks(takeback_depth)]
        out.sort(key=lambda j: j.cost)  # stable: "nothing happened" wins ties
        return out

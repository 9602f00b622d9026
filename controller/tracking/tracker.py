"""The tracker: a reading and its timestamp in, a list of decisions out. Pure: no camera, no I/O.

    tracker = Tracker(Position(5))
    for reading, t in frames:                 # t in seconds, from the frame source
        for decision in tracker.step(reading, t):
            ...                               # Commit / Ask / Takeback / Illegal / Desync / ...
    tracker.finish()                          # a recording ended: a close call still open is asked

How one stable board is judged (see `gate.py` for when a board counts as stable):
1. Hypotheses, all produced by the rules engine: "nothing happened" (the current position), every
   legal ply of the current position (`legal_plies`, push/pop), and every position of the last
   `takeback_depth` plies (pop/push). Each is scored against the evidence (`scoring.py`); a
   takeback starts `TAKEBACK_PRIOR` dearer (players play a ply every turn, take one back rarely).
2. If the board confidently contradicts even the best hypothesis (`scoring.mismatch` above
   `match_cost`: about one square read surely wrong), and the reader does not read it square by
   square as one legal ply on (then that ply is asked about), the board is in an
   illegal or unknown state: `Illegal(squares that differ from the current position)`. If that lasts
   `desync_after_s`, `Desync(expected TPS)`: nothing is recorded until the board matches again,
   which
   emits `Resynced` (followed by whatever the board now shows: nothing, a ply or a takeback).
3. Otherwise the best wins if it beats the runner-up by `commit_margin`: `Commit(ply)` or
   `Takeback(n)`; "nothing happened" emits nothing. A ply that does not clearly win is judged
   again on every further still frame (the evidence is averaged over more frames) until the board
   has held `ask_after_s`; then it is an `Ask(candidates)`: the position does not advance until
   `accept(ply)` is called. A ply right after an `Illegal`/`Desync` is always asked about: a
   ply may have been missed while the board did not match.
4. After a commit that ends the game (road, full board, reserves) comes `GameOver(outcome)`, and the
   tracker stops.

`Tracker(position, resume=True)` (after a restart, the position replayed from the journal) starts
out of sync: the first still board that does not show `position` gets a `Desync(expected)`, and
nothing (no ply, no takeback) is considered until the board shows it, which gives `Resynced`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from controller.tak import FLAT, WHITE, Ply, Position, TakError
from controller.tracking.by_change import (
    SURELY_CHANGED,
    TAKEBACK_PRIOR,
    TALL,
    UNSEEN_PIECES,
    W_UNALTERED,
    ChangeJudge,
    Judged,
    colour_contradiction,
    neighbours,
    stands_out,
    touching_pairs,
    unseen_pieces,
)
from controller.tracking.change import (
    UNCHANGED_BELOW,
    board_noise,
    changes,
    darkened,
    light_only,
    p_changed,
    p_faint,
)
from controller.tracking.decisions import (
    Ask,
    Candidate,
    Commit,
    Decision,
    Desync,
    GameOver,
    Illegal,
    Resynced,
    Takeback,
    Withdrawn,
)
from controller.tracking.evidence import SquareEvidence, differs, flipped_squares
from controller.tracking.gate import DEFAULT_HOLD_S, StabilityGate, StableReading
from controller.tracking.scoring import mismatch, score_plies, square_costs, wrong_squares

FLIP_MIN_CHANGE = 0.1  # ... and the square's look changed at least this much
FLIP_OVER_NOISE = 4.0  # ... and this many times the board's median change
# ... or at least this much where the reader reads a wall or capstone come (`_stood_up`)
STOOD_UP_MIN_CHANGE = 0.25
# How many plies back a close call may be revised by a later board. Far: a flat taken for a wall
# shows only when a stack is moved onto it, which may be much later (bench seed 22: `Sd5?` at ply
# 6, the spread onto d5 at ply 30; seed 37: a count asked at ply 49 shows at ply 54). Trying is
# cheap (only on a board no ply fits; replaying checks legality, not every legal ply).
REVISE_DEPTH = 60
# A close call revised because a later board fits the other way better (`_hindsight`): better by
# this much, about one square read surely wrong (the match cost). Bench: seed 22's right revision
# came out 0.99 ahead, seed 31's 2.97; a wrong one, found by chance, 0.49.
HINDSIGHT_MARGIN = 0.75
# A flat placed where the look changed this much on a board judged "nothing happened" may have
# been missed (`_missed`): seed 22's light flat changed its square by 0.99; an empty square
# next to seed 41's hand changed by 0.36 and ranked above the ply that was played.
MISSED_FLAT_CHANGE = 0.5
# ... and a wall or capstone placed there is offered too, this much dearer than the flat: the
# reader's commonest miss is a light flat on light wood, but a light wall can go unseen as well
# (fresh bench seed 1565, tilt 19: `Sf4`, read empty at 0.87, was asked about as `f4` alone)
UNSEEN_STANDING = 1.0
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
# A piece read on a square a ply empties, beside a standing piece or a tall stack, this surely
# or less, may be that piece's image: the ply is asked about, not called illegal (`_phantom_left`)
PHANTOM_LEFT = 0.9
# An empty square read empty whose look changed by this much, and this many times the board's
# median change, after a hand: a piece placed there that the reader cannot see
# (`_unseen_after_hand`)
UNSEEN_CHANGE = 0.5
UNSEEN_OVER_NOISE = 10.0
# A placement whose square the reader reads two or more high this surely (height confidence) is
# asked about, not committed quietly (`_placed_tall`)
PLACED_TALL_SURE = 0.85
# Darker by this much (signature units, `change.darkened`), a square a dark piece came to changed
# as that piece changes it, whatever its shadow did (`_dark_piece_came`)
DARK_PIECE_DARKENS = 1.0
# A question's candidates are ordered, and carry as their cost, their cost plus this share of what
# the reader contradicts of them (`_evaluate`'s `close`): enough to order a tie, and a revision
# in hindsight still overcomes a kind the reader misread at 0.8 (a flat taken for a wall, seen
# to be a flat when a wall is moved onto it; with the whole contradiction it no longer did)
ASK_CONTRADICTED = 0.5


def _same_spread(position: Position, ply: Ply) -> list[Ply]:
    """The legal spreads from `ply`'s square, in its direction, ending on its last square, other
    than `ply` itself: what it may have been with another count or other drops."""
    if ply.is_placement:
        return []
    size = position.size
    end = ply.squares(size)[-1]
    return [q for q in position.legal_plies
            if not q.is_placement and q.square == ply.square and q.direction == ply.direction
            and q != ply and q.squares(size)[-1] == end]  # fmt: skip


@dataclass(frozen=True)
class TrackerConfig:
    hold_s: float = DEFAULT_HOLD_S  # the board must hold still this long (seconds)
    commit_margin: float = 0.6  # best must beat the runner-up by this much (cost units)
    match_cost: float = 0.75  # the board may contradict the best hypothesis by at most this
    takeback_depth: int = 20  # how many plies back a takeback may go
    desync_after_s: float = 3.0  # unmatched for this long -> Desync
    # A board that only lacks (part of) one stack the player to move could lift is a spread under
    # way, the lifted pieces in a hand the camera may not see (held high over the far edge, it
    # is imaged beyond the board: bench seeds 10 and 36, "illegal" for 2 s mid-spread). It is
    # reported illegal only once it has stood this long (seconds).
    lifted_grace_s: float = 2.5
    max_candidates: int = 4  # at most this many plies in an Ask
    max_considered: int = 8  # the best-scored hypotheses checked for contradictions
    ask_after_s: float = 0.8  # a close call is re-judged on more frames until the board held this
    # With appearance signatures: the most the pattern of changed squares may misfit the chosen
    # hypothesis (`by_change`: 2 = one square surely changed that it leaves alone)
    structure_ok: float = 0.9
    # judged by change, a placement commits only this far ahead of the same square's other kinds:
    # a flat when the reader is about 93 % sure of it or more (fresh bench seed 520: a wall read
    # as a flat 92 % sure, 1.003 ahead at 1.0, recorded without a `?`; at 1.1, about 97 %, the
    # simulated service camera asked about plain flats, and 6 % more placements were asked)
    kind_margin: float = 1.05
    # ... and a spread this far ahead of the same spread with other counts or drops (they differ
    # in heights only, the reader's weakest calls: bench seed 37, 2c2> recorded as c2>)
    count_margin: float = 1.0


@dataclass(frozen=True)
class Hypothesis:
    """One explanation of the board: `ply` played, or `back` plies taken back, or neither."""

    cost: float
    ply: Ply | None = None
    back: int = 0
    # judged by change (`by_change.py`); None when judged on the reader's answers alone
    structure: float | None = None
    contradiction: float = 0.0
    colour_contradiction: float = 0.0
    height_against: float = 0.0  # see `by_change.Judged`

    def describe(self) -> str:
        if self.ply is not None:
            return self.ply.ptn()
        return f"takeback {self.back}" if self.back else "no change"


@dataclass
class Evaluation:
    """What the tracker looked at for one stable board (kept for debug images and logs)."""

    at: float
    since: float
    evidence: Mapping[str, SquareEvidence]
    ranked: list[Hypothesis]
    decisions: list[Decision] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)


class Tracker:
    def __init__(
        self, position: Position, config: TrackerConfig | None = None, *, resume: bool = False
    ) -> None:
        self.position = position
        self.config = config or TrackerConfig()
        self.gate = StabilityGate(hold_s=self.config.hold_s)
        # tracking, illegal, desync, asking, resuming, over
        self.state = "over" if position.outcome() else ("resuming" if resume else "tracking")
        self.pending: Ask | None = None
        self._undecided: Ask | None = None  # a close call waiting for more still frames
        # the evidence of the last still board that matched the game (what "changed" is against)
        self._accepted: dict[str, SquareEvidence] | None = None
        # ... and its appearance signatures (None: none yet, or the camera moved since)
        self._looks: dict | None = None
        self._undecided_matched: tuple = (None, None)  # the board a close call was made on
        # plies answered after a question: number -> the other candidates, each with how much
        # dearer than the answer it was judged then (for `_revise_asked`)
        self._asked: list[tuple[int, dict[Ply, float]]] = []
        # plies to play again after a revised ply is answered: as recorded, and as the revision's
        # alternative would have them (it may have changed one: `_played_then`)
        self._replay: list[Ply] = []
        self._replay_revised: tuple[Ply, list[Ply]] | None = None
        self._reevaluate = False  # judge the still board again once the pending Ask is answered
        # the unmatched board lacks a stack the player to move may be holding: judged again once
        # it has stood `lifted_grace_s` since `unmatched_since`
        self._lifted_waits = False
        # a spread held back while its pieces may still be in a hand (`_held_in_hand`), with the
        # board it was judged on (evidence, signatures)
        self._held: tuple[Ply, tuple] | None = None
        # plies a board reported illegal fitted, ruled out only by the colour the reader read on
        # the squares named (`_played_over`): ply -> those squares
        self._overruled: dict[Ply, set[str]] = {}
        # the last board judged "nothing happened" after a hand came and went: (changes per
        # square then, the evidence then, the evidence it was compared to), for `_missed`; None
        # once a ply or a takeback has been recorded since
        self._quiet: tuple | None = None
        self._last_stable: StableReading | None = None  # for `judge_again`
        self._faint: dict[str, float] = {}  # `change.p_faint` per square at the last evaluation
        self._light_only: dict[str, float] = {}  # `change.light_only` per square, the same
        # while a question waits: the board (evidence, signatures) from before the ply asked about
        self._darkened: dict[str, float] = {}  # `change.darkened` per square, the same
        self._before_ask: tuple | None = None
        self.changes: dict[str, float] = {}  # change per square at the last evaluation
        # what `_accepted`/`_looks` were before the last commit, and whether the board now shows a
        # ply the service refused (see `retract`)
        self._before_commit: tuple = (None, None)
        self._refused = False
        # (number, ply, the quiet board before it or None) of the last ply committed quietly,
        # judged by this tracker alone: it may have been two plies at once that left the board
        # as it would (`_last_was_two`), or a ply may have been missed on that quiet board
        # before it (`_missed_before_last`)
        self._quiet_commit: tuple[int, Ply, tuple | None] | None = None
        self.unmatched_since: float | None = None
        self.last: Evaluation | None = None

    # -- public ---------------------------------------------------------------------------------

    def step(self, reading, t: float) -> list[Decision]:
        """Feed one frame's reading taken at time `t` (seconds); returns what it decided."""
        if self.state == "over" and not self._asked:
            return []  # (an ending that rests on guesses is watched on: see `_evaluate`)
        if getattr(reading, "relocalised", False):
            self._looks = None  # the camera moved: its pixels are not the ones kept
        stable = self.gate.feed(reading, t)
        if stable is not None:
            self._last_stable = stable
        if stable is None:
            if self._undecided is not None:  # the board did not stay still long enough: ask now
                return self._ask(self._undecided, self._undecided_matched)
            return []
        since = self.unmatched_since
        lifted_waited = (
            self._lifted_waits and since is not None and t - since >= self.config.lifted_grace_s
        )
        if stable.fresh or self._undecided is not None or lifted_waited or (
            self._reevaluate and self.state == "tracking"
        ):
            self._lifted_waits = False
            self._reevaluate = False
            self._refused = False
            return self._evaluate(stable)
        if (self.state == "tracking" and self._looks is not None and stable.appearance is not None
                and not self._refused and not self._lifted_waits):
            # Still, and nothing happening: follow the light (drift, LEDs lit after a commit).
            # (Not while a board that lacks a lifted stack waits: it is no reference.)
            self._accepted, self._looks = dict(stable.evidence), stable.appearance
        if (
            self.state == "illegal"
            and self.unmatched_since is not None
            and t - self.unmatched_since >= self.config.desync_after_s
        ):
            return [self._desync(stable.evidence)]
        return []

    def finish(self) -> list[Decision]:
        """The frames have ended (a recording's last frame): a close call still waiting for more
        still frames to settle it is asked about now, as when a hand comes back. A video may end
        a second after the last ply (bench seed 120: its last placement 0.5 ahead of a spread,
        judged on the first still frame, and 0.6 s of frames after that); nothing more will
        settle it, and a ply that was played must not go unrecorded."""
        if self._held is not None:  # no hand will come back now
            held, self._held = self._held, None
            return self._commit_held(held)
        if self._undecided is None:
            return []
        return self._ask(self._undecided, self._undecided_matched)

    @property
    def hand_left_no_trace(self) -> bool:
        """Since the last ply or takeback, a hand came and went and the board looked as before.
        Usually nothing (a piece straightened); but a piece moved onto a stack with the same top
        changes no square's look from above, and such a ply is only found when a later board
        shows it was missed (`_missed`). At the end of a recording nothing later will: the
        recorder says so (fresh bench seed 114: its last ply, `e5-` at tilt 4)."""
        return self._quiet is not None

    def accept(self, ply: Ply, *, guess: bool = False, then: Ply | None = None) -> list[Decision]:
        """Resolve an `Ask` (or correct by hand): play `ply` in the tracked position.

        `guess`: nobody answered; this is the best candidate taken as a guess (the offline
        recorder, which has nobody to ask). A guess stays open to revision by later boards
        (`_revise`, `_revise_by_board`, `_hindsight`); a person's answer is the game's truth
        and is never asked again.
        `then`: the reply of the candidate chosen when the question was about two plies at once
        (`Candidate.then`), played after `ply`; without it, that of the first candidate asked
        with `ply` (a ply typed by hand that is one of them)."""
        asked = self.pending
        played = self.position.play(ply)
        self.pending = self._before_ask = None
        self.state = "tracking"
        if asked is not None and guess:  # kept for revision, even with no other candidate
            cost = next((c.cost for c in asked.candidates if c.ply == played), 0.0)
            others = {c.ply: max(0.0, c.cost - cost) for c in asked.candidates if c.ply != played}
            self._asked.append((self.position.ply_count, others))
        out: list[Decision] = [Commit(played, 0.0, self.position.ply_count)]
        if then is None and asked is not None:
            then = next((c.then for c in asked.candidates if c.ply == played), None)
        if then is not None and then in self.position.legal_plies:  # two plies seen at once
            reply = self.position.play(then)
            out.append(Commit(reply, 0.0, self.position.ply_count))
        # a revised ply: the plies recorded after it are played again on top of the answer
        replay = self._replay
        if self._replay_revised is not None and self._replay_revised[0] == played:
            replay = self._replay_revised[1]
        for later in replay:
            again = self.position.play(later)
            out.append(Commit(again, 0.0, self.position.ply_count))
        self._replay, self._replay_revised = [], None
        return out + self._game_over()

    def decline(self) -> bool:
        """A person answers the pending `Ask` with "none of these: nothing was played" (a hand
        that only straightened a piece, a board that barely changed: `_close_to_nothing`). The
        board asked about stays the one the next is compared to, and nothing is recorded.
        False when the question cannot be declined so (none pending, or one about a revised ply
        or a ply missed before: the board then fits nothing as the game stands; judge it anew)."""
        if self.pending is None or self._before_ask is None or self._replay_revised is not None:
            return False
        self.pending = self._before_ask = None
        self.state = "tracking"
        return True

    def correct_last(self, ply: Ply) -> Ply:
        """A person says the last ply was `ply`, not the one played in the tracked position (a
        quiet commit gone wrong): replace it. The board has not changed since, so the board as
        matched stays the one to compare the next with; and a person's word is never revised.
        Raises TakError if `ply` is not legal there (the position is then as it was)."""
        last = self.position.pop()
        try:
            played = self.position.play(ply)
        except TakError:
            self.position.push(last)
            raise
        number = self.position.ply_count
        self._asked = [(n, o) for n, o in self._asked if n != number]
        self._quiet = None
        self.pending = self._before_ask = self._undecided = None
        self.state = "tracking" if self.position.outcome() is None else "over"
        return played

    def judge_again(self) -> list[Decision]:
        """Judge the last still board again now, when an answer asked for that (`accept` of a
        revised ply or of a ply that was not seen): the board may already show the ply after it.
        [] otherwise. Live, the next still frame does the same; a recorder fed frame by frame
        calls it, since the hand may come back before another still frame."""
        if not self._reevaluate or self.state != "tracking" or self._last_stable is None:
            return []
        self._reevaluate = False
        return self._evaluate(self._last_stable)

    def retract(self) -> None:
        """Undo the last `Commit` as if it had not been seen (the service refused it: not the
        computer's ply). The board still shows it; nothing is judged again until the board
        changes, and a change is then judged against the position and the board from before
        (the refused board is not taken as the new reference while it stands)."""
        self.position.pop()
        self._accepted, self._looks = self._before_commit
        self._refused = True
        self.state = "tracking" if self.position.outcome() is None else "over"

    @property
    def expected(self) -> str:
        """TPS of the position the board should show now."""
        return self.position.tps()

    # -- internals ------------------------------------------------------------------------------

    def _rank(self, evidence: Mapping[str, SquareEvidence]) -> list[Hypothesis]:
        position = self.position
        same = sum(square_costs(position, evidence).values())
        ranked = [Hypothesis(same)]
        ranked += [Hypothesis(s.cost, ply=s.ply) for s in score_plies(position, evidence)]
        popped: list[Ply] = []
        try:
            for back in range(1, min(self.config.takeback_depth, position.ply_count) + 1):
                try:
                    popped.append(position.pop())
                except IndexError:  # started from a TPS: no history before that to go back to
                    break
                cost = sum(square_costs(position, evidence).values()) + TAKEBACK_PRIOR
                ranked.append(Hypothesis(cost, back=back))
        finally:
            for ply in reversed(popped):
                position.push(ply)
        ranked.sort(key=lambda h: h.cost)  # stable: "no change" wins ties
        return ranked

    def _mismatch(
        self,
        hypothesis: Hypothesis,
        evidence: Mapping[str, SquareEvidence],
        changed: set[str] | None = None,
    ) -> float:
        """How confidently the board contradicts one hypothesis (the position is restored).

        With `changed` (squares whose reading changed since the board last matched the game), only
        those and the squares the hypothesis itself alters are counted: a square the reader has
        been misreading the same way all along is not news, and must not stall the game.
        """
        position = self.position
        before = position.stacks() if changed is not None else {}

        def judge() -> float:
            if changed is None:
                return mismatch(position, evidence)
            after = position.stacks()
            altered = {sq for sq in before.keys() | after.keys() if before.get(sq) != after.get(sq)}
            return mismatch(position, evidence, changed | altered)

        if hypothesis.ply is not None:
            position.push(hypothesis.ply)
            try:
                return judge()
            finally:
                position.pop()
        popped = [position.pop() for _ in range(hypothesis.back)]
        try:
            return judge()
        finally:
            for ply in reversed(popped):
                position.push(ply)

    def _lifted(self, evidence: Mapping[str, SquareEvidence],
                p: Mapping[str, float]) -> str | None:  # fmt: skip
        """Does the board differ from the last one matched only by pieces gone from one stack whose
        top the player to move controls (a spread under way, the lifted pieces in a hand)? The
        square surely changed, and the reader sees it empty now, or lower, or topped by another
        colour; any other square that surely changed is its neighbour and reads as it did (a
        stack lifted uncovers the square behind it in the camera's view: fresh bench seed 1416,
        tilt 35, a3's three lifted and a4 behind changed by 2.25, read unchanged). The square,
        or None."""
        moved = [sq for sq, q in p.items() if q >= 0.5]
        if not moved or self._accepted is None or self.position.ply_count < 2:
            return None
        then = self._accepted
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

    def _changed(
        self, evidence: Mapping[str, SquareEvidence],
        since: Mapping[str, SquareEvidence] | None = None,
    ) -> set[str] | None:
        """Squares whose reading changed since the board last matched the game, or since the
        board read as `since` (None: unknown)."""
        then = self._accepted if since is None else since
        if then is None:
            return None
        return {sq for sq, ev in evidence.items() if sq not in then or differs(ev, then[sq])}

    def _evaluate(self, stable: StableReading) -> list[Decision]:
        evidence = stable.evidence
        self._undecided = None
        if self.state == "resuming":
            return self._resume(stable)
        if self.pending is not None and self._back_before_ask(stable):
            return self._withdraw(stable)
        cfg = self.config
        changed = self._changed(evidence)
        by_change = self._looks is not None and stable.appearance is not None
        if by_change:
            self.changes = changes(stable.appearance, self._looks)  # type: ignore[arg-type]
            p = {sq: p_changed(c) for sq, c in self.changes.items()}
            # A light flat on light wood, seen from straight above, barely changes a square's
            # colours (0.46 on bench seed 23, the other squares 0.05): when the reader surely saw
            # a piece come or go there and the look changed well above this board's noise, that
            # is a change (fresh bench seed 1498, tilt 4.5: a light flat came to b4 by 0.17 and
            # left it by 0.15, the noise 0.035). (A phantom the reader starts seeing on an
            # untouched square is not.)
            floor = board_noise(self.changes)
            looked = dict(p)
            for sq in flipped_squares(evidence, self._accepted or {}):
                change = self.changes.get(sq, 0.0)
                if change >= max(FLIP_MIN_CHANGE, FLIP_OVER_NOISE * floor) or (
                    change >= STOOD_UP_MIN_CHANGE and self._stood_up(sq, evidence, looked)
                ):
                    p[sq] = 1.0
            self._faint = {sq: p_faint(c, floor) for sq, c in self.changes.items()}
            self._light_only = light_only(stable.appearance, self._looks)  # type: ignore[arg-type]
            self._darkened = darkened(stable.appearance, self._looks)  # type: ignore[arg-type]
            judge = self._judge(self.position, evidence, p, changed)
            ranked = [
                Hypothesis(j.cost, j.ply, j.back, j.structure, j.contradiction,
                           j.colour_contradiction, j.height_against)
                for j in judge.ranked(cfg.takeback_depth)
            ]
        else:
            self.changes, self._faint = {}, {}
            ranked = self._rank(evidence)
        evaluation = Evaluation(stable.at, stable.since, evidence, ranked[:8])
        self.last = evaluation
        def fits(h: Hypothesis) -> bool:
            # Judged by change: the pattern of changed squares must fit it (the reader's answers
            # on those squares only rank). Otherwise, the best hypothesis the board does not
            # confidently contradict: one ranked above it was contradicted (a square surely
            # occupied where it wants none, a colour surely wrong); a misread height may make
            # such a one cheap, but it cannot be what happened.
            if h.structure is not None:
                return self._fits_by_change(h)
            return self._mismatch(h, evidence, changed) <= cfg.match_cost

        chosen = next((i for i, h in enumerate(ranked[: cfg.max_considered]) if fits(h)), None)
        held, self._held = self._held, None
        if chosen is None and held is not None and self.state == "tracking":
            # the hand came back with no pieces to drop: the spread held back was played, and
            # this board is the next ply's
            return self._commit_held(held) + self._evaluate(stable)
        if chosen is not None and held is not None and self.state == "tracking" and by_change:
            after_held = self._held_then(held, ranked[chosen], stable)
            if after_held:
                evaluation.decisions = after_held
                return after_held
        if self.state == "over":
            # The game ended on a position that rests on guesses: a ply played after the end
            # (no hypothesis fits) shows a guess was wrong (bench seed 37: one flat spread where
            # two were, `c2>?`, left a flat on c2 that completed a road the real game did not
            # have, and the recording ended 1 ply early). Nothing else is reported after the end.
            if chosen is None and by_change:
                evaluation.decisions = self._revise(evidence, p, changed)
            return evaluation.decisions
        if chosen is None and by_change and self.state in ("illegal", "desync"):
            # A board put back by hand is rarely put back to the pixel: the reader may judge it.
            same = Hypothesis(sum(square_costs(self.position, evidence).values()))
            if self._mismatch(same, evidence, changed) <= cfg.match_cost:
                ranked, chosen = [same], 0
        if chosen is None and by_change and self.state in ("tracking", "illegal"):
            revised = (
                (self._revise(evidence, p, changed) if self.state == "tracking" else [])
                or self._missed(evidence, p, changed)
                or self._revise_by_board(evidence, stable.appearance)
            )
            if revised:
                evaluation.decisions = revised
                return revised
        if chosen is None and by_change and self.state in ("tracking", "illegal"):
            split = self._missed_before_last(evidence, p, changed) or self._last_was_two(
                evidence, p, changed
            )
            if split:
                evaluation.decisions = split
                return split
        if chosen is None and by_change and self.state in ("tracking", "illegal"):
            # (before the reader's whole-board reading of one ply: a pair that explains every
            # change beats one ply that leaves a square surely changed unexplained)
            both = self._two_plies(evidence, p, changed, stable.appearance)
            if both:
                evaluation.decisions = both
                return both
        if chosen is None and by_change and self.state == "tracking":
            # (after two plies at once: a placement revised to a spread onto its square fits a
            # quick reply's board by chance; quick-reply bench seed 323)
            revised = self._revise_onto_placed(evidence, p, changed)
            if revised:
                evaluation.decisions = revised
                return revised
        if chosen is None and by_change and self.state == "tracking":
            # (before the reader's whole-board reading: a ply that fits every change, the reader
            # contradicting it only where it saw no piece, beats one that leaves a sure change
            # unexplained; fresh bench seed 811: `b1`, read empty, against `c3+`, unseen)
            unseen = self._placed_unseen(ranked, evidence, stable.appearance) or (
                self._phantom_left(ranked, evidence, stable.appearance)
            )
            if unseen:
                evaluation.decisions = unseen
                return unseen
        if chosen is None and by_change and self.state in ("illegal", "desync"):
            over = self._played_over(evidence, p, changed, stable.appearance)
            if over:
                evaluation.decisions = over
                return over
        if chosen is None and by_change and self._lifted_wait(stable, p, changed or set()):
            # (before the reader's whole-board reading: pieces lifted off one stack, and the
            # reader reading every other square as it did, is a spread under way, the pieces in
            # a hand held out of view; the stack's neighbours, read as they were, are what the
            # reader reads of a spread onto them that the looks say did not happen; fresh bench
            # seed 1416)
            return []
        if chosen is None and by_change and self.state in ("tracking", "illegal", "desync"):
            shown = self._shown_by_board(evidence, stable.appearance)
            if shown:
                evaluation.decisions = shown
                return shown
        if chosen is None and by_change and self.state in ("tracking", "illegal"):
            shown = self._pair_shown_by_board(evidence, p, stable.appearance)
            if shown:
                evaluation.decisions = shown
                return shown
        if chosen is None:
            wrong = wrong_squares(self.position, evidence)
            if by_change:  # the squares that changed (the reader may be wrong on the others)
                moved = sorted(sq for sq, c in self.changes.items() if p_changed(c) >= 0.5)
                evaluation.wrong = moved or wrong
            else:
                evaluation.wrong = [sq for sq in wrong if changed is None or sq in changed] or wrong
            if self.unmatched_since is None:
                self.unmatched_since = stable.since
            if self.state == "desync":
                return []
            if by_change and self._lifted_wait(stable, p):
                return []
            if stable.at - self.unmatched_since >= cfg.desync_after_s:
                evaluation.decisions = [self._desync(evidence)]
            else:
                if self.state == "tracking" and by_change:
                    self._overruled = self._by_colour_only(ranked, evidence)
                self.state = "illegal"
                evaluation.decisions = [Illegal(tuple(evaluation.wrong))]
            return evaluation.decisions

        best, below = ranked[chosen], ranked[chosen + 1 :]  # contradicted ones above: out
        if self.state == "asking" and best.ply is None and not best.back:
            return []  # the board asked about, still: the question stands
        runner_up = below[0].cost if below else math.inf
        out: list[Decision] = []
        after_unmatched = self.state in ("illegal", "desync")
        if after_unmatched:
            out.append(Resynced())
        self.state = "tracking"
        self.unmatched_since = None
        self.pending = self._before_ask = None
        margin = runner_up - best.cost
        needed = cfg.commit_margin

        def rival_within(margin: float, alike) -> bool:
            """A ply `alike` the best scores within `margin` of it."""
            return any(h.ply is not None and alike(h.ply) and h.cost - best.cost < margin
                       for h in below[: cfg.max_considered])  # fmt: skip

        if by_change and best.ply is not None:
            ply = best.ply
            # the same square with another kind: the reader's kind calls are its weakest
            if ply.is_placement and rival_within(
                cfg.kind_margin, lambda q: q.is_placement and q.square == ply.square
            ):
                needed = cfg.kind_margin
            # the same spread with other counts: told apart by heights only
            if not ply.is_placement and rival_within(
                cfg.count_margin,
                lambda q: not q.is_placement and q.square == ply.square
                and q.direction == ply.direction,
            ):
                needed = max(needed, cfg.count_margin)
        # the reader confidently contradicts the best on a square it alters, or reads a placed
        # piece surely two high: never commit that
        doubted = ((best.structure is not None and best.contradiction > cfg.match_cost)
                   or self._placed_tall(best.ply, evidence))  # fmt: skip
        matched = (dict(evidence), stable.appearance)  # kept once the game matches the board

        def close() -> Ask:
            """The plies that explain the board about as well as the best, best first."""
            alike = [
                h for h in [best, *below]
                if h.ply is not None and (
                    h.cost - best.cost < needed
                    or (doubted and h.structure is not None and h.structure <= cfg.structure_ok))
            ]  # fmt: skip
            # best first, each weighed with what the reader contradicts of it (heights it saw
            # stay unchanged where a candidate grows or shrinks a stack count too: not in the
            # cost, see `by_change.height_news`) and with faint changes another candidate
            # explains and this one leaves alone. The candidates carry these weights, so that a
            # revision later finds each alternative as much dearer as it was ordered (fresh
            # bench seed 1150: `c3<` and `c3-` tied on cost, the reader contradicting `c3-` on
            # c2 by 1.0; `c3-` was guessed, and 25 plies later a revision of it was preferred
            # to one of a later call that was 0.45 dearer, and wrong)
            weighed = sorted((h.cost + ASK_CONTRADICTED * h.contradiction
                              + self._faint_left(h, alike), i)
                             for i, h in enumerate(alike))  # fmt: skip
            return Ask(tuple(Candidate(alike[i].ply, score)
                             for score, i in weighed)[: cfg.max_candidates])  # fmt: skip

        if best.ply is not None and by_change and not after_unmatched:
            both = self._pair_instead(evidence, p, changed, best, stable.appearance,
                                      held=held[0] if held is not None else None)
            if both:
                evaluation.decisions = both
                return both
        quiet_before = self._quiet  # goes with a quiet commit (`_missed_before_last`)
        if best.ply is not None or best.back:
            self._quiet = None  # a ply missed before this one can no longer be told (`_missed`)
        if best.ply is not None:
            if after_unmatched:
                # The board was unreadable or wrong before this: a ply may have been made then and
                # missed, and the board may show two plies that happen to look like one. Never
                # commit that quietly.
                why = "the board did not match the game just before"
                out += self._ask(Ask(close().candidates, why), matched)
            elif (margin >= needed and not doubted and by_change
                  and self._held_in_hand(best, evidence, p, stable)):  # fmt: skip
                self._held = (best.ply, matched)  # judged again when it has stood, or on the
                # next board
            elif margin >= needed and not doubted and by_change and (
                ghost_rival := self._ghost_rival(best, ranked, evidence, p)
            ):
                out += self._ask(ghost_rival, matched)
            elif margin >= needed and not doubted:
                self._before_commit = (self._accepted, self._looks)
                played = self.position.push(best.ply)  # legal: it came from legal_plies
                self._quiet_commit = (self.position.ply_count, played, quiet_before)
                out.append(Commit(played, margin, self.position.ply_count))
                out += self._game_over()
                self._accepted, self._looks = matched
            elif stable.at - stable.since + 1e-9 < cfg.ask_after_s:
                self._undecided = close()  # more frames average the noise out; judge again
                self._undecided_matched = matched
            else:
                revised = self._hindsight(evidence, p, changed, best) if by_change else []
                if revised:
                    evaluation.decisions = revised
                    return revised
                out += self._ask(close(), matched)
        elif best.back:
            if margin >= cfg.commit_margin and not doubted:
                for _ in range(best.back):
                    self.position.pop()
                out.append(Takeback(best.back))
                self._accepted, self._looks = matched
        else:
            # nothing happened: this is the board to compare the next one to
            unseen = (self._unseen_after_hand(ranked, stable)
                      or self._close_to_nothing(best, below, stable)) if by_change else []
            if unseen:
                evaluation.decisions = unseen
                return unseen
            if stable.after_hand and by_change and self._accepted is not None:
                self._quiet = (dict(self.changes), dict(evidence), self._accepted)
            self._accepted, self._looks = matched
        evaluation.decisions = out
        return out

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
        if stable.at - stable.since >= self.config.lifted_grace_s:
            return False
        self.unmatched_since = stable.since  # (the clock `step` judges `lifted_grace_s` by)
        self._lifted_waits = True
        return True

    def _placed_tall(self, ply: Ply | None, evidence) -> bool:
        """Is `ply` a placement on a square the reader surely reads two or more pieces high? A
        placement makes a stack of one; one piece off is no contradiction of a stack's height
        (`scoring.contradiction`), but a single new piece read as two, surely, is more likely
        pieces carried there by a spread the game as recorded cannot make (fresh bench seed
        1272, from straight above: after a guess gone wrong, `2b5<` onto a5 fitted no ply, and
        `a5`, a5 read two high at 0.87, was committed quietly)."""
        if ply is None or not ply.is_placement:
            return False
        ev = evidence.get(ply.square)
        return (ev is not None and ev.p_occupied >= 0.5 and ev.height >= 1.5
                and ev.height_weight >= PLACED_TALL_SURE)

    def _stood_up(self, square: str, evidence, p: Mapping[str, float]) -> bool:
        """Does the reader read a wall or capstone come to `square`, empty in the game, with a
        neighbour's look surely changed? A standing piece seen from the side rises over the
        square behind it, and its own square's look may change little (fresh bench seed 1179,
        tilt 37: a dark wall placed on b3, read at 0.89, changed b3's look by 0.38 against a
        board noise of 0.11, and b4 behind it by 2.3; the placement missed the structure check,
        and the game was out of sync from its 13th ply)."""
        ev = evidence.get(square)
        if ev is None or self.position.stack(square) or ev.p_occupied < 0.5:
            return False
        if ev.p_kind[1] + ev.p_kind[2] < 0.5:
            return False
        return any(p.get(n, 0.0) >= SURELY_CHANGED for n in neighbours(square, self.position.size))

    def _held_then(self, held: tuple[Ply, tuple], best: Hypothesis,
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
        ply, other = held[0], best.ply
        if best.back and other is None:
            if self._after_held(held, stable) is None:
                return []
            return self._commit_held(held) + self._evaluate(stable)
        if (other is None or other.is_placement or other.square != ply.square
                or other.direction != ply.direction):  # fmt: skip
            return []
        found = self._after_held(held, stable)
        if found is None:
            return []
        played, after = found
        self._quiet = None
        ask = Ask((Candidate(played, after.cost + after.contradiction, then=after.ply),
                   Candidate(other, best.cost + best.contradiction)),
                  f"the spread held back, then the next ply: {played.ptn()} then "
                  f"{after.ply.ptn()}")  # fmt: skip
        return self._ask_on_board(ask, stable.evidence, stable.appearance)

    def _after_held(self, held: tuple[Ply, tuple],
                    stable: StableReading) -> tuple[Ply, Judged] | None:  # fmt: skip
        """The held spread as played, and the ply after it that best fits this board by what
        changed since the held board (the reader not contradicting it); None if none fits."""
        ply, (then_evidence, then_looks) = held
        if then_looks is None:
            return None
        evidence = stable.evidence
        looks = changes(stable.appearance, then_looks)  # type: ignore[arg-type]
        p = {sq: p_changed(c) for sq, c in looks.items()}
        floor = board_noise(looks)
        faint = {sq: p_faint(c, floor) for sq, c in looks.items()}
        moved = self._changed(evidence, then_evidence)
        position, cfg = self.position, self.config
        played = position.push(ply)
        try:
            judge = ChangeJudge(position, evidence, p, moved, then_evidence, faint,
                                light_only(stable.appearance, then_looks))  # fmt: skip
            nexts = [j for j in judge.plies() if self._fits_by_change(j)
                     and j.contradiction <= cfg.match_cost]  # fmt: skip
        finally:
            position.pop()
        if not nexts:
            return None
        return played, min(nexts, key=lambda j: j.cost + j.contradiction)

    def _commit_held(self, held: tuple[Ply, tuple]) -> list[Decision]:
        """Commit the spread `_held_in_hand` held back; its board becomes the one to compare the
        next to."""
        ply, matched = held
        self._before_commit = (self._accepted, self._looks)
        played = self.position.push(ply)
        out: list[Decision] = [Commit(played, self.config.commit_margin, self.position.ply_count)]
        out += self._game_over()
        self._accepted, self._looks = matched
        self._lifted_waits, self.unmatched_since = False, None
        return out

    def _faint_left(self, h: Hypothesis, rivals: list[Hypothesis]) -> float:
        """How much faint change (`change.p_faint`) `h` leaves unexplained on squares a rival
        alters: what orders the candidates of a question beyond their costs. In the cost, a
        square's change below `UNCHANGED_BELOW` is credited to a ply that alters it out of sight
        (a flat moved off a stack of its colour) but charged to none that leaves it alone (it
        may be noise, or a placed piece's edge): so a placement beside such a stack came first
        whatever the stack's square showed. On the stored readings of 19 bench games, of 34
        questions between a placement and a spread onto its square, the spread was played in
        each of the 9 where its source changed by 0.24 or more above the board's noise, and the
        placement in the others but one (seed 46: 0.21). Before, 4 of those 9 were guessed the
        placement (seeds 13, 118, 224, 501). Only the order: what is asked stays the same."""
        size = self.position.size
        mine = set(h.ply.squares(size)) if h.ply is not None else set()
        theirs = {sq for r in rivals if r is not h and r.ply is not None
                  for sq in r.ply.squares(size)}  # fmt: skip
        return sum(W_UNALTERED * self._faint.get(sq, 0.0) for sq in theirs - mine)

    def _judge(self, position: Position, evidence, p, changed) -> ChangeJudge:
        """A judge of `position` against the board of the last evaluation, by its changes."""
        return ChangeJudge(position, evidence, p, changed, self._accepted, self._faint,
                           self._light_only)

    def _fits_by_change(self, judged: Hypothesis | Judged) -> bool:
        """A hypothesis judged by change fits the board: the pattern of changed squares misfits
        it by at most `structure_ok`, and the reader does not surely contradict it on a square
        it alters about a piece being there or its colour."""
        cfg = self.config
        return (judged.structure is not None and judged.structure <= cfg.structure_ok
                and judged.colour_contradiction <= cfg.match_cost)  # fmt: skip

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

    def _revise_onto_placed(self, evidence, p, changed) -> list[Decision]:
        """As `_revise`, with the spreads onto a recently asked placement's square in its place
        (`_onto_placed`). Only when no candidate asked about fits (fresh bench seed 604: `d4?`,
        guessed for `Sd4`, made a road that the next ply showed false, and `c4>` fitted that
        ply as well as `Sd4`), and no two plies at once (quick-reply bench seed 323: `c1`
        revised to `d1<` on a quick reply's board, which it fitted by chance)."""

        def fits(dearer: float) -> float | None:
            return self._revision_score(evidence, p, changed, dearer)

        return self._revise_asked(self._onto_placed, fits, "a later board fits only this one")

    def _hindsight(self, evidence, p, changed, best: Hypothesis) -> list[Decision]:
        """The board fits a ply only as a close call: would it fit one clearly better had a recent
        close call gone another way? A flat taken for a wall, or a spread's counts taken wrong,
        show when a later ply moves onto that square: the later ply then looks like some other
        ply, one the reader contradicts (bench seed 22: a wall moved onto a flat taken for a wall
        at ply 6 was taken for a wall moved onto a square the reader surely saw empty) or one
        that fits poorly (seed 31: a spread of one where two were carried, then two plies later
        a stack one too short).

        A ply is weighed with what the reader contradicts of it, and a revision with how much
        dearer its alternative was judged when asked about (one not asked about: at least the
        commit margin); the revision must come out ahead by `HINDSIGHT_MARGIN`. Among the many
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
                                  unasked_dearer=cfg.commit_margin)  # fmt: skip

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
        if mismatch(self.position, evidence) <= self.config.match_cost:
            return []

        def shows(dearer: float) -> float | None:  # the board, square by square, shows it
            cost = mismatch(self.position, evidence)
            return cost + dearer if cost <= self.config.match_cost else None

        revised = self._revise_asked(self._from_square, shows, "the board shows this one")
        if revised:
            self._accepted, self._looks = dict(evidence), appearance
            self.unmatched_since = None
        return revised

    def _shown_by_board(self, evidence, appearance) -> list[Decision]:
        """The board fits no ply by what changed, but the reader, square by square, reads the
        position one legal ply on (no square confidently contradicted): a ply whose squares did
        not all change their look as it would have them (fresh bench seed 204, tilt 39: a
        capstone moved onto a flat of its colour, from above a dark disc on a dark tile, changed
        its new square's look by 0.22; the reader read the capstone at 1.00, and the game went
        out of sync for good). Asked about, never committed quietly, like every ply after a
        board that did not match; in desync too, where it resumes the recording.

        Judged on every square, so a reader that misreads a square all along (a phantom beside
        a tall stack) never lets this through: it only catches what the changes missed."""
        position, cfg = self.position, self.config
        found: list[tuple[float, Ply]] = []
        for ply in list(position.legal_plies):
            played = position.push(ply)
            try:
                cost = mismatch(position, evidence)
            finally:
                position.pop()
            if cost <= cfg.match_cost:
                found.append((cost, played))
        if not found:
            return []
        found.sort(key=lambda f: f[0])
        ask = Ask(tuple(Candidate(ply, cost) for cost, ply in found[: cfg.max_candidates]),
                  "the board shows this ply, though not every square it moves looks changed")
        return self._ask_on_board(ask, evidence, appearance)

    def _by_colour_only(self, ranked: list[Hypothesis], evidence) -> dict[Ply, set[str]]:
        """Plies that fit what changed, ruled out only by the colour the reader reads on squares
        they leave a piece on (every other square read as they leave it): ply -> those squares."""
        position, cfg = self.position, self.config
        out: dict[Ply, set[str]] = {}
        for h in ranked[: cfg.max_considered]:
            if (h.ply is None or h.structure is None or h.structure > cfg.structure_ok
                    or h.colour_contradiction <= cfg.match_cost):  # fmt: skip
                continue
            position.push(h.ply)
            try:
                wrong = set(wrong_squares(position, evidence))
                tops = {sq for sq in wrong if position.stack(sq)
                        and evidence[sq].p_occupied >= 0.5}  # fmt: skip
            finally:
                position.pop()
            if wrong and wrong == tops:
                out[h.ply] = wrong
        return out

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

    def _ask_on_board(self, ask: Ask, evidence, appearance) -> list[Decision]:
        """Ask `ask` about this board, which no one ply fitted by what changed: after `Resynced`
        when the board did not match the game before (illegal, desync), which it now may."""
        out: list[Decision] = [Resynced()] if self.state in ("illegal", "desync") else []
        self.unmatched_since = None
        return out + self._ask(ask, (dict(evidence), appearance))

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
        revised = self._revise_for_pair(evidence, p, changed, candidates)
        if revised:
            return revised
        if not candidates:
            return []
        self._quiet = None
        ask = Ask(self._with_first_alone(candidates),
                  f"two plies at once: {candidates[0].describe()}")  # fmt: skip
        return self._ask_on_board(ask, evidence, appearance)

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
        says nothing of it (fresh bench seed 1589: a game already lost to a quick reply
        revised ply 34, 20 plies back, from right to wrong, for a pair on other squares)."""
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
        next to a stack of `TALL` pieces or more, where the reader sees phantoms, the ply alone
        comes first (fresh bench seed 914: `d3-` beside a four-stack, d3 then read occupied at
        0.69, was asked about only as "d3- then Sd3"; the guess ran the game off by a ply, and
        one ply later went wrong unmarked); else last (quick-reply games on the tracker's own
        readings, seed 305: `c5>` and at once `c5` beside a stack of three, the new c5 read at
        0.87, is the pair)."""
        best = pairs[0]
        reply, size = best.then, self.position.size
        if reply is None or not reply.is_placement or best.ply.is_placement:
            return pairs
        if reply.square not in best.ply.squares(size) or self.last is None:
            return pairs
        cfg = self.config
        alone = next((h for h in self.last.ranked if h.ply == best.ply), None)
        if (alone is None or alone.structure is None or alone.structure > cfg.structure_ok
                or alone.colour_contradiction > 2 * cfg.match_cost):  # fmt: skip
            return pairs
        single = Candidate(best.ply, alone.cost + alone.contradiction)
        position = self.position
        position.push(best.ply)
        try:
            phantoms = any(len(position.stack(sq)) >= TALL for sq in neighbours(reply.square, size))
        finally:
            position.pop()
        if phantoms and alone.colour_contradiction <= PHANTOM_DOUBT:
            return (single, *pairs)[: cfg.max_candidates]
        return (*pairs[: cfg.max_candidates - 1], single)

    def _pairs(self, evidence, p, changed) -> tuple[Candidate, ...]:
        """Pairs of plies that fit the board by change, and that the reader does not confidently
        contradict (a pair may pile pieces out of the reader's sight, and only its heights then
        tell it from a spread still in hand), scored by cost and contradiction (`_best_pairs`)."""
        judge = self._judge(self.position, evidence, p, changed)
        return self._best_pairs([
            Candidate(j.ply, j.cost + j.contradiction, then=j.then)  # type: ignore[arg-type]
            for j in judge.pairs()
            if self._fits_by_change(j) and j.contradiction <= self.config.match_cost
        ])

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
        left = [sq for sq, q in p.items() if q >= SURELY_CHANGED and sq not in touched]
        # The pair's first ply a spread the camera saw on a still board before this one, held
        # back while its pieces might still be in a hand: the squares it emptied are the ones
        # read as phantoms, and the pair comes first (fresh bench seed 1203, tilt 7: `e5<` held
        # back, then a capstone placed on e4 at once; e5 beside it read occupied at 0.7, "Ce4
        # alone" was guessed, and the game went out of sync after a silent error)
        seen_first = held is not None and pairs[0].ply == held
        if not seen_first and (self._beside_raised(best.ply, left)
                               or self._beside_standing(best.ply, left, evidence)):
            # the changes the ply leaves are where a stack it raised shows phantoms: the ply
            # alone first (fresh bench seed 716: `2c2-` onto c1, four high, with a dark flat
            # read at 0.96 beside it on d1, guessed "2c2- then d1"; the game ran a ply off for
            # 9 plies, then 2 off, and 9 plies were recorded wrong without a mark)
            candidates = (alone, *(c for c in candidates if c != alone))
        ask = Ask(candidates[: self.config.max_candidates],
                  f"two plies at once: {pairs[0].describe()} (or {best.ply.ptn()} alone)")
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
            return ev.p_kind[0] < 0.5 and p_own >= 0.5

        return bool(squares) and all(
            sq in beside and (evidence[sq].p_occupied <= PHANTOM_OCCUPIED or image(evidence[sq]))
            for sq in squares
        )

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
            return self._shade_moved(sq) and not self._dark_piece_came(h.ply, sq)

        found = [
            Candidate(h.ply, h.cost + h.contradiction - missed)
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
        the light alone: a piece the reader cannot see was placed there. Asked about, the
        placements there first (fresh bench seed 1374, 4x4, tilt 38: the second ply's light
        flat on light wood, read empty at 0.99, changed d3 by 0.92 with the board's noise at
        0.02; the board was taken as unchanged, the third ply recorded as the second, and the
        game was recorded wrong from there, 4 plies without a mark). `_placed_unseen` asks the
        same where the change alone fits the placement; this is for a change the absolute
        scale calls faint."""
        if not stable.after_hand or not self.changes or self.state != "tracking":
            return []
        evidence, position = stable.evidence, self.position
        floor = board_noise(self.changes)
        squares = [
            sq for sq, change in self.changes.items()
            if not position.stack(sq) and evidence[sq].p_occupied < 0.5
            and change >= max(UNSEEN_CHANGE, UNSEEN_OVER_NOISE * floor)
            and self._light_only.get(sq, 0.0) < 0.5
        ]  # fmt: skip
        if len(squares) != 1:  # (more than one: a hand's shadow or a knock, not one piece)
            return []
        square = squares[0]
        found = [Candidate(h.ply, h.cost + h.contradiction) for h in ranked if h.ply is not None
                 and h.ply.is_placement and h.ply.square == square]  # fmt: skip
        if not found:
            return []
        found.sort(key=lambda c: c.cost)
        self._quiet = None
        ask = Ask(tuple(found[: self.config.max_candidates]),
                  f"the look of {square} changed, but the reader sees no piece there")
        return self._ask(ask, (dict(evidence), stable.appearance))

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
        if not stable.after_hand or self.state != "tracking":
            return []
        close = [h for h in below[: cfg.max_considered]
                 if h.ply is not None and h.cost - best.cost < cfg.commit_margin
                 and self._fits_by_change(h) and h.contradiction <= cfg.match_cost]  # fmt: skip
        if not close:
            return []
        self._quiet = None
        ask = Ask(tuple(Candidate(h.ply, h.cost + h.contradiction)
                        for h in close[: cfg.max_candidates]),
                  "nothing happened, or this: the board barely changed")  # fmt: skip
        return self._ask(ask, (dict(stable.evidence), stable.appearance))

    def _misread_only(
        self, ranked: list[Hypothesis], evidence, misread: Callable[[str], bool]
    ) -> Iterator[tuple[Hypothesis, list[str], float]]:
        """The best-ranked plies that fit what changed and that the reader reads as they leave
        every square but those where `misread(square)` holds (called with the ply played):
        (the ply's hypothesis, those squares, the part of its colour contradiction on them).
        A square the ply leaves alone that the reader misread as it does now at the last match
        too counts for none (fresh bench seed 1396: a light flat on a2, read empty since it was
        placed and asked about, kept c2's, read empty as well, from being asked about; the game
        went out of sync and 5 plies were later recorded wrong without a mark)."""
        position, cfg = self.position, self.config
        before = set(wrong_squares(position, self._accepted)) if self._accepted else set()
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
        self, ranked: list[Hypothesis], evidence
    ) -> Iterator[tuple[Hypothesis, list[str], float]]:
        """`_misread_only` for a piece still read, not surely (`PHANTOM_LEFT`), on a square the
        ply empties beside a wall, a capstone or a stack of `TALL`: the plies, the squares of
        such ghosts (at least one), and the part of the colour contradiction on them."""
        position, cfg = self.position, self.config

        def ghost(sq: str) -> bool:
            return (not position.stack(sq) and 0.5 <= evidence[sq].p_occupied <= PHANTOM_LEFT
                    and any(stands_out(position.stack(n))
                            for n in neighbours(sq, position.size)))  # fmt: skip

        for h, ghosts, seen in self._misread_only(ranked, evidence, ghost):
            if ghosts and h.colour_contradiction - seen <= cfg.match_cost:
                yield h, ghosts, seen

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
            h for h, ghosts, _ in self._ghosted(ranked, evidence)
            if h.ply != best.ply
            and any(sq not in touched and p.get(sq, 0.0) >= SURELY_CHANGED for sq in ghosts)
        ]
        if not rivals:
            return None
        candidates = [*(Candidate(h.ply, h.cost) for h in rivals), Candidate(best.ply, best.cost)]
        return Ask(tuple(candidates[: self.config.max_candidates]),
                   "the reader still sees a piece where the look says one left, beside a "
                   "standing piece")

    def _dark_piece_came(self, ply: Ply, square: str) -> bool:
        """Does `ply` leave a dark piece on top of `square`, where the square darkened by more
        than a shadow's edge (`DARK_PIECE_DARKENS`)? Then a grey change there is the piece's as
        well as a shadow's (fresh bench seed 1130, tilt 19: a dark wall moved from c3 onto c2,
        read empty at 0.95; c2 darkened by the grey shift a shadow makes, so `_shade_moved`
        put it down to the wall's shadow, no ply fitted, and the game was out of sync from its
        6th ply). A shadow that went brightens (seed 702), and a light piece can look like it."""
        if self._darkened.get(square, 0.0) < DARK_PIECE_DARKENS:
            return False
        self.position.push(ply)
        try:
            stack = self.position.stack(square)
        finally:
            self.position.pop()
        return bool(stack) and stack[-1][0] != WHITE

    def _shade_moved(self, square: str) -> bool:
        """Did `square` change by the light alone, next to a square whose look surely changed
        (the shadow of a stack moved there)? A light flat on wood of its colour changes mostly
        the brightness too, but alone (fresh bench seed 811: b1, 2.72, read empty)."""
        if self._light_only.get(square, 0.0) < 0.5:
            return False
        return any(p_changed(self.changes.get(n, 0.0)) >= SURELY_CHANGED
                   for n in neighbours(square, self.position.size))  # fmt: skip

    def _revision_score(self, evidence, p, changed, dearer: float) -> float | None:
        """A revision's score, in the revised position: the best ply that fits the board by
        change, weighed with what the reader contradicts of it, plus how much `dearer` the
        revision's alternative was judged when asked about (None: no ply fits)."""
        judge = self._judge(self.position, evidence, p, changed)
        scores = [j.cost + j.contradiction for j in judge.ranked(0)[: self.config.max_considered]
                  if j.ply is not None and self._fits_by_change(j)]  # fmt: skip
        return min(scores) + dearer if scores else None

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
        for ply in list(position.legal_plies):
            if ply.is_placement and quiet_changes.get(ply.square, 0.0) < faint:
                continue
            touched = ply.squares(position.size)
            played = position.push(ply)
            try:
                after = {sq: position.stack(sq) for sq in touched}
                altered = [sq for sq in touched if after[sq] != before.get(sq, ())]
                if not ply.is_placement and not all(
                    before.get(sq) and after[sq] and before[sq][-1][0] == after[sq][-1][0]
                    for sq in altered
                ):
                    continue  # a top changed colour: it would have been seen. (Not its kind:
                    # the game's wall may be a guess. Fresh bench seed 731: `Sd2?` for `d2` at
                    # ply 14; ten plies later its flat, moved onto a dark flat unseen, was a wall
                    # moved there to the game, and the game went out of sync for its last 29.)
                if not fits():
                    continue
                seen = sum(quiet_changes.get(sq, 0.0) for sq in altered) / len(altered)
                news = sum(then.height_news(sq, len(after[sq]) - len(before.get(sq, ())))[0]
                           for sq in altered)  # fmt: skip
                # a placement the reader read as no piece at all is less likely than one it half
                # saw (seed 1037: d3 read occupied at 0.7 and b4 surely empty, both changed 0.5)
                there = quiet_evidence.get(ply.square) if ply.is_placement else None
                unseen = max(0.0, 1.0 - 2.0 * there.p_occupied) if there is not None else 0.0
                if ply.is_placement and ply.stone != FLAT:
                    unseen += UNSEEN_STANDING  # (offered, after the flat)
                found.append((news - seen + unseen, played))
            finally:
                position.pop()
        found.sort(key=lambda f: f[0])
        return found

    def _revise_asked(
        self,
        alternatives: Callable[[Ply, list[Ply]], list[Ply]],
        fits: Callable[[float], float | None],
        reason: str,
        *,
        unasked_dearer: float = 0.0,
    ) -> list[Decision]:
        """Every revision: for each ply asked about in the last REVISE_DEPTH, the position is
        taken back to just before it and `alternatives(original, other candidates)` are tried in
        its place, each with the plies since played on top; `fits(dearer)` says how well the
        board then fits (lower is better; None: it does not), `dearer` being how much dearer than
        the original that alternative was judged when asked about (`unasked_dearer` if it was not
        a candidate). The best fit of all wins (newest first among equals: bench seed 37, where
        the newest close call's other answer let a ply fit by chance, and the one that was wrong,
        7 plies older, let the ply played fit exactly). Then `Takeback` to it and `Ask` again,
        that alternative first; once answered, `accept` plays the plies since again (one of them
        changed if the alternative left it no longer legal: `_played_then`). The position is left
        as it is when nothing fits."""
        position = self.position
        self._asked = [(n, o) for n, o in self._asked
                       if position.ply_count - REVISE_DEPTH < n <= position.ply_count]  # fmt: skip
        # (score, number, alternative, original, the plies since as they would be played again)
        best: tuple[float, int, Ply, Ply, list[Ply]] | None = None
        asked = {n for n, _ in self._asked}
        for number, others in reversed(self._asked):
            back = position.ply_count - number + 1
            quiet = {k for k in range(number + 1, number + back) if k not in asked}
            popped = [position.pop() for _ in range(back)][::-1]  # oldest first
            original, later = popped[0], popped[1:]
            try:
                for alternative in alternatives(original, list(others)):
                    dearer = others.get(alternative, unasked_dearer)
                    found = self._played_then(alternative, later,
                                              lambda more, d=dearer: fits(d + more), quiet)
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
        self._asked = [(n, o) for n, o in self._asked if n < number]
        self._reevaluate = True
        ask = Ask((Candidate(alternative, 0.0), Candidate(original, 0.0)),
                  reason=f"ply {number} revised: {reason}")  # fmt: skip
        return [Takeback(back), *self._ask(ask)]

    def _played_then(
        self, alternative: Ply, later: list[Ply], fits: Callable[[float], float | None],
        quiet: set[int],
    ) -> tuple[float, list[Ply]] | None:
        """(`fits(more)`, the later plies as played) with `alternative` and then `later`
        played; None if none fits. The position is restored.

        A spread's count decided wrong leaves a later spread off the same stack carrying pieces
        it no longer has (fresh bench seed 528: `3b1+` recorded for `3b1+12`, then `4b2>13` for
        `2b2>11`, both asked; eight plies later no ply fitted and the game was out of sync for its
        last 16 plies). So one later spread that the alternative leaves illegal may be replaced by
        the same spread with another count or drops that ends on the same square
        (`_same_spread`); the best fit of those counts. Any other later ply must stay legal.
        A later ply the board showed clearly when it was played (its number in `quiet`:
        committed without a question) makes the revision `commit_margin` dearer when it is so
        replaced (`more`), as a revision of a ply nobody asked about is (fresh bench seed 1217,
        4x4, tilt 34: `b1` asked about against `a1>`, 0.74 dearer; 14 plies later a stack's
        height read one short at 0.88 fitted `a1>` better, with the quiet `3a1+` four plies
        after it turned into `2a1+`; three plies went wrong)."""
        position = self.position
        best: tuple[float, list[Ply]] | None = None

        first = position.ply_count + 1  # the alternative's number

        def play(plies: list[Ply], done: list[Ply], more: float | None) -> None:
            nonlocal best
            pushed = 0
            try:
                for i, ply in enumerate(plies):
                    if ply not in position.legal_plies:
                        if more is not None or i == 0:  # (never the alternative itself)
                            return
                        number = first + len(done) + i
                        more = self.config.commit_margin if number in quiet else 0.0
                        for other in _same_spread(position, ply):
                            play([other, *plies[i + 1 :]], done + plies[:i], more)
                        return
                    position.push(ply)
                    pushed += 1
                score = fits(more or 0.0)
                if score is not None and (best is None or score < best[0]):
                    best = (score, (done + plies)[1:])
            finally:
                for _ in range(pushed):
                    position.pop()

        play([alternative, *later], [], None)
        return best

    def _ask(self, ask: Ask, matched: tuple | None = None) -> list[Decision]:
        """Ask `ask`; `matched`: the board asked about, to judge the next one against once
        answered (the board from before is kept until then: a board back to it withdraws the
        question)."""
        self._undecided = None
        self.pending = ask
        self.state = "asking"
        self._before_ask = None
        if matched is not None:
            self._before_ask = (self._accepted, self._looks)
            self._accepted, self._looks = matched
        if self.last is not None:
            self.last.decisions = [ask]
        return [ask]

    def _back_before_ask(self, stable: StableReading) -> bool:
        """Is the board back to how it was before the ply asked about (judged by change)?"""
        if self._before_ask is None or stable.appearance is None:
            return False
        before_evidence, before_looks = self._before_ask
        if before_looks is None:
            return False
        p = {sq: p_changed(c) for sq, c in changes(stable.appearance, before_looks).items()}
        return self._fits_by_change(
            ChangeJudge(self.position, stable.evidence, p, None, before_evidence).nothing()
        )

    def _withdraw(self, stable: StableReading) -> list[Decision]:
        """The ply asked about was taken back before the answer: forget the question."""
        self.pending = self._before_ask = None
        self.state = "tracking"
        self._accepted, self._looks = dict(stable.evidence), stable.appearance
        self.last = Evaluation(stable.at, stable.since, stable.evidence, [])
        self.last.decisions = [Withdrawn()]
        return self.last.decisions

    def _resume(self, stable: StableReading) -> list[Decision]:
        """After a restart: only the journal's position itself brings the tracker back."""
        evidence = stable.evidence
        same = Hypothesis(sum(square_costs(self.position, evidence).values()))
        self.last = Evaluation(stable.at, stable.since, evidence, [same])
        if self._mismatch(same, evidence) <= self.config.match_cost:
            self._accepted = dict(evidence)
            self._looks = stable.appearance
            self.state = "tracking"
            self.unmatched_since = None
            self.last.decisions = [Resynced()]
            return self.last.decisions
        if self.unmatched_since is None:
            self.unmatched_since = stable.since
            self.last.wrong = wrong_squares(self.position, evidence)
            self.last.decisions = [
                Desync(self.position.tps(), tuple(self.last.wrong))
            ]
            return self.last.decisions
        return []

    def _desync(self, evidence: Mapping[str, SquareEvidence]) -> Desync:
        self.state = "desync"
        return Desync(self.position.tps(), tuple(wrong_squares(self.position, evidence)))

    def _game_over(self) -> list[Decision]:
        outcome = self.position.outcome()
        if outcome is None:
            return []
        self.state = "over"
        return [GameOver(outcome)]

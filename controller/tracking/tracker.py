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
   tracker stops; unless the ending rests on unsure plies: then later boards may still revise one
   of them, and pieces put on the board after the end give `PlayedOn(squares)`.

`Tracker(position, resume=True)` (after a restart, the position replayed from the journal) starts
out of sync: the first still board that does not show `position` gets a `Desync(expected)`, and
nothing (no ply, no takeback) is considered until the board shows it, which gives `Resynced`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from controller.tak import Ply, Position, TakError
from controller.tracking.by_change import (
    MISREAD_COLOUR,
    SURELY_CHANGED,
    TAKEBACK_PRIOR,
    W_HEIGHT_NEWS,
    W_UNALTERED,
    ChangeJudge,
    Judged,
    height_change_share,
    neighbours,
    other_drops,
    stone_prior,
    top_colour_kept,
)
from controller.tracking.catch_up import CatchUp
from controller.tracking.change import (
    SHADOWED,
    UNCHANGED_BELOW,
    board_noise,
    changes,
    darkened,
    faint_changes,
    footprint_changes,
    light_only,
    p_changed,
    quiet_squares,
)
from controller.tracking.decisions import (
    Ask,
    Candidate,
    Commit,
    Decision,
    Desync,
    GameOver,
    Illegal,
    PlayedOn,
    Resynced,
    Takeback,
    Withdrawn,
)
from controller.tracking.evidence import (
    FLIP_MIN_CHANGE,
    FLIP_OVER_NOISE,
    SquareEvidence,
    differs,
    flipped_squares,
    lost_sight,
)
from controller.tracking.gate import DEFAULT_HOLD_S, StabilityGate, StableReading
from controller.tracking.held import Held, HeldSpread
from controller.tracking.pairs import TwoPlies
from controller.tracking.revisions import Revisions
from controller.tracking.scoring import (
    height_surprise,
    mismatch,
    score_plies,
    square_costs,
    sure_of_kind,
    wrong_squares,
)
from controller.tracking.unseen import Unseen

# A square where the reader surely saw a piece come or go (`evidence.OCCUPANCY_FLIP`) counts as
# surely changed when its look changed by `evidence.FLIP_MIN_CHANGE` and `FLIP_OVER_NOISE` times
# the board's noise, or by at least this much where the reader reads a wall or capstone come
# (`_stood_up`)
STOOD_UP_MIN_CHANGE = 0.25
# A placement whose square the reader reads two or more high this surely (height confidence) is
# asked about, not committed quietly (`_placed_tall`). At 0.85, fresh seed 5873's dark wall, read
# a flat two high at 0.848, went in as a flat without a mark; at 0.8, 34 more marks on 591 stored
# games, all on plies recorded right
PLACED_TALL_SURE = 0.8
# A question's candidates are ordered, and carry as their cost, their cost plus this share of what
# the reader contradicts of them (`_evaluate`'s `close`): enough to order a tie, and a revision
# in hindsight still overcomes a kind the reader misread at 0.8 (a flat taken for a wall, seen
# to be a flat when a wall is moved onto it; with the whole contradiction it no longer did)
ASK_CONTRADICTED = 0.5
# ... and where several of them are one spread with other drops, with this share of how much more
# the reader's height probabilities are surprised by the heights each leaves than by the least
# surprising one's (`_count_surprise`). The cost's height terms weigh a height by its distance
# from the reader's, and on a square only its height changes, by the change the reader saw
# (`by_change.height_news`): both hardly tell apart two heights the reader is unsure between. On
# the 1,000 stored games of sets 4751-5750, 452 such questions, the ply played first 422 -> 435
# times (0.2 and 0.3: 434; 0.1: 430; 0.5: 431; 1.0: 414; `bench/count_questions.py`)
COUNT_SURPRISE = 0.25
# A square's height the reader read unchanged, before and after, at least this surely (its height
# confidence, calibrated: on the vision bench heights called at 0.99 or more were right 99.9 % of
# the time, at 0.9-0.95 96 %): a faint change there is a neighbour's doing, not a piece taken off
# or put on out of sight (`_faint_left`). Less sure, the faint change is believed before it: from
# near straight above a flat moved off a stack of its colour changes little, and the reader may
# read the stack as high as before (bench seeds 13, 118, 224, 501).
HEIGHT_SEEN_TO_STAY = 0.99
# A spread moving pieces off a stack onto the square a placement puts its piece on is no rival of
# the placement when the stack's look surely did not change and the reader's heights of it, on the
# board last matched and now, give it less than this chance of having shrunk by the pieces moved
# (`_source_stood`). On the 294 games stored in session 50: of 202 questions between such a
# placement and such a spread, the placement was played in 195, and 68 of those are left unasked;
# the 132 spreads of the kind committed right all had a chance of 0.02 or more (the 4 asked
# about, 0.3 or more, or no height beliefs); a confidently misread height (0.99, on the vision
# bench 0.06 % of occupied squares) on both boards is what it would take to be wrong.
SOURCE_STOOD = 0.02
# What the reader may contradict of a ply that nearly fits the board for it to be asked about
# (`_nearly_shown`): nothing beyond rounding
NOTHING_AGAINST = 0.05
# A spread commits only this far ahead of the same spread with other counts or drops where they
# differ on a stack whose height the reader misread on the last matched board (`_misread_before`;
# fresh bench seed 2902, 5x5, tilt 22: a three-stack read two, 1.06 ahead, `a1+` for `2a1+`)
MISREAD_COUNT_MARGIN = 1.5
# A ply commits only this far ahead of a rival when either touches a square the reader has read
# against the game since a catch-up (`_caught_up`; fresh bench seed 3755: c3's light top, in a
# glare spot, read dark all along; eleven plies after the catch-up `c2-` was committed 0.6 ahead
# of the `c2+` played onto c3, without a mark)
MISREAD_SQUARE_MARGIN = 1.5
# After an ending that rests on guesses, a square read bare this surely (1 minus it) and then
# occupied this surely is a piece put on: play after the end (`_played_on`)
PLAYED_ON_SURE = 0.95


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
    # ... unless the reader calls the placed stone's kind this surely (calibrated; on the still
    # board's frames): then the same square's other kinds are no rivals. Without it every wall
    # and capstone was asked about, however sure the reader (a wall's prior and the doubt shared
    # with the capstone, `evidence.WALL_CAP_DOUBT`, keep it under `kind_margin`): 285 of 285 on
    # fresh sets 4251-4350, each right. On 1,000 vision bench frames the reader called 2,560
    # walls and 859 capstones at 0.98 or surer, none wrong (and 11,774 flats, one wrong)
    kind_sure: float = 0.98
    # ... and a spread this far ahead of the same spread with other counts or drops (they differ
    # in heights only, the reader's weakest calls: bench seed 37, 2c2> recorded as c2>)
    count_margin: float = 1.0
    # A board that misfits the best ply's pattern of changes by at most this much more than
    # `structure_ok`, the reader contradicting nothing, and no rival near: asked about as that
    # ply, not reported illegal (`_nearly_shown`: a quarter of a square surely changed too many)
    near_miss: float = 0.5


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
    altered: frozenset[str] = frozenset()  # judged by change: the squares whose stacks it alters

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


class Tracker(HeldSpread, TwoPlies, Unseen, Revisions, CatchUp):
    """Readings in, decisions out (see the module's docstring). The board is judged here
    (`_evaluate`); what it does when no ply fits lives with the class for each kind of case:
    a spread held in a hand (`held.py`), two plies at once (`pairs.py`), a ply the camera did
    not see clearly (`unseen.py`), a recent close call revised (`revisions.py`), and plies
    played on while the board was out of sync (`catch_up.py`)."""

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
        self._undecided_lifted = False  # ... and it fits only as pieces lifted (`_lifted_only`)
        self._undecided_after = (False, False)  # ... and whether a hand / motion came before it
        # plies answered after a question: number -> the other candidates, each with how much
        # dearer than the answer it was judged then (for `_revise_asked`)
        self._asked: list[tuple[int, dict[Ply, float]]] = []
        # ... and number -> the plies judged on the same board but not asked about, each with
        # how much dearer than the answer (for `_hindsight`; only a close call's own board: see
        # `_judged_close`)
        self._judged_then: dict[int, dict[Ply, float]] = {}
        # the candidates of the last close call, with every ply scored on its board
        self._judged_close: tuple[tuple[Candidate, ...], dict[Ply, float]] = ((), {})
        # plies to play again after a revised ply is answered: as recorded, and as the revision's
        # alternative would have them (it may have changed one: `_played_then`)
        self._replay: list[Ply] = []
        self._replay_revised: tuple[Ply, list[Ply]] | None = None
        # ... and the questions asked about those plies, kept for when they are played again
        self._replay_asked: list[tuple[int, dict[Ply, float]]] = []
        self._reevaluate = False  # judge the still board again once the pending Ask is answered
        # the unmatched board lacks a stack the player to move may be holding: judged again once
        # it has stood `lifted_grace_s` since `unmatched_since`
        self._lifted_waits = False
        # a spread held back while its pieces may still be in a hand (`_held_in_hand`)
        self._held: Held | None = None
        # a close call between spreads waited on while their pieces may still be in a hand
        # (`_in_hand_unseen`): the question, and the board it was to be asked on
        self._waited: tuple[Ask, tuple] | None = None
        # plies a board reported illegal fitted, ruled out only by the colour the reader read on
        # the squares named (`_played_over`): ply -> those squares
        self._overruled: dict[Ply, set[str]] = {}
        # the last board judged "nothing happened" after a hand came and went: (changes per
        # square then, the evidence then, the evidence it was compared to), for `_missed`; None
        # once a ply or a takeback has been recorded since
        self._quiet: tuple | None = None
        self._last_stable: StableReading | None = None  # for `judge_again`
        self._faint: dict[str, float] = {}  # `change.faint_changes` at the last evaluation
        self._still: set[str] = set()  # `change.quiet_squares` at the last evaluation
        self._light_only: dict[str, float] = {}  # `change.light_only` per square, the same
        self._darkened: dict[str, float] = {}  # `change.darkened` per square, the same
        # while a question waits: the board (evidence, signatures) from before the ply asked about
        self._before_ask: tuple | None = None
        # still boards seen while the pending question waited, each changed from the one before
        # (the players played on): judged in turn, oldest first, once it is answered
        self._boards_waiting: list[StableReading] = []
        self._asked_board: StableReading | None = None  # the board the pending question was on
        self._judging_waiting = False  # judging one of `_boards_waiting` now
        # the board a question was withdrawn for, judged from the board before it now
        self._withdrawn_for: StableReading | None = None
        # ... and the hypotheses that board was weighed with (`fits_alone`)
        self._asked_ranked: list[Hypothesis] = []
        self.changes: dict[str, float] = {}  # change per square at the last evaluation
        # each square's look the last time the game had it bare, on a still board that matched
        # the game (the camera's pixels since its last move; `_bare_again`)
        self._bare: dict[str, object] = {}
        # what `_accepted`/`_looks` were before the last commit, and whether the board now shows a
        # ply the service refused (see `retract`)
        self._before_commit: tuple = (None, None)
        self._refused = False
        # (number, ply, the quiet board before it or None) of the last ply committed quietly,
        # judged by this tracker alone: it may have been two plies at once that left the board
        # as it would (`_last_was_two`), or a ply may have been missed on that quiet board
        # before it (`_missed_before_last`)
        self._quiet_commit: tuple[int, Ply, tuple | None] | None = None
        # (number, ply) of the reply of two plies seen at once, played as a guess: it may have
        # been a phantom of the reader's (`_reply_was_phantom`)
        self._guessed_reply: tuple[int, Ply] | None = None
        self.unmatched_since: float | None = None
        # the still boards judged since `unmatched_since` (its value, the boards' evidence):
        # the way the board went while out of sync (`_caught_up`)
        self._unmatched_boards: tuple[float | None, list] = (None, [])
        # the question of the last catch-up (`_caught_up`), and the squares its answer left the
        # reader contradicting: read wrong all along, they may still decide a close call
        self._catch_up_ask: Ask | None = None
        self._misread_squares: set[str] = set()
        self.last: Evaluation | None = None
        # after an ending: the squares a still board has shown surely bare since (`_played_on`);
        # None once that has been said, or before any ending
        self._bare_since_end: set[str] | None = None

    # -- public ---------------------------------------------------------------------------------

    def step(self, reading, t: float) -> list[Decision]:
        """Feed one frame's reading taken at time `t` (seconds); returns what it decided."""
        if self.state == "over" and not self._asked:
            return []  # (an ending that rests on guesses is watched on: see `_evaluate`)
        if getattr(reading, "relocalised", False):
            self._looks = None  # the camera moved: its pixels are not the ones kept
            self._bare = {}
        stable = self.gate.feed(reading, t)
        if stable is not None:
            self._last_stable = stable
        if self._boards_waiting and self.state != "asking":
            # the question is answered: the boards seen while it waited, one a frame, in order;
            # then the board as it stands (the last of them, unless it changed again)
            waiting = self._boards_waiting.pop(0)
            self._reevaluate = self._reevaluate or not self._boards_waiting
            # (the players played on, forward: a board of theirs that looks like one of a few
            # plies back is taken for the next ply, not a takeback, which the board as it stands
            # shows when judged after them; fresh seed 6187, answered 6 s late: the board after
            # `c1` was taken for `2d1>` and `c1+` taken back, three plies then recorded wrong)
            self._judging_waiting = True
            try:
                return self._evaluate(waiting)
            finally:
                self._judging_waiting = False
        if stable is None:
            if self._undecided is not None and self._undecided_lifted:
                # pieces lifted with nowhere seen to land, and the board moves: they may be
                # coming down (fresh bench seed 2927, 4x4, tilt 36: `b4<` asked against `b4-`
                # as the flat came down on a4, read one higher on the next still frame at 1.00)
                self._waited, self._undecided = (self._undecided, self._undecided_matched), None
                return []
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
            if self.state != "asking":  # (a question's judge-again waits for its answer)
                self._reevaluate = False
            self._refused = False
            if self._undecided is not None and not stable.fresh:
                # a close call judged again on the same still board: the board still comes after
                # the hand that made it, as on its first still frame (fresh bench seed 4196, 4x4,
                # tilt 4: `c2<` onto a flat of its colour, unseen, was a close call against
                # "nothing happened"; judged again a frame later, "nothing happened" won, but as a
                # board no hand came before, so the ply missed was never looked for when the next
                # ply fitted nothing, and 18 of 56 plies were lost)
                after_hand, after_motion = self._undecided_after
                stable = replace(stable, after_hand=stable.after_hand or after_hand,
                                 after_motion=stable.after_motion or after_motion)
            return self._evaluate(stable)
        if (self.state == "tracking" and self._looks is not None and stable.appearance is not None
                and not self._refused and not self._lifted_waits):
            # Still, and nothing happening: follow the light (drift, LEDs lit after a commit).
            # (Not while a board that lacks a lifted stack waits: it is no reference.)
            self._accepted, self._looks = dict(stable.evidence), stable.appearance
            self._bare.update((sq, look) for sq, look in stable.appearance.items()
                              if not self.position.stack(sq))  # fmt: skip
        if (
            self.state == "illegal"
            and self.unmatched_since is not None
            and t - self.unmatched_since >= self.config.desync_after_s
        ):
            # judged once more before giving up: plies played on since may lead to it
            # (`_caught_up`), or the board, held still this long, may read clearer
            decisions = self._evaluate(stable)
            if self.state == "illegal":  # (once: nothing came of it)
                decisions = [*decisions, self._desync(stable.evidence)]
            return decisions
        return []

    def finish(self) -> list[Decision]:
        """The frames have ended (a recording's last frame): a close call still waiting for more
        still frames to settle it is asked about now, as when a hand comes back. A video may end
        a second after the last ply (bench seed 120: its last placement 0.5 ahead of a spread,
        judged on the first still frame, and 0.6 s of frames after that); nothing more will
        settle it, and a ply that was played must not go unrecorded."""
        if self._held is not None:  # no hand will come back now, and no board will show it
            held, self._held = self._held, None
            return self._ask_held(held)
        if self._waited is not None:  # (the same for a close call waited on)
            waited, self._waited = self._waited, None
            return self._ask(*waited)
        if self._undecided is not None:
            return self._ask(self._undecided, self._undecided_matched)
        if (self._lifted_waits and self._last_stable is not None
                and self.unmatched_since is not None):  # fmt: skip
            # pieces lifted off a stack, waited for, and no hand to drop them now: the board is
            # judged as it stands, as once it has stood `lifted_grace_s` (fresh bench seed
            # 6138's last ply, `f4<`, its flat onto e4 read faintly, was lost without a word
            # when the frames ended 0.8 s into the wait)
            self._lifted_waits = False
            stable = self._last_stable
            stood = max(self.unmatched_since, stable.since) + self.config.lifted_grace_s + 1e-6
            decisions = self._evaluate(replace(stable, at=max(stable.at, stood)))  # (1e-6: past)
            if any(isinstance(d, Illegal) for d in decisions) and (
                    landed := self._landed_unseen()) is not None:  # fmt: skip
                # nothing more will show where they landed: the likeliest spreads are asked
                # about rather than the ply lost (a recorder guesses the first, marked)
                self.state, self.unmatched_since = "tracking", None
                return self._ask(landed, (dict(stable.evidence), stable.appearance))
            return decisions
        return []

    def _landed_unseen(self) -> Ask | None:
        """At the end of the frames, on a board judged illegal while lifted pieces were waited
        for: the spreads off the lifted stack that scored best, within the commit margin of the
        first, when a spread off it is the best explanation of all and a square it drops on
        changed, if only faintly; None otherwise (the pieces may still be in a hand). Fresh bench
        seed 6138 (6x6, tilt 37): its last ply, `f4<`, dropped a flat on e4 that the reader read
        only faintly; `f4<` scored best (0.08, `f4+` 0.21) but fitted the changes too loosely to
        commit, and the board was reported illegal with the ply missing from the PTN."""
        ranked = self.last.ranked if self.last is not None else []
        if not ranked or ranked[0].ply is None or ranked[0].back or ranked[0].ply.is_placement:
            return None
        best = ranked[0]
        square = best.ply.square
        if not any(p_changed(self.changes.get(sq, 0.0)) > 0.0 or self._faint.get(sq, 0.0) > 0.0
                   for sq in best.ply.squares(self.position.size)[1:]):  # fmt: skip
            return None  # (no trace where it drops them: they may still be in a hand)
        spreads = [h for h in ranked[: self.config.max_considered]
                   if h.ply is not None and not h.back and not h.ply.is_placement
                   and h.ply.square == square
                   and h.cost - best.cost < self.config.commit_margin]  # fmt: skip
        reason = (f"the recording ended with pieces lifted off {square} and not seen to land: "
                  "the likeliest spreads")  # fmt: skip
        return Ask(tuple(Candidate(h.ply, h.cost) for h in spreads), reason)

    @property
    def hand_left_no_trace(self) -> bool:
        """Since the last ply or takeback, a hand came and went and the board looked as before.
        Usually nothing (a piece straightened); but a piece moved onto a stack with the same top
        changes no square's look from above, and such a ply is only found when a later board
        shows it was missed (`_missed`). At the end of a recording nothing later will: the
        recorder says so (fresh bench seed 114: its last ply, `e5-` at tilt 4)."""
        return self._quiet is not None

    def accept(self, ply: Ply, *, guess: bool = False, then: Ply | None = None,
               more: tuple[Ply, ...] | None = None) -> list[Decision]:
        """Resolve an `Ask` (or correct by hand): play `ply` in the tracked position.

        `guess`: nobody answered; this is the best candidate taken as a guess (the offline
        recorder, which has nobody to ask). A guess stays open to revision by later boards
        (`_revise`, `_revise_by_board`, `_hindsight`); a person's answer is the game's truth
        and is never asked again.
        `then`: the reply of the candidate chosen when the question was about two plies at once
        (`Candidate.then`), played after `ply`; without it, that of the first candidate asked
        with `ply` (a ply typed by hand that is one of them).
        `more`: the plies after `then` of the candidate chosen (a catch-up's, `Candidate.more`);
        without it, those of the first candidate asked with `ply` and `then`. Catch-up candidates
        may share their first two plies ("c1< then a2 then 2b1+" and "c1< then a2 then b1+":
        fresh bench seed 4927, the second picked and the first recorded, without a mark)."""
        asked = self.pending
        played = self.position.play(ply)
        self.pending = self._before_ask = None
        self.state = "tracking"
        # kept for revision, even with no other candidate (not a catch-up's: its others are
        # whole sequences of plies, where a revision changes one ply)
        if asked is not None and guess and asked is not self._catch_up_ask:
            cost = next((c.cost for c in asked.candidates if c.ply == played), 0.0)
            others = {c.ply: max(0.0, c.cost - cost) for c in asked.candidates if c.ply != played}
            self._asked.append((self.position.ply_count, others))
            candidates, scored = self._judged_close
            if candidates == asked.candidates:
                self._judged_then[self.position.ply_count] = {
                    q: max(0.0, score - cost) for q, score in scored.items()
                    if q != played and q not in others
                }  # fmt: skip
            elif self._replay_revised is None:
                self._judged_then[self.position.ply_count] = {}
            # (a revised ply asked again keeps what its own board judged: the revision judged
            # no board of it, and without it the next revision found every ply not asked about
            # only the commit margin dearer; fresh bench seed 4319, ply 46 revised right and
            # then at once wrong)
        out: list[Decision] = [Commit(played, 0.0, self.position.ply_count)]
        if then is None and asked is not None:
            then = next((c.then for c in asked.candidates if c.ply == played), None)
        if then is not None and then in self.position.legal_plies:  # two plies seen at once
            reply = self.position.play(then)
            out.append(Commit(reply, 0.0, self.position.ply_count))
            if guess:
                self._guessed_reply = (self.position.ply_count, reply)
            # ... or more (a catch-up after a desync): those of the candidate chosen
            if more is None:
                more = next((c.more for c in (asked.candidates if asked else ())
                             if c.ply == played and c.then == reply), ())  # fmt: skip
            for later in more:
                if later not in self.position.legal_plies:
                    break
                out.append(Commit(self.position.play(later), 0.0, self.position.ply_count))
        if asked is not None and asked is self._catch_up_ask and self._accepted is not None:
            self._misread_squares |= self._wrong_at_last_match()
        # a revised ply: the plies recorded after it are played again on top of the answer
        replay = self._replay
        if self._replay_revised is not None and self._replay_revised[0] == played:
            replay = self._replay_revised[1]
        # A later ply played again as it was recorded is still the close call it was: it stays
        # open to revision (fresh bench seed 2605: ply 3 revised at ply 25 took ply 4's question
        # with it, and when a later spread showed ply 4's wall a flat, nothing could revise it;
        # the game was out of sync for its last 14 plies).
        asked_then = dict(self._replay_asked)
        for i, later in enumerate(replay):
            again = self.position.play(later)
            number = self.position.ply_count
            out.append(Commit(again, 0.0, number))
            if i < len(self._replay) and later == self._replay[i] and number in asked_then:
                self._asked.append((number, asked_then[number]))
        self._replay, self._replay_revised, self._replay_asked = [], None, []
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

    def board_is_right(self) -> list[Decision]:
        """A person says the board shows the game as recorded (`expected`), though the camera
        reads it otherwise: a piece it misreads all along (a light flat on light wood, a piece
        half hidden behind a wall), which keeps a board judged afresh from the reader's own
        answers out of sync. The last still board becomes the one to compare the next to, as a
        board that matched, and tracking goes on from it: its misreads are no news. -> [Resynced()]
        when the board had been reported wrong, else []. Nothing changes while a question waits
        (it is answered instead) or before a still board was seen (the next one is judged)."""
        stable = self._last_stable
        if self.pending is not None or stable is None or self.state == "over":
            return []
        was = self.state
        self._accepted, self._looks = dict(stable.evidence), stable.appearance
        self._held = self._waited = self._undecided = None
        self._lifted_waits = self._refused = self._reevaluate = False
        self.unmatched_since = None
        self.state = "tracking"
        return [Resynced()] if was in ("illegal", "desync", "resuming") else []

    def judge_again(self) -> list[Decision]:
        """Judge the last still board again now, when an answer asked for that (`accept` of a
        revised ply or of a ply that was not seen): the board may already show the ply after it.
        [] otherwise. Live, the next still frame does the same; a recorder fed frame by frame
        calls it, since the hand may come back before another still frame."""
        if (not self._reevaluate or self.state != "tracking" or self._last_stable is None
                or self._boards_waiting):  # (those first, in order: `step`)
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
        """Judge a still board. A question still waiting (live: nobody has answered yet) that
        this board does away with, by a ply committed or another question, is withdrawn first,
        so that the board's record never holds a question about a ply before the ones after it."""
        asked = self.pending
        decisions = self._judge_board(stable)
        if self.pending is not None and self.pending is not asked:
            self._asked_board = stable  # (what it was asked on, whatever the reference)
        if asked is not None and self.pending is not asked and not any(
                isinstance(d, Withdrawn) for d in decisions):  # fmt: skip
            again = self.pending is not None and self.pending.candidates == asked.candidates
            if not again:
                decisions = [Withdrawn(), *decisions]
        return decisions

    def _judge_board(self, stable: StableReading) -> list[Decision]:
        evidence = stable.evidence
        self._undecided = None
        if self.state == "resuming":
            return self._resume(stable)
        if self.pending is not None and self._back_before_ask(stable):
            return self._withdraw(stable)
        if self.state == "asking" and not self._as_asked(stable):
            # The board changed while the question waited (live: nobody has answered yet).
            if (self._before_ask is not None and not self._boards_waiting
                    and self._one_ply_since_before_ask(stable)):  # fmt: skip
                # The ply asked about was not finished (pieces still in a hand): one ply
                # explains this board from the one before the question, which is judged from
                # there as if never asked. (Fresh bench seed 6016: `2d5<` asked about mid-spread
                # as "2d5- or 2d5>", the pieces then dropped on c5; judged against the asked
                # board, `d5<` was committed without a mark, and the answer played after it.)
                # The ply found is asked about, never committed quietly: the players may have
                # finished the ply asked about and made the next, and one spread then explains
                # the board by chance (`tests/record/games/seed1434.npz` answered 3 s late:
                # `3c2+21` asked, `3b1>21` played, and `3c2-` committed without a mark).
                self._accepted, self._looks = self._before_ask
                self.pending = self._before_ask = None
                self.state = "tracking"
                self._withdrawn_for = stable
                try:
                    return [Withdrawn(), *self._judge_board(stable)]
                finally:
                    self._withdrawn_for = None
            # The players played on: nothing is recorded past a ply nobody has named. Each still
            # board is kept, and once the question is answered they are judged in turn, as if
            # it had been answered at once (`step`). (Judged as it then stands, a board two plies
            # on fitted one spread by chance: fresh seed 6030, "d1< then d1+" taken for `2d1<`.)
            if (not self._boards_waiting and self._before_ask is None and self._reevaluate
                    and self._asked_board is not None):  # fmt: skip
                # (a question about a ply before the board asked on, judged from the board
                # before it: that board is judged again first, once answered, as it would be)
                self._boards_waiting.append(self._asked_board)
            self._keep_waiting(stable)
            return []
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
            # untouched square is not, nor one the reader loses in a shadow: `_lost_in_shadow`.)
            floor = board_noise(self.changes)
            looked = dict(p)
            self._light_only = light_only(stable.appearance, self._looks)  # type: ignore[arg-type]
            self._darkened = darkened(stable.appearance, self._looks)  # type: ignore[arg-type]
            for sq in flipped_squares(evidence, self._accepted or {}):
                change = self.changes.get(sq, 0.0)
                if self._lost_in_shadow(sq, evidence):
                    continue
                if change >= max(FLIP_MIN_CHANGE, FLIP_OVER_NOISE * floor) or (
                    change >= STOOD_UP_MIN_CHANGE and self._stood_up(sq, evidence, looked)
                ):
                    p[sq] = 1.0
            footprints = footprint_changes(stable.appearance, self._looks)  # type: ignore[arg-type]
            self._faint = faint_changes(stable.appearance, self._looks, self.changes,  # type: ignore[arg-type]
                                        footprints)  # fmt: skip
            self._still = quiet_squares(self.changes, footprints)
            evidence = self._bare_again(evidence, stable.appearance)
            judge = self._judge(self.position, evidence, p, changed)
            ranked = [
                Hypothesis(j.cost, j.ply, j.back, j.structure, j.contradiction,
                           j.colour_contradiction, j.height_against, j.altered)
                for j in judge.ranked(0 if self._judging_waiting else cfg.takeback_depth)
            ]
        else:
            self.changes, self._faint, self._still = {}, {}, set()
            judge = None
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
        waited, self._waited = self._waited, None
        if waited is not None and self.state == "tracking" and (
            chosen is None or not self._came_down(ranked[chosen].ply, waited[0])
        ):
            # the pieces did not come down as any of the spreads waited on would have them: the
            # spread was made, unseen, and this board shows the next ply too. The question is
            # asked as it stood, and this board judged again once it is answered (fresh bench
            # seed 1422: `e1+`, a capstone onto e2 unseen, then `b2-`; seed 2067: `b2>` onto
            # c2's top of its colour, then `2b2-`, which fitted "3b2+ or 3b2>" from before)
            self._reevaluate = True
            return self._ask(*waited)
        if chosen is None and held is not None and self.state == "tracking":
            # the hand came back with no pieces to drop: the spread held back was played, and
            # this board is the next ply's
            return self._settle_held(held, stable)
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
            if not evaluation.decisions:
                evaluation.decisions = self._played_on(evidence)
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
            split = (self._missed_before_last(evidence, p, changed)
                     or self._last_was_two(evidence, p, changed)
                     or self._reply_was_phantom(evidence, p, changed))  # fmt: skip
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
            # quick reply's board by chance, quick-reply bench seed 323; a spread revised to
            # another direction is tried at the same point, for the same reason)
            revised = self._revise_moved_elsewhere(evidence, p, changed)
            if revised:
                evaluation.decisions = revised
                return revised
        if chosen is None and by_change and self.state == "tracking":
            # (before the reader's whole-board reading: a ply that fits every change, the reader
            # contradicting it only where it saw no piece, beats one that leaves a sure change
            # unexplained; fresh bench seed 811: `b1`, read empty, against `c3+`, unseen)
            # (and where "nothing happened" ranks first, only just failing the structure check,
            # a piece unseen on the one empty square whose look changed: fresh bench seed 1758,
            # a light capstone on light wood read empty, d1's look changed by 1.15, "nothing
            # happened" 0.003 over; the reader's whole-board reading took the board to show a
            # flat it had never seen moved, and 6 plies were lost)
            nothing_first = bool(ranked) and ranked[0].ply is None and not ranked[0].back
            unseen = (self._placed_unseen(ranked, evidence, stable.appearance)
                      or self._phantom_left(ranked, evidence, stable.appearance)
                      or (nothing_first and self._unseen_after_hand(ranked, stable)))
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
        if chosen is None and by_change and (self.state == "desync" or (
                self.state == "illegal" and self.unmatched_since is not None
                and stable.at - self.unmatched_since >= cfg.desync_after_s)):
            # (out of sync, or about to be on this board)
            caught = self._caught_up(evidence, p, stable.appearance)
            if caught:
                evaluation.decisions = caught
                return caught
        if chosen is None and by_change and self.state in ("tracking", "illegal"):
            shown = self._pair_shown_by_board(evidence, p, stable.appearance) or (
                self._revise_for_pair(evidence, p, changed, ())  # (a last resort)
            )
            if shown:
                evaluation.decisions = shown
                return shown
        if chosen is None and by_change and self.state in ("tracking", "illegal"):
            nearly = self._nearly_shown(ranked, evidence, stable.appearance)
            if nearly:
                evaluation.decisions = nearly
                return nearly
        if chosen is None:
            wrong = wrong_squares(self.position, evidence)
            if by_change:  # the squares that changed (the reader may be wrong on the others)
                moved = sorted(sq for sq, c in self.changes.items() if p_changed(c) >= 0.5)
                evaluation.wrong = moved or wrong
            else:
                evaluation.wrong = [sq for sq in wrong if changed is None or sq in changed] or wrong
            if self.unmatched_since is None:
                self.unmatched_since = stable.since
            self._keep_unmatched(evidence)
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
        if best.ply is not None and best.ply.is_placement and sure_of_kind(
            evidence.get(best.ply.square), best.ply.stone
        ) >= cfg.kind_sure:  # the reader settles its kind: other stones there are no rivals
            below = [h for h in below if not (
                h.ply is not None and h.ply.is_placement and h.ply.square == best.ply.square)]
        if best.ply is not None and best.ply.is_placement and by_change:
            # the reader settles that the stack a spread onto that square would come from did
            # not shrink: the spread is no rival
            below = [h for h in below if not self._source_stood(h.ply, best.ply, evidence)]
        if self.state == "asking" and best.ply is None and not best.back:
            # the board asked about, still: the question stands. A board a hand came and went
            # before is judged again once it is answered: its change may be a ply after the one
            # asked about, which nothing explains from the position asked about (fresh seed 6013
            # answered 6 s late: `e2+`, the game's last ply, made while `a5` was asked about,
            # was never judged after the answer, and no later board came to show it)
            self._reevaluate = self._reevaluate or stable.fresh
            return []
        if self.state == "asking":
            # A ply (or a takeback) found on a board that looks as asked is judged from the
            # position before the ply asked about, which the board no longer shows: the players
            # played on, unseen by the look. The board is kept, as one that changed, and judged
            # once the question is answered. (Fresh seed 6277 answered 6 s late: "a1 then
            # 2b3-11" waited, `a2+` (a flat onto one of its colour) fitted the board from before
            # the pair, the question was dropped unanswered, and `3a2+` was later committed as
            # ply 34 without a mark.)
            self._keep_waiting(stable)
            return []
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
            def other_count(q: Ply) -> bool:
                return other_drops(q, ply)

            if not ply.is_placement and rival_within(cfg.count_margin, other_count):
                needed = max(needed, cfg.count_margin)
            # ... by heights the reader got wrong on the board before: asked about further ahead
            if not ply.is_placement and rival_within(
                MISREAD_COUNT_MARGIN,
                lambda q: other_count(q) and self._misread_before(self._heights_differ(ply, q)),
            ):
                needed = max(needed, MISREAD_COUNT_MARGIN)
            # ... or where the choice rests on a square the reader has read wrong since a
            # catch-up: asked about
            misread = self._still_misread(evidence)
            if misread and rival_within(MISREAD_SQUARE_MARGIN, lambda q: bool(
                    misread & {*q.squares(self.position.size), *ply.squares(self.position.size)})):
                needed = max(needed, MISREAD_SQUARE_MARGIN)
        # the reader confidently contradicts the best on a square it alters, or reads a placed
        # piece surely two high: never commit that
        doubted = ((best.structure is not None and best.contradiction > cfg.match_cost)
                   or self._placed_tall(best.ply, evidence))  # fmt: skip
        matched = (dict(evidence), stable.appearance)  # kept once the game matches the board

        def scored_near() -> list[Hypothesis]:
            """The best, and the hypotheses scored within `needed` of it."""
            return [best, *(h for h in below[: cfg.max_considered]
                            if h.cost - best.cost < needed)]  # fmt: skip

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
            surprise = self._count_surprise([h.ply for h in alike], best.ply, evidence)
            weighed = [(h.cost + ASK_CONTRADICTED * h.contradiction
                        + self._faint_left(h, alike, judge)
                        + COUNT_SURPRISE * surprise.get(h.ply, 0.0), i)
                       for i, h in enumerate(alike)]  # fmt: skip
            # ordered without a placement's stone prior: the prior keeps a wall or capstone
            # from being committed on a lean of the reader's, but once the square is asked
            # about, what the reader saw orders the stones (fresh bench seed 5815, 7x7, tilt 2:
            # a capstone read at 0.62 against a flat's 0.37 was put after the flat by the
            # prior, and guessed wrong). Each keeps its score with the prior, which a revision
            # weighs (`_hindsight`: a wall guessed is as easily revised to a flat as before)
            weighed.sort(key=lambda scored: (scored[0] - stone_prior(alike[scored[1]].ply),
                                             scored[1]))  # fmt: skip
            candidates = tuple(Candidate(alike[i].ply, score)
                               for score, i in weighed)[: cfg.max_candidates]  # fmt: skip
            # the plies not asked about were judged on this board too: a revision by a later
            # board must find one as much dearer as it came out here (`_hindsight`)
            self._judged_close = (candidates, {
                h.ply: h.cost + ASK_CONTRADICTED * h.contradiction
                for h in below[: cfg.max_considered] if h.ply is not None
            })  # fmt: skip
            return Ask(candidates)

        if best.ply is not None and by_change and not after_unmatched:
            both = self._pair_instead(evidence, p, changed, best, stable.appearance,
                                      held=held.ply if held is not None else None)
            if both:
                evaluation.decisions = both
                return both
        quiet_before = self._quiet  # goes with a quiet commit (`_missed_before_last`)
        if best.ply is not None or best.back:
            self._quiet = None  # a ply missed before this one can no longer be told (`_missed`)
        if best.ply is not None:
            if after_unmatched or self._withdrawn_for is stable:
                # The board was unreadable or wrong before this (or a question on it was just
                # withdrawn): a ply may have been made then and missed, and the board may show
                # two plies that happen to look like one. Never commit that quietly.
                why = ("the board did not match the game just before" if after_unmatched
                       else "the board changed while a question waited")
                out += self._ask(Ask(close().candidates, why), matched)
            elif margin >= needed and not doubted and by_change and (
                unseen_rival := self._unseen_rival(best, ranked, evidence, p)
            ):
                out += self._ask(unseen_rival, matched)
            elif (margin >= needed and not doubted and by_change
                  and self._held_in_hand(best, evidence, p, stable)):  # fmt: skip
                # judged again when it has stood, or on the next board
                self._held = Held(best.ply, matched, tuple(
                    h.ply for h in ranked[: cfg.max_considered]
                    if h.ply is not None and h.ply != best.ply and not h.ply.is_placement
                    and h.ply.square == best.ply.square and h.ply.count == best.ply.count
                    and h.structure is not None and h.structure <= cfg.structure_ok))
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
                self._undecided_after = (stable.after_hand, stable.after_motion)
                self._undecided_lifted = by_change and self._lifted_only(
                    scored_near(), evidence, p
                )
            elif by_change and self._in_hand_unseen(scored_near(), evidence, p, stable):
                self._waited = (close(), matched)  # judged again when it has stood, or on the
                # next board
            else:
                revised = self._hindsight(evidence, p, changed, best) if by_change else []
                if revised:
                    evaluation.decisions = revised
                    return revised
                out += self._ask(close(), matched)
        elif best.back:
            instead = (self._pair_not_takeback(evidence, p, changed, best, stable.appearance)
                       if by_change and not after_unmatched else [])  # fmt: skip
            if instead:
                evaluation.decisions = instead
                return instead
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

    def _lost_in_shadow(self, square: str, evidence) -> bool:
        """Did the reader stop seeing the piece it saw on `square` while the square's look only
        darkened, by the light alone (a shadow fell on it)? Then its flip to empty is not the
        sign of a piece gone that it would be with the look changed otherwise (fresh bench
        seed 1986, 6x6, tilt 31: a light flat placed on f6 shadowed the light flat on f5, read
        there at 0.96 and now empty at 0.83, its look darker by a grey 0.37; the flip made f5
        count as changed, and `f5+` was committed for `f6` without a mark). The ply is still
        judged by the rest: here asked about, with `f6`."""
        went = lost_sight(evidence[square], (self._accepted or {}).get(square))
        return went and self._shadow_fell(square)

    def _shadow_fell(self, square: str) -> bool:
        """Did `square`'s look, since the board last matched, only darken by the light alone,
        as a shadow falling on it darkens it? (`change.light_only`, `change.darkened`, both of
        the last evaluation.)"""
        return (self._light_only.get(square, 0.0) >= SHADOWED
                and self._darkened.get(square, 0.0) > 0.0)

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

    def _faint_left(self, h: Hypothesis, rivals: list[Hypothesis],
                    judge: ChangeJudge | None) -> float:
        """How much faint change (`change.p_faint`) `h` leaves unexplained on squares a rival
        alters: what orders the candidates of a question beyond their costs. In the
        cost, a square's change below `UNCHANGED_BELOW` is credited to a ply that alters it out of
        sight (a flat moved off a stack of its colour) but charged to none that leaves it alone
        (it may be noise, or a placed piece's edge): so a placement beside such a stack came
        first whatever the stack's square showed. On the stored readings of 19 bench games, of
        34 questions between a placement and a spread onto its square, the spread was played in
        each of the 9 where its source changed by 0.24 or more above the board's noise, and the
        placement in the others but one (seed 46: 0.21). Before, 4 of those 9 were guessed the
        placement (seeds 13, 118, 224, 501). Only the order: what is asked stays the same.

        A square a rival alters in sight (it empties it, or turns its top's colour) with a
        change below `UNCHANGED_BELOW` counts only as far as the reader turned there as the
        rival would have it (`ChangeJudge.turned`): too faint a change for what the rival
        does, with the reader still reading what was there, tells against the rival, not for
        it (fresh bench seeds 2001 and 2018, both 4x4: a wall placed on c3 changed c4 behind it
        by 0.69, a flat placed on c4 changed c5 by 0.66, each about 16 times the board's noise;
        `c4-` and `c5-`, which would have left c4 and c5 bare, were asked first, the reader
        reading their flats still there at 1.00). But a piece the reader saw only doubtfully
        may leave with as faint a change, the reader then reading the square empty (fresh bench
        seed 1560: a dark flat moved off b4, read there at 0.58, its look changing by 0.35).

        And a square a rival alters only in height counts only as far as the reader did not see
        its height stay (`ChangeJudge.height_news`) where `h` sets a piece or stack down beside
        it, which changes it faintly as well, by its shadow and its body in the view: next to a
        stack built up to rise over its neighbours (fresh bench seed 2856, 4x4, tilt 29: `3d2+`
        built d3 from one flat to four, read 4 at 0.98; d4 behind it changed by 0.74, its flat
        read the same before and after at 1.00; `3d2+21` was asked first, 2.0 ahead for that
        change, guessed, and 21 plies were lost), and since session 36 next to any ply where
        the reader read the height stay surely (`HEIGHT_SEEN_TO_STAY`; fresh seed 3688, 4x4,
        tilt 31: a flat placed on c2 changed the two-high d2 beside it faintly, read two high
        before and after at 1.00; `d2<` was asked first, 1.3 ahead, and guessed; of the 263
        stored games this kept two, 3669 and 3688, and changed no other; without the bar it
        kept 3606 too, but put the placement first where bench seeds 13, 118, 224 and 501 had
        the spread, read less surely, `test_by_change`'s question of a placement and a spread).
        Nor at all where, next to a stack `h` builds up to rise in the view
        (`ChangeJudge.rises_in_view`), the reader read a piece there before and none now
        (`ChangeJudge.hidden`): the risen stack hides it whole (fresh bench seed 3242, 4x4,
        tilt 39: `3b1+12` built b3 up to three, b4's flat behind it went from 0.99 to read
        empty, and `3b1+111` was asked first, 2.0 ahead), whatever the rival does there, in
        sight or not (fresh seed 5341, 4x4, tilt 36: a wall placed on b3 hid b4's lone flat
        behind it, read empty now; `b4-`, which empties b4, fitted that faint change, and was
        asked first and guessed though `Sb3` scored 0.55 better and the reader contradicted
        `b4-` on b3; 16 plies later the wall moved and the game was lost). And where the reader
        still reads the piece there, a change next to the risen stack, however plain, counts for
        a rival that alters the square in sight only as far as the reader turned as the rival
        would have it (`ChangeJudge.turned`): the risen stack changed the square's look in the
        view (fresh bench seed 6161, 4x4, tilt 37: a light wall placed on b3 in front of b4's
        light wall, b4 read a wall still at 0.92; `b4-` was asked first, `Sb3` 2.15 behind it
        for the change on b4, and guessed)."""
        if judge is None:  # (not judged by change: no faint changes)
            return 0.0
        position = self.position
        mine = set(h.ply.squares(position.size)) if h.ply is not None else set()
        # stacks `h` builds up to rise over their neighbours in the view
        built = self._alters(h.ply) if h.ply is not None else {}
        risen = {n for sq, (old, new) in built.items()
                 if len(new) > len(old) and judge.rises_in_view(sq, new)
                 for n in neighbours(sq, position.size)}  # fmt: skip
        weight: dict[str, float] = {}
        for rival in rivals:
            if rival is h or rival.ply is None:
                continue
            for sq, (old, new) in self._alters(rival.ply).items():
                if sq in mine:
                    continue
                in_sight = not top_colour_kept(old, new)
                w = (judge.turned(sq, old, new)
                     if in_sight and (self.changes.get(sq, 0.0) < UNCHANGED_BELOW or sq in risen)
                     else 1.0)  # fmt: skip
                if sq in risen and judge.hidden(sq):
                    w = 0.0  # (behind the risen stack: its change is that stack's)
                elif not in_sight:
                    _, _, stayed = judge.height_news(sq, len(old), len(new))
                    if sq in risen or stayed >= HEIGHT_SEEN_TO_STAY * W_HEIGHT_NEWS:
                        w *= max(0.0, 1.0 - stayed / W_HEIGHT_NEWS)
                weight[sq] = max(weight.get(sq, 0.0), w)
        return sum(W_UNALTERED * w * self._faint.get(sq, 0.0) for sq, w in weight.items())

    def _heights_differ(self, ply: Ply, other: Ply) -> list[str]:
        """The squares `ply` and `other` leave with stacks of different heights."""
        mine = {sq: len(new) for sq, (_, new) in self._alters(ply).items()}
        theirs = {sq: len(new) for sq, (_, new) in self._alters(other).items()}
        height = self.position.height  # (of a square neither alters)
        return [sq for sq in {*mine, *theirs}
                if mine.get(sq, height(sq)) != theirs.get(sq, height(sq))]  # fmt: skip

    def _wrong_at_last_match(self) -> set[str]:
        """The squares the reader read against the game on the board the game last matched (a
        misread that stands: the same reading now says nothing new about them)."""
        return set(wrong_squares(self.position, self._accepted)) if self._accepted else set()

    def _misread_before(self, squares: Iterable[str]) -> bool:
        """Did the reader, on the board the game last matched, read the height of a stack on one
        of `squares` wrong (less than even odds for the height the game knows it has)? Its
        height news there (`by_change.height_news`) then rests on a misread that may as well
        have turned the other way."""
        for sq in squares:
            ev, known = (self._accepted or {}).get(sq), self.position.height(sq)
            if ev is None or known == 0 or ev.p_occupied < 0.5:
                continue
            if ev.height_p is not None:
                sure = ev.height_p[ev.readable(known) - 1]
            else:
                sure = 1.0 if round(ev.height) == known else 0.0
            if sure < 0.5:
                return True
        return False

    def _alters(self, ply: Ply) -> dict[str, tuple[tuple, tuple]]:
        """The squares `ply` alters from the current position: (stack before, stack after)."""
        position = self.position
        before = {sq: position.stack(sq) for sq in ply.squares(position.size)}
        position.push(ply)
        try:
            return {sq: (old, position.stack(sq)) for sq, old in before.items()}
        finally:
            position.pop()

    def _judge(self, position: Position, evidence, p, changed) -> ChangeJudge:
        """A judge of `position` against the board of the last evaluation, by its changes."""
        return ChangeJudge(position, evidence, p, changed, self._accepted, self._faint,
                           self._light_only, self._still)

    def _fits_by_change(self, judged: Hypothesis | Judged) -> bool:
        """A hypothesis judged by change fits the board: the pattern of changed squares misfits
        it by at most `structure_ok`, and the reader does not surely contradict it on a square
        it alters about a piece being there or its colour."""
        cfg = self.config
        return (judged.structure is not None and judged.structure <= cfg.structure_ok
                and judged.colour_contradiction <= cfg.match_cost)  # fmt: skip

    def _uncontradicted(self, judged: Iterable[Judged]) -> list[Candidate]:
        """Of `judged` (plies, or pairs with their reply as `then`), those that fit the board by
        change and that the reader contradicts by no more than the match cost, each scored by
        its cost and that contradiction, best first (equal scores in the order given)."""
        cfg = self.config
        fits = [Candidate(j.ply, j.cost + j.contradiction, then=j.then)  # type: ignore[arg-type]
                for j in judged
                if j.ply is not None and self._fits_by_change(j)
                and j.contradiction <= cfg.match_cost]  # fmt: skip
        return sorted(fits, key=lambda c: c.cost)

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

    def _nearly_shown(self, ranked: list[Hypothesis], evidence, appearance) -> list[Decision]:
        """The best ply only just misses the structure check (by at most `near_miss`), the
        reader contradicts nothing it does, and no other explanation comes close: asked about,
        alone, rather than reported illegal. Fresh bench seed 2460 (4x4): `2a3>` brought a dark
        wall onto b3, in front of b4, whose light flat the reader then read as a dark one; b4's
        look and the reader's answer had both changed beside a stack now standing tall, and
        `2a3>` missed by 0.06. The board was reported illegal, the players played on, and the
        game was out of sync for its last 8 plies. A board that a ply explains this nearly, and
        nothing else does, is that ply more often than it is anything the rules forbid; and it
        is asked, never committed quietly. Rivals within twice the commit margin are asked
        about with it when each of them nearly shows the board in the same way; any other rival
        that close, and nothing is asked."""
        cfg = self.config
        if not ranked or ranked[0].ply is None or ranked[0].structure is None:
            return []

        def nearly(h: Hypothesis) -> bool:
            return (h.ply is not None and h.structure is not None
                    and cfg.structure_ok < h.structure <= cfg.structure_ok + cfg.near_miss
                    and h.contradiction <= NOTHING_AGAINST
                    and h.colour_contradiction <= NOTHING_AGAINST)  # fmt: skip

        best = ranked[0]
        close = [h for h in ranked[1 : cfg.max_considered]
                 if h.cost - best.cost < 2 * cfg.commit_margin
                 and h.contradiction <= cfg.match_cost]  # fmt: skip
        # rivals as near are asked about with it (fresh bench seed 3836, 5x5, tilt 39: `b4<`
        # and `a5-` each moved a wall onto a4, each leaving the other's square changed, 0.94
        # apart; the recording ended on a board reported illegal, its last ply unrecorded);
        # any other rival that close, and nothing is asked. A rival the reader surely
        # contradicts is no explanation of the board and stands in the way of none (fresh bench
        # seed 5559, 4x4, tilt 39: the last ply `2b2<` raised a wall on a2 in front of a3,
        # whose look changed; `2b2<`, `3b2<` and `b2<` each nearly fitted, and `4b2<`, 1.19
        # behind but leaving b2 empty where the reader read two flats at 0.999, kept the
        # question from being asked: the game's last ply went unrecorded)
        if not nearly(best) or not all(nearly(h) for h in close):
            return []
        ask = Ask(tuple(Candidate(h.ply, h.cost) for h in [best, *close])[: cfg.max_candidates],
                  "the board nearly shows this ply: a square beside it changed as well")
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

    def _ask_on_board(self, ask: Ask, evidence, appearance) -> list[Decision]:
        """Ask `ask` about this board, which no one ply fitted by what changed: after `Resynced`
        when the board did not match the game before (illegal, desync), which it now may."""
        out: list[Decision] = [Resynced()] if self.state in ("illegal", "desync") else []
        self.unmatched_since = None
        return out + self._ask(ask, (dict(evidence), appearance))

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
        self._asked_ranked = self.last.ranked if self.last is not None else []
        return [ask]

    def _source_stood(self, spread: Ply | None, placed: Ply,
                      evidence: Mapping[str, SquareEvidence]) -> bool:  # fmt: skip
        """Is `spread` pieces moved off one stack onto the square `placed` puts its piece on,
        where the stack's look surely did not change (`UNCHANGED_BELOW`: its top kept its colour,
        only its height would tell) and the reader's heights of it, on the board last matched
        and now, give it less than `SOURCE_STOOD` of having shrunk by them? Fresh bench seed
        6004 (ply 50): `b5` placed, and `c5<`, a dark flat off c5's two dark flats, asked beside
        it though the reader read c5 two high at 0.99 before and after; such questions were a
        third of all the live board asked on 200 fresh games, every one answered with the
        placement."""
        if spread is None or spread.is_placement:
            return False
        squares = spread.squares(self.position.size)
        if len(squares) != 2 or squares[1] != placed.square:
            return False
        source = spread.square
        then, now = (self._accepted or {}).get(source), evidence.get(source)
        if (self.changes.get(source, math.inf) >= UNCHANGED_BELOW or then is None or now is None
                or then.height_p is None or now.height_p is None):  # fmt: skip
            return False
        old = self.position.height(source)
        shrunk = then.readable(old) - now.readable(old - spread.count)
        return height_change_share(then.height_p, now.height_p, -shrunk) < SOURCE_STOOD

    def fits_alone(self, ply: Ply) -> bool:
        """Does `ply` alone explain the board the pending question was asked about, by what
        changed: is it one of the hypotheses that board was weighed with, does it fit the
        pattern of its changes (`structure_ok`), and does the reader contradict it there by no
        more than one top's colour misread (`MISREAD_COLOUR`)? A ply typed in answer that does
        not leaves more on that board than it explains (two plies at once, one never seen; or
        more plies made before the question: fresh seed 6277, answered 3 s late, `a2+` then
        `b1>` and `2a2+` were asked as "3a2+ or 3a2-"; `a2+` typed, whose a2 the reader read
        surely otherwise, left the tracker's picture of the board two plies on, and the next
        spread was recorded as ply 37 without a mark)."""
        return self.pending is not None and any(
            h.ply == ply and not h.back and h.structure is not None
            and h.structure <= self.config.structure_ok
            and h.colour_contradiction <= MISREAD_COLOUR for h in self._asked_ranked)

    def _back_before_ask(self, stable: StableReading) -> bool:
        """Is the board back to how it was before the ply asked about, and no longer as asked
        (judged by change)? A board that looks as both, the ply asked about too faint to tell,
        says nothing was taken back (fresh seed 6450 answered 3 s late: `b4>` asked, `b2+` as
        faint made meanwhile; withdrawn, that board became the one the next was compared with,
        `b2+` was lost, and `b1>` was committed in its place)."""
        if self._before_ask is None or stable.appearance is None:
            return False
        before_evidence, before_looks = self._before_ask
        if before_looks is None:
            return False
        p = {sq: p_changed(c) for sq, c in changes(stable.appearance, before_looks).items()}
        return self._nothing_since(stable, before_evidence, p) and not self._as_asked(stable)

    def _one_ply_since_before_ask(self, stable: StableReading) -> bool:
        """The pending question is about spreads alone, one ply at a time: does one spread off
        the square they start on explain this board from the board before the question, clearly
        (the commit margin ahead of every other hypothesis), by what changed? Then the spread
        asked about was unfinished, its pieces still in a hand. (Not for placements or pairs:
        a pair's board judged from before it fitted one spread by chance, fresh seed 3780, a
        question answered 3 s late.)"""
        before_evidence, before_looks = self._before_ask  # type: ignore[misc]
        asked = self.pending.candidates  # type: ignore[union-attr]
        if (before_looks is None or stable.appearance is None
                or any(c.then is not None or c.ply.is_placement for c in asked)):  # fmt: skip
            return False  # (only a spread asked about alone may have been unfinished)
        p = self._changed_since(stable, before_evidence, before_looks)
        ranked = ChangeJudge(self.position, stable.evidence, p, None,
                             before_evidence).ranked(self.config.takeback_depth)  # fmt: skip
        best = next((j for j in ranked[: self.config.max_considered]
                     if self._fits_by_change(j)), None)  # fmt: skip
        if (best is None or best.ply is None or best.back or best.ply.is_placement
                or best.ply.square not in {c.ply.square for c in asked}):  # fmt: skip
            return False  # (the spread asked about, finished, starts where it did)
        if best.ply in {c.ply for c in asked}:
            # one of the plies asked about: the answer names it, and the board may show a ply
            # after it (fresh seed 6056, answered 3 s late: `e5+` asked, then `d5+` played; `e5+`
            # still ranked first from the board before, withdrawn, and judged from there the
            # board fitted nothing)
            return False
        runner_up = min((j.cost for j in ranked if j is not best), default=math.inf)
        return runner_up - best.cost >= self.config.commit_margin

    def _as_asked(self, stable: StableReading) -> bool:
        """Does the board look as it did when the pending question was asked (nothing changed
        since, judged by change)? True when there is no telling (no signatures, or no board
        kept for it)."""
        if self._before_ask is not None:  # (the board asked on is the one compared with)
            return self._looks_as(stable, self._accepted, self._looks)
        asked = self._asked_board
        return asked is None or self._looks_as(stable, asked.evidence, asked.appearance)

    def _looks_as(self, stable: StableReading, evidence, looks) -> bool:
        """Does `stable` look as the board read as `evidence` with signatures `looks` did, nothing
        changed between them (judged by change)? True when there is no telling."""
        if looks is None or stable.appearance is None:
            return True
        return self._nothing_since(stable, evidence, self._changed_since(stable, evidence, looks))

    def _nothing_since(self, stable: StableReading, evidence, p: Mapping[str, float]) -> bool:
        """Does "nothing happened" fit `stable` against the board read as `evidence`, each
        square having changed as surely as `p` says?"""
        return self._fits_by_change(
            ChangeJudge(self.position, stable.evidence, p, None, evidence).nothing()
        )

    @staticmethod
    def _changed_since(stable: StableReading, evidence, looks) -> dict[str, float]:
        """How surely each square changed between the board read as `evidence` with signatures
        `looks` and `stable`. A square where the reader surely saw a piece come or go counts as
        changed when its look changed above the board's noise at all, as in judging a ply (a
        light flat placed on light wood changes its square's colours little: fresh bench seed
        6058's `a7`, placed while a question waited, was taken for no change at all)."""
        changed = changes(stable.appearance, looks)
        p = {sq: p_changed(c) for sq, c in changed.items()}
        floor = board_noise(changed)
        for sq in flipped_squares(stable.evidence, evidence or {}):
            if changed.get(sq, 0.0) >= max(FLIP_MIN_CHANGE, FLIP_OVER_NOISE * floor):
                p[sq] = 1.0
        return p

    def _keep_waiting(self, stable: StableReading) -> None:
        """Keep `stable`, seen while a question waits, to be judged once it is answered
        (`step`), unless it looks as the last board kept."""
        last = self._boards_waiting[-1] if self._boards_waiting else None
        if last is None or not self._looks_as(stable, last.evidence, last.appearance):
            self._boards_waiting.append(stable)

    def _withdraw(self, stable: StableReading) -> list[Decision]:
        """The ply asked about was taken back before the answer: forget the question."""
        self.pending = self._before_ask = None
        self._boards_waiting = []  # (taken back with it)
        self._reevaluate = False  # (and its judge-again)
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
        # the squares bare at the end, as the game and the last still board both have them
        evidence = self.last.evidence if self.last is not None else {}
        self._bare_since_end = {
            sq for sq, e in evidence.items()
            if not self.position.stack(sq) and e.p_occupied <= 1 - PLAYED_ON_SURE
        }
        return [GameOver(outcome)]

    def _count_surprise(self, plies: list[Ply], best: Ply | None,
                        evidence: Mapping[str, SquareEvidence]) -> dict[Ply, float]:  # fmt: skip
        """For the plies of a question that are `best`'s spread with other drops (when there are
        two or more): how much more the reader's height probabilities are surprised by the
        heights each leaves on the spread's squares than by the least surprising one's
        (`scoring.height_surprise`). A spread of three from b3 down is `3b3-12` or `3b3-21`:
        b2 left two high or three, b1 the other way, and the reader's probabilities of those
        heights say which it saw, where its calls alone may be one piece off on each."""
        if best is None or best.is_placement:
            return {}
        family = [q for q in plies if other_drops(q, best)]
        if len(family) < 2:
            return {}
        position, size = self.position, self.position.size
        squares = {sq for q in family for sq in q.squares(size)}
        totals: dict[Ply, float] = {}
        for q in family:
            position.push(q)
            try:
                totals[q] = sum(height_surprise(evidence.get(sq), position.height(sq))
                                for sq in squares)  # fmt: skip
            finally:
                position.pop()
        least = min(totals.values())
        return {q: t - least for q, t in totals.items()}

    def _played_on(self, evidence: Mapping[str, SquareEvidence]) -> list[Decision]:
        """After an ending that rests on unsure plies (no other is watched), with no revision
        of them fitting the board: has a piece come onto a square that was surely bare at the
        end or on a still board since? Clearing a board after a game only takes pieces off; a
        piece put on means the game goes on, and the ending was likely false (fresh bench seed
        2765: a false road at ply 36 of 55 on a crowded 4x4 board, and 19 plies went unrecorded
        without a word; now a piece put on a2, read bare on the still board before, says so 8 s
        after the end). Said once."""
        if self._bare_since_end is None:
            return []
        placed = tuple(sorted(sq for sq in self._bare_since_end
                              if evidence[sq].p_occupied >= PLAYED_ON_SURE))  # fmt: skip
        self._bare_since_end |= {sq for sq, e in evidence.items()
                                 if e.p_occupied <= 1 - PLAYED_ON_SURE}  # fmt: skip
        if not placed:
            return []
        self._bare_since_end = None
        return [PlayedOn(placed)]

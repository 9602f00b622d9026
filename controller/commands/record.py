"""`takboard record SOURCE --size N`: record a game from a folder of frames or a video file, as PTN.

    takboard record frames/ --size 5 --komi 2 -o game.ptn --debug debug/
    takboard record game.mp4 --size 6 --corners 102,630,1180,640,1010,90,260,85

Frames go through the real vision reader (`vision.reader.BoardReader`) into the tracker
(`controller.tracking.Tracker`). Time is the frame index / fps: a folder holds one frame every 1/fps
seconds in file-name order; a video is read frame by frame at its own pace, with `--fps` saying how
far apart its frames are. The recording must start with the empty board (2 s or more).

A ply the tracker is unsure of (several plies explain the board about equally) is recorded as the
best of them with `?` and a comment naming the others; an illegal or unknown board is reported on
stderr and nothing is recorded until it matches the game again. `--db` also journals every ply
(durably) so `takboard games list/export` see the game; `--resume` continues the newest unfinished
game of that journal, waiting until the board shows its position.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from controller.engine.annotate import annotate_plies
from controller.service.marks import NODE_BUDGET as MARK_NODE_BUDGET
from controller.store import Journal, PlyNote, game_ptn, unsure_comment
from controller.tak import CAP, WALL, WHITE, InvalidPlyError, Ply, Position, square_name
from controller.tracking import (
    Ask,
    Candidate,
    Commit,
    Decision,
    Desync,
    Evaluation,
    GameOver,
    Illegal,
    PlayedOn,
    Resynced,
    Takeback,
    Tracker,
    TrackerConfig,
)
from controller.tracking.change import CHANGED_ABOVE
from controller.tracking.second_look import (
    as_after,
    emptied_yet_seen,
    judged_now,
    last_touched,
    rival_of_sure,
)

# Offline a question costs a `?` in the file and nothing more; live it makes the LEDs stop the
# players. So the recorder asks about a placement's kind sooner than the service does: a flat must
# lead the same square's wall by 1.10, about 97 % of the reader's belief, not 1.05 (fresh bench
# seed 2420: a wall read as a flat 94-98 % sure on every frame, 1.09 ahead, written unmarked; on
# the 1,124 stored games silent errors 4 -> 3 for 0.6 % more plies marked).
OFFLINE = TrackerConfig(kind_margin=1.10)
# how sure the reader must be that a placed piece is there, and of its colour, for it to settle
# whose turn it was after a ply that may have been one or two (`Recorder._confirm_count`): the
# level at which the tracker takes a wall's or capstone's kind as settled (`kind_sure`)
COUNT_SURE = 0.98


class RecordError(ValueError):
    """Bad arguments or an unusable source, said plainly."""


@dataclass
class Event:
    """One decision with the frame index and time it was made at."""

    frame: int
    t: float
    decision: Decision

    def describe(self) -> str:
        d = self.decision
        if isinstance(d, Commit):
            return f"ply {d.number}: {d.ply.ptn()} (margin {d.margin:.2f})"
        if isinstance(d, Ask):
            names = ", ".join(c.describe() for c in d.candidates)
            best = d.candidates[0]
            then = "".join(f" then {p.ptn()}?" for p in (best.then, *best.more) if p is not None)
            why = f" ({d.reason})" if d.reason else ""
            return f"unsure between {names}: recorded {best.ply.ptn()}?{then}{why}"
        if isinstance(d, Takeback):
            return f"takeback of {d.n} ply" + ("" if d.n == 1 else "s")
        if isinstance(d, Illegal):
            return "illegal or unknown board; check " + (", ".join(d.squares) or "the board")
        if isinstance(d, Desync):
            return f"out of sync, recording paused; put the board back to {d.expected}"
        if isinstance(d, Resynced):
            return "board matches the game again"
        if isinstance(d, GameOver):
            return f"game over: {d.outcome.result()}"
        if isinstance(d, PlayedOn):
            return (f"pieces put on {', '.join(d.squares)} after the game ended: the ending "
                    "rests on unsure plies and is likely false; nothing played after it is "
                    "recorded")
        return repr(d)


def _past_end(ply: Ply, size: int) -> str | None:
    """The square one past a spread's last drop, along its direction (None for a placement, or
    at the board's edge)."""
    if ply.is_placement:
        return None
    try:
        return Ply.spread(ply.square, ply.direction, (*ply.drops, 1)).squares(size)[-1]
    except InvalidPlyError:
        return None


@dataclass
class Recorder:
    """Frames in, plies out. `reader` is anything with `read(frame) -> BoardReading`."""

    size: int
    reader: object
    komi: int = 0
    journal: Journal | None = None
    game_id: int | None = None
    config: TrackerConfig = OFFLINE
    debug: DebugWriter | None = None
    notes: list[PlyNote] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    result: str | None = None
    frames: int = 0
    last_t: float = 0.0  # the last frame's time
    last_reading: object = None  # what the reader read of the last frame
    _taken: list[PlyNote] = field(default_factory=list)
    # squares whose stacks depend on an unsure ply nobody answered: square -> that ply's number
    _doubt: dict[str, int] = field(default_factory=dict)
    # squares one past the end of a spread that carried pieces from a square in doubt: with one
    # piece more it would have dropped there too (`_changed_in_doubt`): square -> that ply's number
    _beyond: dict[str, int] = field(default_factory=dict)
    # squares whose top may be a wall or not, by an unsure ply: square -> that ply's number
    _wall_doubt: dict[str, int] = field(default_factory=dict)
    # an unsure ply nobody answered that may have been one ply or two (or two plies one, or a
    # catch-up's plies fewer or more): every ply after it may be numbered wrong (its number; None
    # when there is none)
    _count_doubt: int | None = None
    # ... and how many guesses since (it, a later "one ply or two", a pair guessed): each may
    # have put the count one off
    _count_guesses: int = 0
    # what to tell a reader of the PTN when the board showed play after the recorded end
    # (`PlayedOn`); "" when it did not
    played_on: str = ""

    def __post_init__(self) -> None:
        position = Position(self.size, komi=self.komi)
        if self.journal is not None and self.game_id is not None:
            record = self.journal.game(self.game_id)
            position = record.position()
            self.notes = [PlyNote(e.ply, e.uncertain, e.alternatives) for e in record.plies]
        self.tracker = Tracker(position, self.config, resume=bool(self.notes))

    def feed(self, frame: np.ndarray, t: float) -> list[Event]:
        reading = self.reader.read(frame)  # type: ignore[attr-defined]
        self.last_reading = reading
        decisions = self.tracker.step(reading, t)
        out: list[Event] = []
        for decision in decisions:
            out += self._apply(Event(self.frames, t, decision))
        if self.debug is not None:
            self.debug.frame(self.frames, frame, reading, self.tracker, out)
        self.frames += 1
        self.last_t = t
        return out

    def finish(self) -> list[Event]:
        """The source has ended: what the tracker still had waiting (`Tracker.finish`)."""
        out: list[Event] = []
        for decision in self.tracker.finish():
            out += self._apply(Event(max(0, self.frames - 1), self.last_t, decision))
        return out

    def unmatched_at_end(self) -> str:
        """When the frames end with the board not matching the game (out of sync, or a board
        no ply explains): what a user must know, since plies made from then on are missing from
        the PTN; else ""."""
        tracker = self.tracker
        if tracker.state not in ("illegal", "desync") or tracker.unmatched_since is None:
            return ""
        count = tracker.position.ply_count
        after = f"ply {count} ({self.notes[-1].ply.ptn()})" if self.notes else "the start"
        wrong = tracker.last.wrong if tracker.last is not None else []
        check = f"; the board differed on {', '.join(wrong)}" if wrong else ""
        return (f"the board has not matched the game since t={tracker.unmatched_since:.1f}s: "
                f"nothing after {after} was recorded{check}")

    def _apply(self, event: Event) -> list[Event]:
        events = self._handle(event)
        for e in events:
            if isinstance(e.decision, GameOver):
                self.result = e.decision.outcome.result()
                if self.journal is not None and self.game_id is not None:
                    self.journal.finish(self.game_id, self.result)
        self.events += events
        return events

    def _handle(self, event: Event) -> list[Event]:
        """Record one decision; -> it and the decisions that followed from it."""
        decision = event.decision
        events = [event]
        if isinstance(decision, Commit):
            self._confirm_count(decision)
            note = self._follow_doubt(decision.ply, decision.number)
            if not note.uncertain:
                note = self._second_look(decision) or note
            self._write(note)
            self._mark_emptied_in_doubt(decision)
        elif isinstance(decision, Ask):
            # Offline there is nobody to ask: keep the best, mark it, name the others.
            best, *others = decision.candidates
            heights, walls = self._doubts_of(list(decision.candidates))
            # a pair of plies against one ply alone, or a pair guessed with no one ply beside it
            # (two plies at once, a catch-up): every later ply's number rests on this one. (Fresh
            # bench seed 4907: a catch-up and three pairs, none asked against one ply alone,
            # numbered the game's last plies two late, two of them without a mark.)
            one_or_two = (len({c.then is None for c in decision.candidates}) == 2
                          or best.then is not None)  # fmt: skip
            number = self.tracker.position.ply_count + 1
            follows = self.tracker.accept(best.ply, guess=True, then=best.then, more=best.more)
            if not any(isinstance(f, Commit) for f in follows[1:]):  # (not a revision's replay)
                self._follow_doubt(best.ply, number)  # older doubts go with the pieces it moved
            self._doubt.update(heights)  # this ply is the nearest cause to name
            self._wall_doubt.update(walls)
            if one_or_two and self._count_doubt is None:  # (the first such names the cause)
                self._count_doubt, self._count_guesses = number, 1
            elif one_or_two:
                self._count_guesses += 1  # (another count that may be one off)
            # (pairs sharing their first ply differ in the reply: each ply names its own others)
            # (a catch-up's others are whole sequences of plies: its reason names them)
            firsts = () if any(c.more for c in decision.candidates) else tuple(
                dict.fromkeys(c.ply for c in others if c.ply != best.ply))
            self._write(PlyNote(best.ply, True, firsts, decision.reason))
            # the plies seen at once with it, in order
            seen_with = [p for p in (best.then, *best.more) if p is not None]
            for follow in follows[1:]:
                if isinstance(follow, Commit) and seen_with:
                    # the reply seen at once with it (and any more): as unsure as the ply before
                    later = seen_with.pop(0)
                    replies = tuple(dict.fromkeys(
                        c.then for c in others
                        if c.ply == best.ply and c.then is not None and c.then != best.then
                    )) if later == best.then else ()  # (a catch-up's later plies: its reason)
                    why = (decision.reason if best.more
                           else f"made before the board was still after {best.ply.ptn()}")
                    self._write(PlyNote(follow.ply, True, replies, why))
                    events.append(Event(event.frame, event.t, follow))
                elif isinstance(follow, Commit):  # plies played again after a revised one
                    taken = self._taken.pop(0) if self._taken else None
                    if taken is not None and taken.ply == follow.ply:
                        self._write(taken)
                    else:  # changed to fit the revised ply: as unsure as it
                        was = (taken.ply,) if taken is not None else ()
                        why = f"changed to fit revised ply {follows[0].number}"
                        self._write(PlyNote(follow.ply, True, was, why))
                    events.append(Event(event.frame, event.t, follow))
                if isinstance(follow, GameOver):
                    events.append(Event(event.frame, event.t, follow))
            # a revised or unseen ply answered: the board may already show the next one
            for again in self.tracker.judge_again():
                events += self._handle(Event(event.frame, event.t, again))
        elif isinstance(decision, PlayedOn):
            unsure = [i + 1 for i, note in enumerate(self.notes) if note.uncertain][-3:]
            self.played_on = (
                f"the board showed pieces put on {', '.join(decision.squares)} after this "
                f"ending at t={event.t:.1f}s: the result rests on unsure plies (the last of "
                f"them: {', '.join(map(str, unsure))}) and is likely false; plies played after "
                "it were not recorded"
            )
            if self.journal is not None and self.game_id is not None:
                self.journal.set_tags(self.game_id, Note=self.played_on)
        elif isinstance(decision, Takeback):
            if self.result is not None:  # the ending rested on a guess the tracker now revises
                self.result = None
                if self.journal is not None and self.game_id is not None:
                    self.journal.reopen(self.game_id)
                    if self.played_on:
                        self.journal.set_tags(self.game_id, Note=None)
                self.played_on = ""
            self._taken = self.notes[-decision.n :][1:]  # may be played again (a revised ply)
            del self.notes[-decision.n :]
            if self.journal is not None and self.game_id is not None:
                self.journal.undo_plies(self.game_id, decision.n)
        return events

    def _doubts_of(self, candidates: list[Candidate]) -> tuple[dict[str, int], dict[str, int]]:
        """An unsure ply, about to be recorded as the first of `candidates` (each a ply, or two
        plies at once: its reply played too): the squares where the others would leave stacks
        of other heights (a later ply's PTN depends on how many pieces it carries), and those
        where one would leave a wall on top and another not (a capstone moved onto it later is
        written with `*` or without); each -> the ply's number. (Fresh bench seed 2172, from
        straight above: "c3 then 2c1+11" guessed for a wall placed elsewhere, `Sc3` the other
        candidate, both two high on c3: the placement under a drop is in doubt by itself, and `2c3<`
        five plies later was recorded without a mark.)"""
        position = self.tracker.position
        number = position.ply_count + 1
        outcomes = []

        def plies_of(candidate: Candidate) -> list[Ply]:
            later = [candidate.then, *candidate.more] if candidate.then is not None else []
            return [candidate.ply, *later]

        def touched_by(candidate: Candidate) -> set[str]:
            return {sq for ply in plies_of(candidate) for sq in ply.squares(self.size)}

        for candidate in candidates:
            plies = plies_of(candidate)
            touched = touched_by(candidate)
            played = 0
            try:
                for ply in plies:
                    position.push(ply)
                    played += 1
                outcomes.append({sq: position.stack(sq) for sq in touched})
            finally:
                for _ in range(played):
                    position.pop()
        chosen, *others = outcomes
        if not others:
            # asked with nothing to set against it (a ply the board shows, though not as every
            # square looks; a ply not seen before this board): the game without it is the other
            # answer (fresh bench seed 2274: `b2<` asked alone for `c3`, and `a2>` six plies
            # later written `2a2>` without a mark)
            others = [{}]
        best = candidates[0]
        if best.then is not None:
            # two plies seen at once, the first guessed: it may have been made elsewhere, unseen
            # (which no candidate names), and the reply alone is then what these squares show
            # (fresh bench seed 3388: `c2-` then `d2<` asked alone for `b5` then `d2<`; c2 the
            # same height either way as without both, and `2c2+` six plies later written `c2+`
            # without a mark)
            unseen = self._after_unseen_first(best.then, touched_by(best))
            if unseen is not None:
                others.append(unseen)
        heights: dict[str, int] = {}
        walls: dict[str, int] = {}
        for other in others:
            for sq in chosen.keys() | other.keys():
                now = position.stack(sq)
                mine, theirs = chosen.get(sq, now), other.get(sq, now)
                if len(mine) != len(theirs):
                    heights[sq] = number
                elif mine and (mine[-1][1] == WALL) != (theirs[-1][1] == WALL):
                    walls[sq] = number
        if best.then is not None and best.ply.is_placement and \
                best.ply.square in best.then.squares(self.size)[1:]:
            # the guessed placement lies under the reply's drop, never seen: had the missing ply
            # been played anywhere else (which no candidate names), the square is one lower (the
            # unseen first ply above says so too, but only while another square is empty)
            heights[best.ply.square] = number
        return heights, walls

    def _after_unseen_first(self, reply: Ply, touched: set[str]) -> dict[str, tuple] | None:
        """The stacks on `touched` had a flat been placed on some other empty square and then
        `reply` played (the first of two plies made somewhere the camera did not show); None
        when there is no such square or the reply would then be illegal."""
        position = self.tracker.position
        n = self.size
        squares = (square_name(f, r) for r in range(n) for f in range(n))
        elsewhere = next((sq for sq in squares if sq not in touched and not position.stack(sq)),
                         None)  # fmt: skip
        if elsewhere is None:
            return None
        position.push(Ply.place(elsewhere))
        try:
            if reply not in position.legal_plies:
                return None
            position.push(reply)
            stacks = {sq: position.stack(sq) for sq in touched}
            position.pop()
            return stacks
        finally:
            position.pop()

    @contextlib.contextmanager
    def _as_after(self, number: int) -> Iterator[None]:
        """The game as it stood just after ply `number`. The tracker may have played more by
        the time the recorder follows a ply (two plies committed together, a reply played with
        a guess), and a ply is judged on the board it left: judged after both, a square the
        second ply emptied looked emptied by the first, out of doubt, and the second went
        unmarked (fresh bench seed 2581: `2c5>` and `c5>` committed together, counts swapped)."""
        with as_after(self.tracker.position, number):
            yield

    def _follow_doubt(self, ply: Ply, number: int) -> PlyNote:
        """Ply `number`, which the tracker was sure of, as a note: unsure after all when it
        carries pieces from a square in doubt (how many there were to carry, and so its PTN,
        depends on the unsure ply: bench seed 41, `2c1>` recorded unsure for `2c1>11`, then
        `d1<` committed as `2d1<`). The squares it drops on are then in doubt too; a square it
        empties is not."""
        with self._as_after(number):
            return self._follow_doubt_now(ply)

    def _follow_doubt_now(self, ply: Ply) -> PlyNote:
        """`_follow_doubt` on the game as it stood just after `ply`."""
        source = None if ply.is_placement else self._doubt.get(ply.square)
        # a piece placed where the game has the square bare only by an unsure ply's answer: by
        # another answer pieces stood there, and the ply seen was no placement (fresh bench seed
        # 5040, 4x4: `2a4-` guessed for `a4-` at ply 40 left a4 bare; `b4<` then moved a flat
        # onto a4's, and `a4` was written without a mark)
        placed_on = (self._doubt.get(ply.square, self._beyond.get(ply.square))
                     if ply.is_placement else None)  # fmt: skip
        position = self.tracker.position
        squares = ply.squares(self.size)
        for sq in squares:
            if not position.stack(sq):
                self._doubt.pop(sq, None)
            elif source is not None:
                self._doubt.setdefault(sq, source)
        beyond = _past_end(ply, self.size)
        if source is not None and beyond is not None:
            # how many pieces it carried hangs on the unsure ply: with one more, the spread may
            # have gone a square further (fresh bench seed 4927: `2b1+` recorded, marked, for
            # `3b1+21`, which left a flat on b3 the game so recorded never had)
            self._beyond.setdefault(beyond, source)
        for sq in squares[1:] if not ply.is_placement else squares:
            if sq != beyond:
                self._beyond.pop(sq, None)  # (covered by what the game knows of it now)
        onto_wall, flattened = self._follow_wall_doubt(ply, squares)
        why = []
        if source is not None:
            why.append(f"carries pieces from {ply.square}, which depends on unsure ply {source}")
        if placed_on is not None:
            why.append(f"placed on {ply.square}, which is bare only by unsure ply {placed_on}")
        if self._count_doubt is not None and position.ply_count <= self._count_doubt:
            self._count_doubt = None  # taken back to before it: no longer in doubt
        if self._count_doubt is not None:
            # (fresh bench seed 2169: "c5< then c5" guessed for `c5<` alone, then "e4 then f4<"
            # for `f4<`; the turn's parity restored, every later ply was seen right and written
            # two numbers late, 12 of them without a mark)
            why.append(f"numbered after unsure ply {self._count_doubt}, which may have been "
                       "one ply or two")
        if onto_wall is not None:
            what, number = onto_wall
            why.append(f"moves onto {what}, which may be a wall by unsure ply {number}")
        if flattened is not None:
            what, number = flattened
            why.append(f"moves a capstone onto {what}, which may be a wall or not by unsure "
                       f"ply {number}")  # fmt: skip
        if not why:
            return PlyNote(ply)
        return PlyNote(ply, True, (), "; ".join(why))

    def _confirm_count(self, commit: Commit) -> None:
        """Clear `_count_doubt` when `commit` proves the turn's parity: a flat, wall or capstone
        placed after the unsure ply, committed on a board where the reader saw it alone on its
        square, surely of the colour of the player whose turn the game as recorded gives. Had
        the unsure ply been one ply where two were recorded (or two where one), that player's
        opponent would be to move, and this piece would be of the other colour (from ply 3 on,
        each player places their own). Until then every later ply is marked; a single early
        pair in doubt marked the rest of the game (fresh bench seed 4443: 22 plies after ply
        21, every one of them right). Only while that ply is the one guess of a count since:
        two guesses wrong put the count two off with the turn's parity right (bench seed 2765:
        `2b3-11` guessed as `b3-` twice, then "b3 then c3<" for `c3<`; ply 36 was placed in its
        player's colour, and numbered two late)."""
        doubt = self._count_doubt
        ply, number = commit.ply, commit.number
        last = self.tracker.last
        if (doubt is None or self._count_guesses > 1 or not ply.is_placement
                or number <= max(doubt + 1, 3)
                or last is None or commit not in last.decisions):  # fmt: skip
            return
        seen = last.evidence.get(ply.square)
        stack = self.tracker.position.stack(ply.square)
        if seen is None or len(stack) != 1 or seen.p_occupied < COUNT_SURE:
            return
        p_colour = seen.p_light if stack[0][0] == WHITE else 1.0 - seen.p_light
        if p_colour >= COUNT_SURE:
            self._count_doubt = None

    def _second_look(self, commit: Commit) -> PlyNote | None:
        """A ply the tracker was sure of, looked at again on the board it was judged on, for what
        the game as recorded may have wrong: as an unsure note, or None. None too when that
        board was not this commit's (a ply played again after a revision). The doubts that
        follow an unsure ply nobody answered are the recorder's; a rival the reader alone ruled
        out is the running board's too (`second_look.rival_of_sure`)."""
        last = judged_now(self.tracker, commit)
        if last is None:
            return None
        note = self._spread_from_doubt(commit, last) or self._changed_in_doubt(commit)
        if note is not None:
            return note
        doubt = rival_of_sure(self.tracker, commit)
        return None if doubt is None else PlyNote(commit.ply, True, doubt.others, doubt.reason)

    def _spread_from_doubt(self, commit: Commit, last: Evaluation) -> PlyNote | None:
        """A ply the tracker was sure of, as an unsure note when a spread from a square whose
        stack depends on an unsure ply fitted the board's changes as well (`structure_ok`), and
        what the reader holds against it may be only what the unsure ply's other answer would
        have made different: a spread emptying that square where the reader sees pieces, or one
        leaving pieces there that the reader contradicts no more than a ply it accepts.

        Fresh bench seed 3780 (4x4, tilt 24): `2b1>` guessed for `b1>` at ply 36 left b1 one
        piece short; at ply 42 `b1+` took one of b1's two off onto the empty b2, which the game
        so recorded could only explain as a flat placed on b2 (its `b1+` emptied b1), and `b2`
        was written without a mark. Fresh seed 4769 (4x4, tilt 7): `2a1>11` guessed for
        `3a1>21` at ply 55 left b1 a piece short and its pieces in another order; the last ply,
        `b1+`, left a dark top on b1 where the game so recorded had a light one; `2b1+`, fitting
        the changes and contradicted by 0.43 (its height on b2), ranked second to a flat placed
        on b2, and `b2` ended the game on a road without a mark. None when there is no such
        spread. `last`: the board the commit was judged on (`_second_look`)."""
        ok = self.tracker.config.structure_ok
        for h in last.ranked:
            spread = h.ply
            if (spread is None or spread == commit.ply or spread.is_placement or h.back
                    or spread.square not in self._doubt
                    or h.structure is None or h.structure > ok):  # fmt: skip
                continue
            if spread.count < len(self._stack_before(commit, spread.square)):
                # it leaves pieces there: one the reader contradicts no more than a ply it
                # accepts (`match_cost`), its cost what the other answer may have changed
                if h.contradiction > self.tracker.config.match_cost:
                    continue
            else:  # it empties the square, where the reader sees the pieces the other answer
                seen = last.evidence.get(spread.square)  # would have left there
                if seen is None or seen.p_occupied < 0.5:
                    continue
            number = self._doubt[spread.square]
            return PlyNote(commit.ply, True, (spread,),
                           f"{spread.ptn()} fits the board too had unsure ply {number} gone "
                           "the other way")  # fmt: skip
        return None

    def _changed_in_doubt(self, commit: Commit) -> PlyNote | None:
        """A ply the tracker was sure of, as an unsure note when a square whose stack depends on
        an unsure ply surely changed its look on the board judged (`CHANGED_ABOVE`), and the
        ply leaves that square alone: something happened there that the game as recorded may
        not be able to show. Fresh bench seed 4927 (4x4, tilt 3): `3b1+21` was recorded `2b1+`
        (marked), so the game had b3 bare where a flat stood; six plies later `b3<` moved it
        onto a3, which the game so recorded could only explain as a flat placed on a3, b3's
        change (2.96) excused, and `a3` was written without a mark. None when there is no such
        square."""
        touched = set(commit.ply.squares(self.size))
        doubt = {**self._beyond, **self._doubt}
        changed = [sq for sq, change in self.tracker.changes.items()
                   if change >= CHANGED_ABOVE and sq in doubt and sq not in touched]
        if not changed:
            return None
        sq = max(changed, key=self.tracker.changes.__getitem__)
        return PlyNote(commit.ply, True, (),
                       f"{sq} changed too, and its stack depends on unsure ply "
                       f"{doubt[sq]}")  # fmt: skip

    def _mark_emptied_in_doubt(self, commit: Commit) -> None:
        """Mark unsure, after the fact, the sure spreads that emptied a square where the board
        `commit` was judged on shows the piece a spread carrying fewer would have left there
        (`second_look.emptied_yet_seen`): in the notes, the journal, and, for the plies still to
        come, the doubt of the stacks it dropped on."""
        plies = [note.ply for note in self.notes]
        unsure = {i + 1 for i, note in enumerate(self.notes) if note.uncertain}
        for doubt in emptied_yet_seen(self.tracker, commit, plies, unsure):
            number = doubt.number
            ply = self.notes[number - 1].ply
            self.notes[number - 1] = PlyNote(ply, True, doubt.others, doubt.reason)
            if self.journal is not None and self.game_id is not None:
                self.journal.mark_uncertain(self.game_id, number, doubt.others)
            # the stacks it dropped on hold a piece more than they may: later plies carrying
            # from them are in doubt as after any unsure count (`_follow_doubt`)
            for sq in ply.squares(self.size)[1:]:
                if last_touched(plies, sq, before=commit.number + 1, size=self.size) == number:
                    self._doubt[sq] = number

    def _stack_before(self, commit: Commit, square: str) -> tuple:
        """The stack on `square` just before ply `commit.number` (the game as recorded)."""
        with self._as_after(commit.number - 1):
            return self.tracker.position.stack(square)

    def _follow_wall_doubt(
        self, ply: Ply, squares: list[str]
    ) -> tuple[tuple[str, int] | None, tuple[str, int] | None]:
        """Keep `_wall_doubt` in step with a committed ply (already played); -> two (square, ply
        number) or None: a square in that doubt the ply dropped pieces on, which only a lone
        capstone may do to a wall (so whether the ply could be played at all depends on the
        unsure ply: fresh bench seed 512, `c2<` onto a wall recorded as a flat, committed
        quietly 0.6 ahead of the `c2+` played); and one a capstone ended on alone, where
        whether it flattened a wall (`*`) depends on the unsure ply."""
        if ply.is_placement:
            return None, None
        end = squares[-1]
        flattened = onto_wall = None
        cap_on_end = self.tracker.position.stack(end)[-1][1] == CAP
        lone_cap = cap_on_end and ply.drops[-1] == 1
        for sq in squares[1:]:
            if sq in self._wall_doubt and not (sq == end and lone_cap):
                onto_wall = onto_wall or (sq, self._wall_doubt[sq])
        if end in self._wall_doubt and cap_on_end:
            flattened = (end, self._wall_doubt[end])
        moved = self._wall_doubt.pop(ply.square, None)  # the top piece goes to the end square
        for sq in squares[1:]:
            self._wall_doubt.pop(sq, None)  # covered
        if moved is not None:
            self._wall_doubt[end] = moved
        return onto_wall, flattened

    def _write(self, note: PlyNote) -> None:
        if self.journal is not None and self.game_id is not None:
            self.journal.append_ply(
                self.game_id, note.ply, uncertain=note.uncertain, alternatives=note.alternatives
            )
        self.notes.append(note)

    def ptn(self, tags: dict[str, str] | None = None) -> str:
        """The recording as PTN, each ply with its tak (') or tinue ('') mark."""
        marks = annotate_plies([note.ply.ptn() for note in self.notes], size=self.size,
                               komi=self.komi, node_budget=MARK_NODE_BUDGET)  # fmt: skip
        notes = [dataclasses.replace(n, mark=m) for n, m in zip(self.notes, marks, strict=True)]
        return game_ptn(size=self.size, komi=self.komi, plies=notes, tags=tags,
                        result=self.result, closing_comment=self.played_on)  # fmt: skip


# -- debug images --------------------------------------------------------------------------------


class SetupReport:
    """What the frames say about the installation, each said once: where the camera is
    (`vision.mount`; again after a bump only if the advice changed), whether the bare board is
    overexposed or glared on (`vision.exposure`, `vision.glare`, on the first clean frame, which
    shows the empty board a recording starts with) and, once the game has a lone light flat,
    how far the light pieces stand out from the board (`vision.contrast`, against that first
    frame)."""

    def __init__(self, reader) -> None:
        self.reader = reader
        self._pose = self._advice = self._empty = None
        self._contrast_said = False

    def frame(self, frame: np.ndarray, reading, position: Position,
              committed: bool = False) -> list[str]:  # fmt: skip
        """What to say about this frame; `committed`: a ply was committed on it, so the board
        shows `position` (a clean frame before the tracker catches up shows the next ply)."""
        from controller.service.camera import light_piece_contrast
        from vision.exposure import check_exposure
        from vision.glare import check_glare
        from vision.mount import check_mount

        lines = []
        pose = getattr(self.reader, "pose", None)
        if pose is not None and pose is not self._pose:
            self._pose, mount = pose, check_mount(pose)
            if self._advice is None or mount.advice != self._advice:
                lines.append(mount.summary())
                self._advice = mount.advice
        if reading is None or not reading.clean or pose is None or self._contrast_said:
            return lines
        if self._empty is None:
            self._empty = frame
            lines.append(check_exposure(frame, pose).summary())
            lines.append(check_glare(frame, pose).summary())
            return lines
        check = light_piece_contrast(frame, self._empty, pose, position) if committed else None
        if check is not None:
            self._contrast_said = True
            lines.append(f"light pieces {check.delta_e:.0f} (delta E) from the board"
                         + (": " + check.advice[0] if check.advice else " (good)"))  # fmt: skip
        return lines


class DebugWriter:
    """Writes the frames around each decision, with the evidence drawn on them.

    For every decision: the 4 frames before it, the frame it was made on and 2 after, each with the
    grid, the squares the decision is about (green: the ply, orange: other candidates, red: wrong
    squares), each square's reading, and a banner with the decision and the best hypotheses' costs.
    Files: DIR/NNNN_<what>/frame_<index>.png.
    """

    BEFORE, AFTER = 4, 2

    def __init__(self, directory: Path, reader: object = None) -> None:
        self.directory = directory
        self.reader = reader  # for the board pose (grid drawn from its homography)
        directory.mkdir(parents=True, exist_ok=True)
        self._recent: deque[tuple[int, np.ndarray, object]] = deque(maxlen=self.BEFORE)
        self._pending: list[tuple[Path, int, list[str], dict[str, tuple[int, int, int]]]] = []
        self.count = 0

    def frame(self, index: int, frame: np.ndarray, reading, tracker: Tracker,
              events: list[Event]) -> None:  # fmt: skip
        import cv2

        for folder, left, lines, marks in list(self._pending):
            cv2.imwrite(str(folder / f"frame_{index:05d}.png"),
                        self._draw(frame, reading, lines, marks))  # fmt: skip
            self._pending.remove((folder, left, lines, marks))
            if left > 1:
                self._pending.append((folder, left - 1, lines, marks))
        for event in events:
            self.count += 1
            kind = type(event.decision).__name__.lower()
            folder = self.directory / f"{self.count:04d}_{kind}_f{index:05d}"
            folder.mkdir(parents=True, exist_ok=True)
            lines, marks = self._evidence(event, tracker)
            for old_index, old_frame, old_reading in self._recent:
                cv2.imwrite(str(folder / f"frame_{old_index:05d}.png"),
                            self._draw(old_frame, old_reading, lines, marks))  # fmt: skip
            cv2.imwrite(str(folder / f"frame_{index:05d}_decision.png"),
                        self._draw(frame, reading, lines, marks))  # fmt: skip
            self._pending.append((folder, self.AFTER, lines, marks))
        self._recent.append((index, frame, reading))

    @staticmethod
    def _evidence(event: Event, tracker: Tracker):
        green, orange, red = (60, 200, 60), (0, 150, 255), (40, 40, 230)
        d = event.decision
        marks: dict[str, tuple[int, int, int]] = {}
        size = tracker.position.size
        if isinstance(d, Commit):
            marks.update({sq: green for sq in d.ply.squares(size)})
        elif isinstance(d, Ask):
            for c in d.candidates[1:]:
                marks.update({sq: orange for sq in c.ply.squares(size)})
            marks.update({sq: green for sq in d.candidates[0].ply.squares(size)})
        elif isinstance(d, Illegal | Desync):
            marks.update({sq: red for sq in d.squares})
        lines = [f"t={event.t:.1f}s  {event.describe()}"]
        if tracker.last is not None:
            lines.append("best: " + "  ".join(
                f"{h.describe()} {h.cost:.2f}" for h in tracker.last.ranked[:4]))  # fmt: skip
        return lines, marks

    def _draw(self, frame: np.ndarray, reading, lines: list[str],
              marks: dict[str, tuple[int, int, int]]) -> np.ndarray:  # fmt: skip
        import cv2

        img = frame.copy()
        pose = getattr(self.reader, "pose", None)
        if pose is not None and reading is not None and reading.board_found:
            H = pose.H_img_from_board
            for name, sq in reading.squares.items():
                f, r = "abcdefgh".index(name[0]), int(name[1:]) - 1
                quad = np.array([[f, r], [f + 1, r], [f + 1, r + 1], [f, r + 1]], np.float64)
                pts = cv2.perspectiveTransform(quad.reshape(-1, 1, 2), H).reshape(-1, 2)
                colour = marks.get(name, (200, 200, 200))
                cv2.polylines(img, [np.round(pts).astype(np.int32)], True, colour,
                              3 if name in marks else 1, cv2.LINE_AA)  # fmt: skip
                if sq.empty:
                    continue
                centre = tuple(np.round(pts.mean(axis=0)).astype(int))
                cv2.putText(img, sq.label(), centre, cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                            (0, 0, 0), 3, cv2.LINE_AA)  # fmt: skip
                cv2.putText(img, sq.label(), centre, cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                            colour, 1, cv2.LINE_AA)  # fmt: skip
        flags = []
        if reading is not None:
            flags.append("board" if reading.board_found else "NO BOARD")
            flags += ["HAND"] if reading.occluded else []
            flags += ["MOVING"] if reading.moving else []
        for i, text in enumerate([" | ".join(flags), *lines]):
            y = 26 + 24 * i
            cv2.putText(img, text, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 4,
                        cv2.LINE_AA)  # fmt: skip
            cv2.putText(img, text, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1,
                        cv2.LINE_AA)  # fmt: skip
        return img


# -- command line --------------------------------------------------------------------------------


def parse_corners(text: str) -> np.ndarray:
    """`x1,y1,x2,y2,x3,y3,x4,y4` (pixels; a1 corner, last-file rank-1 corner, far corner,
    a-file last-rank corner, as in `vision.geometry`) -> [4, 2]."""
    try:
        values = [float(v) for v in text.replace(";", ",").replace(" ", ",").split(",") if v]
    except ValueError as exc:
        raise RecordError(f"--corners {text!r}: not numbers ({exc})") from exc
    if len(values) != 8:
        raise RecordError(
            f"--corners {text!r}: expected 8 numbers (4 corners x,y), got {len(values)}"
        )
    return np.array(values, dtype=np.float64).reshape(4, 2)


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "record",
        help="record a game from a folder of frames or a video file, as PTN",
        description=(__doc__ or "").split("\n\n")[0],
    )
    parser.add_argument("source", help="a folder of frames (PNG/JPEG, file-name order) or a video")
    parser.add_argument("--size", type=int, required=True, help="board size (3..8)")
    parser.add_argument("--fps", type=float, default=5.0, help="frames per second of SOURCE (5)")
    parser.add_argument("--komi", type=float, default=0.0, help="komi in flats, e.g. 2 or 1.5")
    parser.add_argument("--corners", help="grid corners in pixels when there are no markers: "
                        "x1,y1,...,x4,y4 from the a1 corner, counter-clockwise as seen")
    parser.add_argument("-o", "--output", type=Path, help="PTN file to write (default: stdout)")
    parser.add_argument("--debug", type=Path, metavar="DIR",
                        help="write the frames around each decision, annotated, into DIR")
    parser.add_argument("--db", type=Path, help="also journal the game in this SQLite file")
    parser.add_argument("--resume", action="store_true",
                        help="with --db: continue the newest unfinished game in the journal")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _komi_half_flats(komi: float) -> int:
    half = komi * 2
    if half != int(half) or komi < 0:
        raise RecordError(f"--komi {komi}: komi is a whole or half number of flats (2, 1.5, ...)")
    return int(half)


def progress_bar(total: int | None, out=None) -> Callable[[int, str], None]:
    """A one-line progress bar on stderr: `[#####.....] 412/800 frames  ply 23: c3+`."""
    out = out or sys.stderr  # the stream of the moment, not the one there when this was imported
    last = [-1]

    def update(done: int, note: str = "") -> None:
        if total:
            step = int(40 * done / total)
            if step == last[0] and done != total and not note:
                return
            last[0] = step
            bar = "#" * step + "." * (40 - step)
            out.write(f"\r[{bar}] {done}/{total} frames  {note[:40]:<40}")
        else:
            out.write(f"\r{done} frames  {note[:40]:<40}")
        out.flush()

    return update


def run(args) -> int:
    try:
        return _run(args)
    except RecordError as exc:
        print(f"takboard record: {exc}", file=sys.stderr)
        return 2


def _run(args) -> int:
    from vision.sources import FrameSourceError, open_source

    if not 3 <= args.size <= 8:
        raise RecordError(f"--size {args.size}: board sizes are 3..8")
    if args.fps <= 0:
        raise RecordError(f"--fps {args.fps}: must be above 0")
    if args.resume and not args.db:
        raise RecordError("--resume needs --db (the journal holding the game to continue)")
    komi = _komi_half_flats(args.komi)
    corners = parse_corners(args.corners) if args.corners else None
    source_path = Path(args.source)
    if not source_path.exists():
        raise RecordError(f"{args.source}: no such file or folder")
    try:
        source = open_source(str(source_path))
    except FrameSourceError as exc:
        raise RecordError(str(exc)) from exc
    total = len(getattr(source, "files", [])) or _video_frames(source_path)

    from vision.reader import BoardReader  # heavy (OpenCV models): only once the arguments are good

    journal = Journal(args.db) if args.db else None
    game_id = None
    if journal is not None:
        open_games = [g for g in journal.in_progress() if g.size == args.size]
        if args.resume:
            if not open_games:
                raise RecordError(
                    f"--resume: no unfinished {args.size}x{args.size} game in {args.db}"
                )
            game_id = open_games[0].id
        else:
            game_id = journal.new_game(size=args.size, komi=komi,
                                       tags={"Source": str(source_path)})  # fmt: skip
    reader = BoardReader(args.size, corners=corners)
    debug = DebugWriter(args.debug, reader) if args.debug else None
    recorder = Recorder(args.size, reader, komi=komi, journal=journal, game_id=game_id,
                        debug=debug)  # fmt: skip
    show = (lambda done, note="": None) if args.quiet else progress_bar(total)
    index = 0
    note = ""
    setup = SetupReport(reader)
    with source:
        while True:
            ok, frame = source.read()
            if not ok:
                error = getattr(source, "error", None)
                if getattr(source, "ended", False) or error is None:
                    break
                print(f"\ntakboard record: frame {index}: {error}; skipped", file=sys.stderr)
                index += 1
                continue
            events = recorder.feed(frame, index / args.fps)
            for event in events:
                note = event.describe()
                if not isinstance(event.decision, Commit):
                    print(f"\n  frame {index} (t={event.t:.1f}s): {note}", file=sys.stderr)
            committed = any(isinstance(e.decision, Commit) for e in events)
            for line in setup.frame(frame, recorder.last_reading, recorder.tracker.position,
                                    committed):  # fmt: skip
                print(f"\n  frame {index}: {line}", file=sys.stderr)
            index += 1
            show(index, note)
    for event in recorder.finish():  # a close call the last frames left open
        print(f"\n  at the end (t={event.t:.1f}s): {event.describe()}", file=sys.stderr)
    unmatched = recorder.unmatched_at_end()
    if unmatched:
        print(f"\n  at the end: {unmatched}", file=sys.stderr)
    if recorder.played_on:
        print(f"\n  at the end: {recorder.played_on}", file=sys.stderr)
    if recorder.tracker.hand_left_no_trace:
        print("\n  at the end: a hand came and went after the last recorded ply and the board "
              "looked the same; a ply that only moves pieces onto stacks with the same top "
              "would not show: check the game's last move", file=sys.stderr)  # fmt: skip
    if not args.quiet:
        print(file=sys.stderr)
    if index == 0:
        raise RecordError(f"{args.source}: no frames could be read")
    text = recorder.ptn()
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    unsure = sum(1 for n in recorder.notes if n.uncertain)
    print(
        f"recorded {len(recorder.notes)} plies from {index} frames"
        + (f", {unsure} unsure (marked ?)" if unsure else "")
        + (f", result {recorder.result}" if recorder.result else "")
        + (f"; PTN in {args.output}" if args.output else "")
        + (f"; journal game {game_id} in {args.db}" if journal else ""),
        file=sys.stderr,
    )
    if journal is not None:
        journal.close()
    return 0


def _video_frames(path: Path) -> int | None:
    if path.is_dir():
        return None
    import cv2

    cap = cv2.VideoCapture(str(path))
    try:
        count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    finally:
        cap.release()
    return count if count > 0 else None


__all__ = ["DebugWriter", "Event", "RecordError", "Recorder", "unsure_comment"]

"""The tracker, reading by reading: constructed readings at 5 fps, timestamps as arguments."""

from __future__ import annotations

import random

import pytest

from controller.tak import BLACK, FLAT, WHITE, Ply, Position
from controller.tracking import (
    Ask,
    Commit,
    Desync,
    GameOver,
    Illegal,
    Resynced,
    Takeback,
    Tracker,
)
from controller.tracking.synthetic import (
    hand_reading,
    lost_reading,
    noisy,
    position_reading,
    stacks_reading,
)

FPS = 5
DT = 1 / FPS


class Session:
    """Drives a tracker at 5 fps: hands, still boards, and what was decided when.

    Every test runs twice (`looks`): on the reader's answers alone, and with appearance signatures
    on every still board (judged by which squares changed), as the real reader gives them.
    """

    looks = False

    def __init__(self, position: Position, **config) -> None:
        from controller.tracking import TrackerConfig

        self.tracker = Tracker(position, TrackerConfig(**config))
        self.size = position.size
        self.t = 0.0
        self.log: list[tuple[float, object]] = []

    def feed(self, reading, seconds: float) -> list:
        out = []
        for _ in range(round(seconds * FPS)):
            for decision in self.tracker.step(reading, self.t):
                self.log.append((self.t, decision))
                out.append(decision)
            self.t += DT
        return out

    def hand(self, seconds: float = 1.0) -> list:
        return self.feed(hand_reading(self.size), seconds)

    def board(self, board: Position | dict, seconds: float = 1.2, **kwargs) -> list:
        kwargs.setdefault("appearance", self.looks)
        if isinstance(board, Position):
            reading = position_reading(board, **kwargs)
        else:
            reading = stacks_reading(self.size, board, **kwargs)
        return self.feed(reading, seconds)

    def play(self, truth: Position, ptn: str, **kwargs) -> list:
        """A hand comes in, the ply is made on the board, the hand leaves, the board is still."""
        truth.play(Ply.from_ptn(ptn))
        self.hand(0.6)
        return self.board(truth, **kwargs)


@pytest.fixture(autouse=True, params=["reader only", "with appearance"])
def looks(request, monkeypatch):
    monkeypatch.setattr(Session, "looks", request.param == "with appearance")
    return Session.looks


def commits(decisions) -> list[str]:
    return [d.ply.ptn() for d in decisions if isinstance(d, Commit)]


def test_empty_board_at_start_commits_nothing():
    session = Session(Position(5))
    assert session.board(Position(5), 3.0) == []


def test_placement_is_committed_once_the_board_has_held_for_the_hold_time():
    truth = Position(5)
    session = Session(Position(5))
    session.board(truth, 2.0)
    truth.play(Ply.from_ptn("a1"))
    session.hand(0.6)
    hand_left = session.t
    decisions = session.board(truth, 2.0)
    assert commits(decisions) == ["a1"]
    (when, commit), = session.log
    assert commit.number == 1 and commit.margin > 1.0
    assert when - hand_left == pytest.approx(0.6)  # 4 still frames at 5 fps
    assert session.tracker.position.top("a1") == (BLACK, FLAT)  # opening swap, via the engine


def test_opening_ply_with_own_colour_is_illegal():
    session = Session(Position(5))
    session.board(Position(5), 2.0)
    session.hand(0.6)
    decisions = session.board({"c3": ((WHITE, FLAT),)}, 1.0)
    assert decisions == [Illegal(("c3",))]


def test_a_scripted_game_is_recorded_ply_by_ply(looks):
    plies = ["a1", "e5", "c3", "c2", "b3", "Cd3", "c3<", "d3<", "2b3-11", "Sd2"]
    truth, session = Position(5), Session(Position(5))
    session.board(truth, 2.0)
    asked = []
    for ptn in plies:
        for decision in session.play(truth, ptn):
            if isinstance(decision, Ask):  # a wall or a capstone: the reader's call is doubted
                asked.append(decision.candidates[0].ply.ptn())
                session.log.extend((session.t, d) for d in session.tracker.accept(
                    decision.candidates[0].ply))  # fmt: skip
    # Sd2 is clear on the reader's answers (black has no capstone left by then); judged by change,
    # a wall pays the stone prior and a reader 97 % sure of it is still asked about
    assert asked == (["Cd3", "Sd2"] if looks else ["Cd3"])
    recorded = commits(d for _, d in session.log)
    assert recorded == [Ply.from_ptn(p).ptn() for p in plies]
    assert session.tracker.position.tps() == truth.tps()


def test_a_wall_or_capstone_the_reader_is_sure_of_is_committed_and_a_doubtful_one_asked(looks):
    # A wall pays the stone prior and shares its call with the capstone (the two look alike), so
    # on cost alone it can never lead the same square's other kinds by `kind_margin`: every wall
    # and capstone was asked about, however sure the reader. A call 0.98 sure or more settles it.
    for sure, asked_expected in ((0.99, []), (0.97, ["Sc2", "Cd2"])):
        truth, session = Position(5), Session(Position(5))
        session.board(truth, 2.0, confidence=sure)
        asked = []
        for ptn in ["a1", "e5", "c3", "Sc2", "Cd2"]:
            for decision in session.play(truth, ptn, confidence=sure):
                if isinstance(decision, Ask):
                    asked.append(decision.candidates[0].ply.ptn())
                    session.log.extend((session.t, d) for d in session.tracker.accept(
                        decision.candidates[0].ply))  # fmt: skip
        assert asked == asked_expected, sure
        assert commits(d for _, d in session.log) == ["a1", "e5", "c3", "Sc2", "Cd2"], sure


def test_hand_resting_over_the_board_for_ten_seconds_changes_nothing():
    truth, session = Position(5), Session(Position(5))
    session.board(truth, 2.0)
    truth.play(Ply.from_ptn("b2"))
    assert session.hand(10.0) == []
    assert commits(session.board(truth, 1.0)) == ["b2"]
    assert session.hand(10.0) == []
    assert session.board(truth, 2.0) == []  # the same board again is no new ply


MIDGAME = "x5/x5/x,2,x3/x,1,221,x2/x5 1 6"


def _midgame() -> Position:
    return Position.from_tps(MIDGAME)


def test_spread_in_two_motions_commits_only_the_finished_spread():
    start = _midgame()
    truth, session = Position.from_tps(start.tps()), Session(Position.from_tps(start.tps()))
    session.board(truth, 2.0)
    # lift three from c2 ... hand stays in view while pausing ...
    session.hand(1.0)
    # ... the hand leaves for a moment with the stack half spread (c3 got 1, rest in hand: gone)
    half = dict(truth.stacks())
    del half["c2"]
    half["c3"] = ((BLACK, FLAT),)
    assert session.board(half, 0.4) == []  # shorter than the hold: not even considered
    session.hand(1.0)
    truth.play(Ply.from_ptn("3c2+12"))
    assert commits(session.board(truth, 1.5)) == ["3c2+12"]


def test_half_spread_left_still_is_illegal_and_never_committed():
    start = _midgame()
    session = Session(Position.from_tps(start.tps()))
    session.board(start, 2.0)
    half = dict(start.stacks())  # c2 is 2,2,1 (bottom -> top): spreading 3c2+12 ...
    del half["c2"]
    half["c3"] = ((BLACK, FLAT),)  # ... one dropped on c3, two still in the hand
    session.hand(0.6)
    decisions = session.board(half, 1.0)
    assert [type(d) for d in decisions] == [Illegal]
    assert set(decisions[0].squares) == {"c2", "c3"}


def test_spreads_with_the_same_tops_are_told_apart_by_heights():
    start = Position.from_tps("x5/x5/x2,22111,x2/x5/x5 1 8")
    truth, session = Position.from_tps(start.tps()), Session(Position.from_tps(start.tps()))
    session.board(truth, 2.0)
    assert commits(session.play(truth, "3c3>12")) == ["3c3>12"]


def test_spreads_with_the_same_tops_and_unreadable_heights_are_asked_not_guessed():
    start = Position.from_tps("x5/x5/x2,22111,x2/x5/x5 1 8")
    truth, session = Position.from_tps(start.tps()), Session(Position.from_tps(start.tps()))
    session.board(truth, 2.0, height_confidence=0.0)
    truth.play(Ply.from_ptn("3c3>12"))
    session.hand(0.6)
    decisions = session.board(truth, 1.0, height_confidence=0.0)
    assert len(decisions) == 1 and isinstance(decisions[0], Ask)
    asked = {c.ply.ptn() for c in decisions[0].candidates}
    assert {"3c3>12", "3c3>21"} <= asked
    assert session.tracker.position.tps() == start.tps()  # nothing advanced on a guess
    (commit,) = session.tracker.accept(Ply.from_ptn("3c3>12"))
    assert commit.ply.ptn() == "3c3>12" and session.tracker.position.tps() == truth.tps()


def test_illegal_move_is_reported_then_corrected_move_is_committed():
    truth, session = Position(5), Session(Position(5))
    session.board(truth, 2.0)
    for ptn in ("a1", "e5"):
        session.play(truth, ptn)
    # white puts down two stones at once
    wrong = dict(truth.stacks()) | {"c3": ((WHITE, FLAT),), "d4": ((WHITE, FLAT),)}
    session.hand(0.6)
    assert session.board(wrong, 1.0) == [Illegal(("c3", "d4"))]
    truth.play(Ply.from_ptn("c3"))
    session.hand(0.6)
    decisions = session.board(truth, 1.0)
    # right after an illegal board a ply may have been missed: the corrected ply is confirmed,
    # never committed quietly
    assert decisions[0] == Resynced() and isinstance(decisions[1], Ask)
    assert decisions[1].candidates[0].ply.ptn() == "c3" and "did not match" in decisions[1].reason
    assert commits(session.tracker.accept(decisions[1].candidates[0].ply)) == ["c3"]


def test_board_corrected_back_to_the_game_after_an_illegal_move_just_resyncs():
    truth, session = Position(5), Session(Position(5))
    session.board(truth, 2.0)
    session.play(truth, "a1")
    session.hand(0.6)
    assert session.board(dict(truth.stacks()) | {"b2": ((BLACK, FLAT),)}, 1.0) == [Illegal(("b2",))]
    session.hand(0.6)
    assert session.board(truth, 1.0) == [Resynced()]
    assert commits(session.play(truth, "e5")) == ["e5"]


@pytest.mark.parametrize("back", [1, 3])
def test_takeback_of_recent_plies_undoes_them(back):
    plies = ["a1", "e5", "c3", "c2", "b3", "d3"]
    truth, session = Position(5), Session(Position(5))
    session.board(truth, 2.0)
    for ptn in plies:
        session.play(truth, ptn)
    for _ in range(back):
        truth.pop()
    session.hand(1.0)
    decisions = session.board(truth, 1.0)
    assert decisions == [Takeback(back)]
    assert session.tracker.position.tps() == truth.tps()
    assert commits(session.play(truth, "e1")) == ["e1"]  # and the game goes on from there


def test_knocked_over_stack_desyncs_then_resyncs_when_restored():
    start = _midgame()
    truth = Position.from_tps(start.tps())
    session = Session(Position.from_tps(start.tps()), desync_after_s=3.0)
    session.board(truth, 2.0)
    knocked = dict(truth.stacks())
    # c2's three pieces scattered where no two plies could take them (d1 black, d2 black and e2
    # white would be "3c2>21, then d2-": asked about as two plies at once, `ChangeJudge.pairs`)
    del knocked["c2"]
    knocked["c1"] = ((WHITE, FLAT),)
    knocked["d1"] = ((BLACK, FLAT),)
    knocked["d3"] = ((BLACK, FLAT),)
    session.hand(0.4)
    first = session.board(knocked, 1.0)
    assert [type(d) for d in first] == [Illegal]
    later = session.board(knocked, 3.0)
    assert later == [Desync(start.tps(), ("c1", "c2", "d1", "d3"))]
    assert session.board(knocked, 5.0) == []  # reported once; recording stopped
    session.hand(2.0)  # put the stack back
    assert session.board(truth, 1.0) == [Resynced()]
    assert commits(session.play(truth, "a5")) == ["a5"]


def test_camera_bumped_mid_game_loses_nothing():
    truth, session = Position(6), Session(Position(6))
    session.board(truth, 2.0)
    session.play(truth, "a1")
    assert session.feed(lost_reading(6), 2.0) == []  # bumped: board lost while re-localising
    assert session.board(truth, 1.0) == []
    assert commits(session.play(truth, "f6")) == ["f6"]


def test_road_ends_the_game_with_the_result():
    start = Position.from_tps("x4/1,x3/1,2,x2/1,2,x2 1 5")  # white a1-a3; a4 completes a road
    truth, session = Position.from_tps(start.tps()), Session(Position.from_tps(start.tps()))
    session.board(truth, 2.0)
    decisions = session.play(truth, "a4")
    assert commits(decisions) == ["a4"]
    assert [d.outcome.result() for d in decisions if isinstance(d, GameOver)] == ["R-0"]
    session.hand(0.6)
    assert session.board(dict(truth.stacks()) | {"d4": ((BLACK, FLAT),)}, 2.0) == []  # game over


def test_scoring_leaves_the_position_exactly_as_it_was():
    start = _midgame()
    tracker = Tracker(Position.from_tps(start.tps()))
    before = (tracker.position.tps(), tracker.position.hash, tracker.position.ply_count)
    tracker._rank(  # every legal ply and every takeback pushed and popped
        __import__("controller.tracking.evidence", fromlist=["board_evidence"]).board_evidence(
            position_reading(start)))
    assert (tracker.position.tps(), tracker.position.hash, tracker.position.ply_count) == before


def _random_game(size: int, plies: int, rng: random.Random) -> list[Ply]:
    position = Position(size)
    played: list[Ply] = []
    while len(played) < plies and not position.is_over:
        choices = list(position.legal_plies)
        # prefer placements early and spreads later, like people do
        ply = rng.choice(choices)
        played.append(position.play(ply))
    return played


@pytest.mark.parametrize("seed", range(6))
def test_seeded_random_games_with_noisy_readings_have_no_silent_errors(seed):
    rng = random.Random(seed)
    size = rng.choice((4, 5, 6))
    game = _random_game(size, rng.randint(20, 40), rng)
    truth, session = Position(size), Session(Position(size))
    session.feed(noisy(position_reading(truth, appearance=Session.looks), rng), 2.0)
    for ply in game:
        truth.play(ply)
        session.hand(0.6)
        for _ in range(6):
            reading = position_reading(truth, appearance=Session.looks)
            session.feed(noisy(reading, rng, misread=0.02), DT)
        pending = session.tracker.pending
        if pending is not None:
            accepted = session.tracker.accept(pending.candidates[0].ply)
            session.log.extend((session.t, d) for d in accepted)
    recorded = [d for _, d in session.log if isinstance(d, Commit)]
    assert [c.ply for c in recorded] == game
    assert session.tracker.position.tps() == truth.tps()


def test_resumed_tracker_waits_for_the_journal_position_and_ignores_older_boards():
    history = ["a1", "e5", "c3", "c2"]
    resumed = Position(5)
    for ptn in history:
        resumed.play(Ply.from_ptn(ptn))
    session = Session(resumed)
    session.tracker = Tracker(resumed, session.tracker.config, resume=True)
    older = Position(5)
    for ptn in history[:2]:
        older.play(Ply.from_ptn(ptn))
    first = session.board(older, 1.0)  # an older board is not a takeback after a restart
    assert [type(d) for d in first] == [Desync]
    assert first[0].expected == resumed.tps() and set(first[0].squares) == {"c2", "c3"}
    assert session.board(older, 3.0) == []
    truth = Position.from_tps(resumed.tps())
    session.hand(1.0)
    assert session.board(truth, 1.0) == [Resynced()]
    assert commits(session.play(truth, "d4")) == ["d4"]
    assert session.tracker.position.ply_count == 5


def test_a_stack_read_one_piece_too_high_all_along_does_not_stall_the_game():
    from dataclasses import replace

    def misread(position: Position):
        reading = position_reading(position, appearance=Session.looks)
        squares = dict(reading.squares)
        if not squares["c2"].empty:
            squares["c2"] = replace(squares["c2"], height=squares["c2"].height + 1)
        return replace(reading, squares=squares)

    start = _midgame()  # c2 holds three pieces
    truth, session = Position.from_tps(MIDGAME), Session(Position.from_tps(MIDGAME))
    session.feed(misread(truth), 2.0)
    for ptn in ("a5", "e1", "b2+", "d4"):
        truth.play(Ply.from_ptn(ptn))
        session.hand(0.6)
        session.feed(misread(truth), 1.2)
    assert commits(d for _, d in session.log) == ["a5", "e1", "b2+", "d4"]
    assert start.height("c2") == 3


@pytest.mark.parametrize("sure", [0.9, 0.82])
def test_a_placement_the_reader_surely_reads_two_high_is_asked_about_not_committed(sure):
    # (fresh bench seed 1272: with the game already wrong by an asked guess, `2b5<` onto a5
    # fitted no ply, and `a5`, read two high at 0.87, was committed quietly; fresh seed 5873,
    # 7x7, tilt 38: a dark wall placed on e3, read a dark flat at 0.99 and two high at 0.848,
    # was committed as a flat without a mark)
    from dataclasses import replace

    truth, session = Position.from_tps(MIDGAME), Session(Position.from_tps(MIDGAME))
    session.board(truth, 2.0)
    truth.play(Ply.from_ptn("a5"))
    reading = position_reading(truth, appearance=Session.looks)
    squares = dict(reading.squares)
    squares["a5"] = replace(squares["a5"], height=2, height_confidence=sure)
    session.hand(0.6)
    decisions = session.feed(replace(reading, squares=squares), 1.2)
    assert [type(d) for d in decisions] == [Ask]
    assert decisions[0].candidates[0].ply == Ply.from_ptn("a5")



def _misread(board: dict, square: str) -> dict:
    """`board` as a reader that reads `square`'s top in the other colour sees it."""
    *under, (player, stone) = board[square]
    return board | {square: (*under, (BLACK if player == WHITE else WHITE, stone))}


CAUGHT_UP = "1,x4/x5/x2,1,x2/x2,2,x2/2,x4 1 3"


def _played_on_out_of_sync(misread: tuple[str, ...]) -> tuple[Position, Session, list]:
    """White's flat moved from c3 onto black's c2 and black's reply at once, `misread` read in
    the other colour (c2: as if nothing had landed there); then white's next ply. -> the game
    as played, the session, what the last board was decided."""
    truth = Position.from_tps(CAUGHT_UP)
    session = Session(Position.from_tps(CAUGHT_UP), desync_after_s=3.0)
    session.board(truth, 2.0)

    def seen() -> dict:
        board = dict(truth.stacks())
        for square in misread:
            board = _misread(board, square)
        return board

    for ptn in ("c3-", "d4"):  # (no still board between the two)
        truth.play(Ply.from_ptn(ptn))
        session.hand(0.6)
    assert [type(d) for d in session.board(seen(), 1.2)] == [Illegal]
    truth.play(Ply.from_ptn("b4"))
    session.hand(0.6)
    return truth, session, session.board(seen(), 3.0)


def test_plies_played_on_while_out_of_sync_are_caught_up_and_asked_in_the_order_seen(looks):
    # fresh bench seed 3755 (7x7, tilt 7): `c4-` moved a light flat onto c3, read dark in a
    # glare spot, and black's `c5` came before the board was still; no ply or pair fitted, white
    # played `a5`, and the game was out of sync for its last 33 plies. Now the plies that lead
    # from the game to the board are asked about, the one misread square allowed, in the order
    # the boards on the way showed (`b4`, `d4`, `c3-` ends on the same board)
    truth, session, decisions = _played_on_out_of_sync(("c2",))
    if not looks:  # (on the reader's answers alone nothing changed is known: never caught up)
        assert Desync in [type(d) for d in decisions]
        return
    assert [type(d) for d in decisions] == [Illegal, Resynced, Ask]
    ask = decisions[-1]
    best = ask.candidates[0]
    assert [best.ply, best.then, *best.more] == [Ply.from_ptn(p) for p in ("c3-", "d4", "b4")]
    assert "caught up" in ask.reason
    assert commits(session.tracker.accept(best.ply)) == ["c3-", "d4", "b4"]
    assert session.tracker.position.tps() == truth.tps()
    assert session.tracker._misread_squares == {"c2"}  # read wrong still: asked about near it
    truth.play(Ply.from_ptn("e1"))  # and the game goes on, c2 misread as before
    session.hand(0.6)
    assert commits(session.board(_misread(dict(truth.stacks()), "c2"), 1.2)) == ["e1"]


def test_a_board_out_of_sync_that_plies_explain_only_with_two_squares_misread_stays_so(looks):
    # the control: the same plies, a1 misread too; a catch-up allows the one misread that lost
    # the game, not a board that fits by excusing more
    _, session, decisions = _played_on_out_of_sync(("c2", "a1"))
    assert [type(d) for d in decisions] == [Illegal, Desync]
    assert session.tracker.state == "desync"


def test_a_board_a_person_says_is_right_is_tracked_on_from_as_the_camera_reads_it(looks):
    # a tracker judging the board afresh (after a restart, or an answer typed on the page) where
    # the reader misreads one piece all along: c3's light flat read dark. Out of sync, it records
    # nothing; the players say the board is right, and the camera goes on from it as it reads it
    history = ["a1", "e5", "c3", "c2"]
    game = Position(5)
    for ptn in history:
        game.play(Ply.from_ptn(ptn))
    session = Session(game)
    session.tracker = Tracker(game, session.tracker.config, resume=True)
    truth = Position.from_tps(game.tps())
    misread = _misread(dict(truth.stacks()), "c3")
    (desync,) = session.board(misread, 1.0)
    assert isinstance(desync, Desync) and desync.squares == ("c3",)
    assert session.board(misread, 3.0) == []  # waits for a board that matches: none comes
    assert session.tracker.board_is_right() == [Resynced()]
    assert session.tracker.state == "tracking"
    truth.play(Ply.from_ptn("d4"))
    session.hand(0.6)
    assert commits(session.board(_misread(dict(truth.stacks()), "c3"), 1.2)) == ["d4"]
    assert session.tracker.board_is_right() == []  # in sync: nothing to say


def test_a_catch_up_picked_records_its_own_plies_where_another_shares_its_first_two():
    # fresh bench seed 4927 (live, answered 3 s late): "c1< then a2 then 2b1+" and "c1< then
    # a2 then b1+" were both offered; the second was picked and the first recorded, unmarked
    from controller.tracking import Candidate

    start = "x5/x5/x2,22111,x2/x5/x5 1 8"
    first, then = Ply.from_ptn("c1"), Ply.from_ptn("d1")
    offered = tuple(Candidate(first, 0.0, then=then, more=(Ply.from_ptn(last),))
                    for last in ("e1", "Se1"))  # fmt: skip
    asked = Ask(offered, "caught up after the board was out of sync")
    tracker = Tracker(Position.from_tps(start))
    tracker.pending, tracker.state = asked, "asking"
    picked = offered[1]
    decisions = tracker.accept(picked.ply, then=picked.then, more=picked.more)
    assert [d.ply.ptn() for d in decisions if isinstance(d, Commit)] == ["c1", "d1", "Se1"]
    # (without the plies after the reply, those of the first candidate asked with both)
    tracker = Tracker(Position.from_tps(start))
    tracker.pending, tracker.state = asked, "asking"
    assert tracker.accept(first, then=then)[-1].ply == Ply.from_ptn("e1")

"""An ambiguity the camera raised, answered on the page: the camera's tracker plays the answer and
keeps its picture of the board (a fresh tracker would judge every square again from the reader's
absolute answers, where one half-hidden piece stalls the game)."""

from __future__ import annotations

from dataclasses import replace

from controller.service.camera import CameraPipeline
from controller.tak import BLACK, FLAT, WHITE, Ply, Position
from controller.tracking import Ask, Tracker
from controller.tracking.synthetic import hand_reading, position_reading, stacks_reading
from tests.service.feeding import Feeder, idle_pipeline

START = "x5/x5/x2,22111,x2/x5/x5 1 8"


def _asking_pipeline(tmp_path) -> tuple[CameraPipeline, Position]:
    """A pipeline whose tracker asks which of two spreads with the same tops was played."""
    pipeline = idle_pipeline(tmp_path)
    tracker = Tracker(Position.from_tps(START))
    truth, feed = Position.from_tps(START), Feeder(tracker).feed
    feed(position_reading(truth, height_confidence=0.0), 2.0)
    truth.play(Ply.from_ptn("3c3>12"))
    feed(hand_reading(5), 0.6)
    decisions = feed(position_reading(truth, height_confidence=0.0), 1.0)
    assert len(decisions) == 1 and isinstance(decisions[0], Ask)
    pipeline.tracker, pipeline._resync = tracker, False
    return pipeline, truth


def test_the_answer_is_played_in_the_same_tracker(tmp_path):
    pipeline, truth = _asking_pipeline(tmp_path)
    tracker = pipeline.tracker
    pipeline.answered(Ply.from_ptn("3c3>12"), truth)
    assert pipeline.tracker is tracker and not pipeline._resync
    assert tracker.position.tps() == truth.tps() and tracker.state == "tracking"


def test_an_answer_the_tracker_cannot_follow_rebuilds_it(tmp_path):
    pipeline, truth = _asking_pipeline(tmp_path)
    pipeline.answered(Ply.from_ptn("3c3>21"), truth)  # the game recorded the other spread
    assert pipeline._resync
    pipeline, truth = _asking_pipeline(tmp_path)
    pipeline.answered(Ply.from_ptn("a1"), truth)  # legal there, but not what the game recorded
    assert pipeline._resync
    pipeline, truth = _asking_pipeline(tmp_path)
    pipeline.answered(Ply.from_ptn("c3"), truth)  # not even legal in the tracked position
    assert pipeline._resync


PAIR_START = "x5/x5/x2,1,x2/x5/2,x3,1 2 2"


def _pair_asked(tmp_path) -> tuple[CameraPipeline, Position, Ask]:
    """A pipeline whose tracker saw `c2` then `Sd3` at once, d3 read a flat at 0.6: it asks
    "c2 then d3" or "c2 then Sd3" -> (the pipeline, the board as played, the question)."""
    pipeline = idle_pipeline(tmp_path)
    tracker, truth = Tracker(Position.from_tps(PAIR_START)), Position.from_tps(PAIR_START)
    feed = Feeder(tracker).feed
    feed(position_reading(truth, appearance=True), 2.0)
    feed(hand_reading(5), 0.6)
    for ptn in ("c2", "Sd3"):
        truth.play(Ply.from_ptn(ptn))
    clean = position_reading(truth, appearance=True)
    unsure = stacks_reading(5, {"d3": ((WHITE, FLAT),)}, confidence=0.6)  # a flat, at 0.6
    (ask,) = feed(replace(clean, squares={**clean.squares, "d3": unsure.squares["d3"]}), 1.2)
    assert [c.then.ptn() for c in ask.candidates[:2]] == ["d3", "Sd3"]
    pipeline.tracker, pipeline._resync = tracker, False
    return pipeline, truth, ask


def test_a_pair_answered_records_the_reply_of_the_candidate_picked(tmp_path):
    """Two plies seen at once, the reply's kind in doubt: the question offers "c2 then d3" and
    "c2 then Sd3"; the one picked decides which reply the tracker records after the answer."""
    pipeline, truth, ask = _pair_asked(tmp_path)
    recorded = Position.from_tps(PAIR_START)
    recorded.play(Ply.from_ptn("c2"))  # the game as the service recorded the answer
    follows = pipeline.answered(Ply.from_ptn("c2"), recorded, then=ask.candidates[1].then)
    assert [p.ptn() for p in follows] == ["Sd3"] and not pipeline._resync
    assert pipeline.tracker.position.tps() == truth.tps()


def test_nothing_was_played_keeps_the_tracker_and_the_board_it_asked_about(tmp_path):
    pipeline, _truth = _asking_pipeline(tmp_path)
    tracker = pipeline.tracker
    before = Position.from_tps(START)  # the game as the service has it: the question dropped
    pipeline.declined(before)
    assert pipeline.tracker is tracker and not pipeline._resync
    assert tracker.pending is None and tracker.state == "tracking"
    assert tracker.position.tps() == before.tps()


def test_nothing_was_played_where_the_tracker_disagrees_rebuilds_it(tmp_path):
    pipeline, _truth = _asking_pipeline(tmp_path)
    pipeline.declined(Position(5))  # not the position the tracker stands on
    assert pipeline._resync


def test_a_catch_up_answered_on_the_page_records_every_ply_it_names(tmp_path):
    """Out of sync, the board as read is three plies on (c2, where white's flat landed, read in
    its old top's colour): the question names "c3- then d4 then b4"; the page sends the first
    ply and the reply, and the service records the third after them."""
    pipeline = idle_pipeline(tmp_path)
    start = "1,x4/x5/x2,1,x2/x2,2,x2/2,x4 1 3"
    tracker, truth = Tracker(Position.from_tps(start)), Position.from_tps(start)
    feed = Feeder(tracker).feed

    def seen() -> object:  # c2's top read dark, as before the flat landed on it
        board = dict(truth.stacks())
        board["c2"] = (*board["c2"][:-1], (BLACK, FLAT))
        return stacks_reading(5, board, appearance=True)

    feed(position_reading(truth, appearance=True), 2.0)
    for ptn in ("c3-", "d4"):
        truth.play(Ply.from_ptn(ptn))
        feed(hand_reading(5), 0.6)
    feed(seen(), 1.2)  # illegal
    truth.play(Ply.from_ptn("b4"))
    feed(hand_reading(5), 0.6)
    asks = [d for d in feed(seen(), 3.0) if isinstance(d, Ask)]
    assert asks and "caught up" in asks[0].reason
    best = asks[0].candidates[0]
    pipeline.tracker, pipeline._resync = tracker, False
    recorded = Position.from_tps(start)
    recorded.play(best.ply)  # the game as the service recorded the answer
    follows = pipeline.answered(best.ply, recorded, then=best.then)
    assert [p.ptn() for p in follows] == ["d4", "b4"] and not pipeline._resync
    assert tracker.position.tps() == truth.tps()


def test_a_candidate_typed_on_the_page_is_played_as_if_picked(tmp_path):
    pipeline, truth = _asking_pipeline(tmp_path)
    tracker = pipeline.tracker
    pipeline.answered(Ply.from_ptn("3c3>12"), truth, typed=True)  # one of the plies asked
    assert pipeline.tracker is tracker and not pipeline._resync


def test_the_first_ply_of_a_pair_typed_alone_rebuilds_the_tracker_without_the_reply(tmp_path):
    """"c2 then d3" asked, and the players type `c2`: they say the reply was not the one seen
    (fresh bench seed 3865: "b3> then c4<" asked, `b3>` typed, and `c4<` recorded after it for
    `b2-`). The reply is not recorded, and the board is judged afresh on the game with the
    answer; a ply no candidate names, that does not explain the board by itself, the same."""
    for typed in ("c2", "b4"):
        pipeline, _, _ = _pair_asked(tmp_path)
        recorded = Position.from_tps(PAIR_START)
        recorded.play(Ply.from_ptn(typed))
        assert not pipeline.tracker.fits_alone(Ply.from_ptn(typed))
        assert pipeline.answered(Ply.from_ptn(typed), recorded, typed=True) == []
        assert pipeline._resync, typed

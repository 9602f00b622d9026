"""`Tracker.correct_last`: a person says the last ply committed was another; the tracker swaps it,
keeps the board it matched (the same board), and judges the next change on top of the new ply."""

from __future__ import annotations

import pytest

from controller.tak import IllegalPlyError, Ply, Position
from controller.tracking import Commit, Tracker
from controller.tracking.synthetic import hand_reading, position_reading
from tests.tracking.test_retract import after, feed


@pytest.mark.parametrize("looks", [False, True], ids=["reader only", "with appearance"])
def test_a_corrected_ply_stands_and_the_next_is_judged_on_top_of_it(looks):
    start = Position(5)
    for ptn in ("a1", "e5"):
        start.play(Ply.from_ptn(ptn))
    tracker = Tracker(start.copy())

    def board(position: Position):
        return position_reading(position, appearance=looks)

    _, t = feed(tracker, board(start), 1.2, 0.0)
    _, t = feed(tracker, hand_reading(5), 1.0, t)
    seen, t = feed(tracker, board(after(start, "c3")), 1.2, t)
    assert [d.ply.ptn() for d in seen if isinstance(d, Commit)] == ["c3"]

    with pytest.raises(IllegalPlyError):
        tracker.correct_last(Ply.from_ptn("a1"))  # not where c3 was played: nothing changes
    assert tracker.position.tps() == after(start, "c3").tps()
    assert tracker.correct_last(Ply.from_ptn("Sc3")) == Ply.from_ptn("Sc3")
    assert tracker.position.tps() == after(start, "Sc3").tps()
    still, t = feed(tracker, board(after(start, "c3")), 3.0, t)
    assert still == []  # the board as it stood: no ply, no illegal board

    _, t = feed(tracker, hand_reading(5), 1.0, t)
    nxt, t = feed(tracker, board(after(start, "c3", "d3")), 1.2, t)
    assert [d.ply.ptn() for d in nxt if isinstance(d, Commit)] == ["d3"]
    assert tracker.position.tps() == after(start, "Sc3", "d3").tps()

"""`Tracker.retract`: the service refused a committed ply (not the computer's); the tracker forgets
it and judges the next change of the board against the position from before."""

from __future__ import annotations

import pytest

from controller.tak import Ply, Position
from controller.tracking import Commit, Tracker
from controller.tracking.synthetic import hand_reading, position_reading

DT = 0.2


def feed(tracker: Tracker, reading, seconds: float, t: float) -> tuple[list, float]:
    out = []
    for _ in range(round(seconds / DT)):
        out += tracker.step(reading, t)
        t += DT
    return out, t


def after(position: Position, *plies: str) -> Position:
    board = position.copy()
    for ptn in plies:
        board.play(Ply.from_ptn(ptn))
    return board


@pytest.mark.parametrize("looks", [False, True], ids=["reader only", "with appearance"])
def test_a_retracted_ply_is_forgotten_until_the_board_changes_then_the_right_one_commits(looks):
    start = Position(5)
    start.play(Ply.from_ptn("a1"))
    tracker = Tracker(start.copy())
    t = 0.0

    def board(position: Position):
        return position_reading(position, appearance=looks)

    _, t = feed(tracker, board(start), 1.2, t)  # the board as it is
    _, t = feed(tracker, hand_reading(5), 1.0, t)
    wrong, t = feed(tracker, board(after(start, "c3")), 1.2, t)
    assert [d.ply.ptn() for d in wrong if isinstance(d, Commit)] == ["c3"]

    tracker.retract()  # the computer wanted d4
    assert tracker.position.ply_count == 1
    still, t = feed(tracker, board(after(start, "c3")), 3.0, t)
    assert still == []  # the same board is not judged again: no commit, no desync

    _, t = feed(tracker, hand_reading(5), 1.0, t)  # the player puts it right
    right, t = feed(tracker, board(after(start, "d4")), 1.2, t)
    assert [d.ply.ptn() for d in right if isinstance(d, Commit)] == ["d4"]
    assert tracker.position.ply_count == 2

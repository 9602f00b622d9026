"""Frame timing in the camera pipeline: the stability gate's hold spans whole frame intervals, so a
frame a few milliseconds late does not cost a whole further frame."""

from __future__ import annotations

import pytest

from controller.service.camera import gate_hold_s
from controller.tak import Position
from controller.tracking import Commit, Tracker, TrackerConfig
from controller.tracking.gate import StabilityGate
from controller.tracking.synthetic import position_reading


def test_the_hold_is_three_frame_intervals_with_half_a_frame_of_slack_at_5_fps():
    assert gate_hold_s(5.0, 0.6) == pytest.approx(0.5)
    assert gate_hold_s(10.0, 0.6) == pytest.approx(0.55)
    assert gate_hold_s(2.0, 0.6) == pytest.approx(0.75)  # one interval (0.5 s) is too short


def stable_at(times: list[float], hold_s: float) -> list[bool]:
    gate = StabilityGate(hold_s=hold_s)
    reading = position_reading(Position(5))
    return [gate.feed(reading, t) is not None for t in times]


def test_a_frame_a_little_late_still_completes_the_hold():
    late = [0.0, 0.21, 0.38, 0.59, 0.8]  # three intervals summing to 0.59 s
    assert stable_at(late, 0.6) == [False, False, False, False, True]  # a frame lost
    assert stable_at(late, gate_hold_s(5.0)) == [False, False, False, True, True]


def test_two_frame_intervals_are_still_not_enough():
    early = [0.0, 0.2, 0.45]
    assert stable_at(early, gate_hold_s(5.0)) == [False, False, False]


def test_a_ply_commits_on_the_fourth_still_frame_even_when_frames_jitter():
    position = Position(5)
    tracker = Tracker(position.copy(), TrackerConfig(hold_s=gate_hold_s(5.0)))
    for t in (0.0, 0.2, 0.4, 0.6):
        tracker.step(position_reading(position), t)
    after = position.copy()
    after.play(next(p for p in after.legal_plies if p.ptn() == "c3"))
    decisions = [tracker.step(position_reading(after), t) for t in (1.0, 1.19, 1.41, 1.58)]
    assert decisions[:3] == [[], [], []]
    assert [type(d) for d in decisions[3]] == [Commit]

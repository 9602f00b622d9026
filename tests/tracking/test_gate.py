"""The stability gate on its own: what holds it shut, what restarts it, what it averages."""

from __future__ import annotations

from dataclasses import replace

from controller.tak import BLACK, FLAT, WHITE
from controller.tracking import DEFAULT_HOLD_S, StabilityGate
from controller.tracking.synthetic import hand_reading, lost_reading, stacks_reading

BOARD = {"c3": ((WHITE, FLAT),), "b2": ((BLACK, FLAT), (WHITE, FLAT))}


def feed(gate: StabilityGate, readings, start: float = 0.0, dt: float = 0.2):
    return [gate.feed(r, start + i * dt) for i, r in enumerate(readings)]


def test_default_hold_is_between_half_a_second_and_a_second():
    assert 0.5 <= DEFAULT_HOLD_S <= 1.0


def test_board_counts_as_stable_after_the_hold_and_is_fresh_only_once():
    gate = StabilityGate()
    out = feed(gate, [stacks_reading(5, BOARD)] * 6)
    assert out[:3] == [None, None, None]
    assert out[3] is not None and out[3].fresh and out[3].frames == 4
    assert out[4] is not None and not out[4].fresh


def test_hand_motion_or_lost_board_restart_the_wait():
    still = stacks_reading(5, BOARD)
    moving = replace(still, moving=True)
    for interruption in (hand_reading(5), moving, lost_reading(5)):
        gate = StabilityGate()
        out = feed(gate, [still, still, still, interruption, still, still, still, still])
        assert out[:7] == [None] * 7, interruption.reason or "moving"
        assert out[7] is not None and out[7].since == 0.8


def test_confident_change_restarts_but_an_unsure_flicker_does_not():
    still = stacks_reading(5, BOARD)
    changed = stacks_reading(5, {**BOARD, "d4": ((BLACK, FLAT),)})
    gate = StabilityGate()
    out = feed(gate, [still, still, changed, changed, changed, changed])
    assert out[:5] == [None] * 5 and out[5] is not None and out[5].since == 0.4

    flicker = dict(still.squares)
    flicker["d4"] = replace(changed.squares["d4"], empty_confidence=0.55, confidence=0.55)
    unsure = replace(still, squares=flicker)
    gate = StabilityGate()
    out = feed(gate, [still, unsure, still, unsure])
    assert out[3] is not None and out[3].since == 0.0
    assert 0.2 < out[3].evidence["d4"].p_occupied < 0.5  # averaged: mostly empty

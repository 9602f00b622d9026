"""Tracking's scoring and evidence: what the reader's whole distributions add to its calls."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from controller.tak import CAP, FLAT, WALL, WHITE, Ply, Position
from controller.tracking.evidence import average, board_evidence, square_evidence
from controller.tracking.scoring import (
    SURPRISE_CAP,
    contradiction,
    height_error,
    height_surprise,
    score_plies,
    square_cost,
    sure_of_kind,
)
from controller.tracking.synthetic import stacks_reading
from controller.tracking.unseen import UNREAD
from vision.reading import SquareReading

# c3 holds 2,2,1,1,1 (bottom -> top): 3c3>12 and 3c3>21 leave the same tops, d3/e3 at 1/2 or 2/1
START = "x5/x5/x2,22111,x2/x5/x5 1 8"


def _two(first: float, second: float, call: int, other: int) -> tuple[float, ...]:
    p = [0.0125] * 8
    p[call - 1], p[other - 1] = first, second
    return tuple(p)


def _evidence_after(ptn: str, d3: SquareReading, e3: SquareReading):
    position = Position.from_tps(START)
    played = Position.from_tps(START)
    played.play(Ply.from_ptn(ptn))
    reading = stacks_reading(5, played.stacks(), height_confidence=0.97)
    squares = reading.squares | {"d3": d3, "e3": e3}
    return position, board_evidence(replace(reading, squares=squares))


def _read_two(p: tuple[float, ...] | None) -> SquareReading:
    return SquareReading(False, "light", "flat", 2, confidence=0.6, empty_confidence=0.99,
                         color_confidence=0.99, kind_confidence=0.99, height_confidence=0.6,
                         height_probabilities=p)  # fmt: skip


def _costs(position, evidence) -> dict[str, float]:
    return {s.ply.ptn(): s.cost for s in score_plies(position, evidence)}


def test_spreads_each_one_piece_off_the_calls_are_told_apart_by_the_rest_of_the_belief():
    # both squares read 2; the reader leant to 1 on d3 and to 3 on e3: d3=1, e3=2 fits it
    position, evidence = _evidence_after(
        "3c3>12", _read_two(_two(0.6, 0.325, 2, 1)), _read_two(_two(0.6, 0.325, 2, 3))
    )
    costs = _costs(position, evidence)
    assert min(costs, key=costs.get) == "3c3>12"
    assert costs["3c3>21"] - costs["3c3>12"] > 0.2


def test_the_calls_alone_leave_such_spreads_equal():
    position, evidence = _evidence_after("3c3>12", _read_two(None), _read_two(None))
    costs = _costs(position, evidence)
    assert costs["3c3>21"] == pytest.approx(costs["3c3>12"])


def test_the_height_that_fits_the_belief_best_costs_nothing_and_others_by_distance():
    ev = square_evidence(_read_two(_two(0.6, 0.325, 2, 3)))
    errors = [height_error(ev, n) for n in range(1, 12)]
    assert errors[1] == 0.0  # height 2
    assert 0 < errors[2] < errors[0] < errors[3]  # 3 has support, 1 none, 4 is two off
    assert errors[9] == errors[10] > errors[3]  # beyond the reader's tallest: all alike


def test_a_height_surprises_the_reader_as_far_as_its_probability_is_low():
    # read 2 at 0.6, 3 at 0.325: by distance 1 and 3 are alike, by probability 3 is far likelier
    ev = square_evidence(_read_two(_two(0.6, 0.325, 2, 3)))
    surprise = [height_surprise(ev, n) for n in (1, 2, 3)]
    assert surprise[1] < surprise[2] < surprise[0]
    assert surprise[2] - surprise[1] == pytest.approx(math.log(0.6 / 0.325), rel=0.05)
    assert height_surprise(ev, 8) <= SURPRISE_CAP  # (a height it gave nothing: at most the cap)
    # nothing to say where the reader gave no distribution, or reads the square empty
    assert height_surprise(square_evidence(_read_two(None)), 3) == 0.0
    empty = SquareReading(True, None, None, 0, confidence=0.9)
    assert height_surprise(square_evidence(empty), 1) == 0.0


def test_without_a_distribution_the_call_and_its_confidence_score_as_before():
    ev = square_evidence(_read_two(None))
    assert ev.height_p is None
    assert [height_error(ev, n) for n in (1, 2, 3, 5)] == pytest.approx([0.6, 0.0, 0.6, 0.9])


def test_a_kinds_runner_up_is_the_one_the_reader_leant_to_not_an_even_share():
    flat = SquareReading(False, "light", "flat", 1, confidence=0.55, kind_confidence=0.55,
                         kind_probabilities=(0.55, 0.43, 0.02))  # fmt: skip
    flat_wall, wall, cap = square_evidence(flat).p_kind
    assert flat_wall == pytest.approx(0.55) and wall > 2 * cap  # (a wall-or-capstone call's
    # share of doubt, `WALL_CAP_DOUBT`, still goes to the other of the two)
    flat, wall, cap = square_evidence(replace(flat, kind_probabilities=None)).p_kind
    assert wall == pytest.approx(cap)


def test_how_sure_the_reader_is_of_a_kind_is_its_calibrated_call_never_shared_with_another():
    wall = SquareReading(False, "dark", "wall", 1, confidence=0.99, kind_confidence=0.99,
                         kind_probabilities=(0.004, 0.995, 0.001))  # fmt: skip
    ev = square_evidence(wall)
    assert sure_of_kind(ev, WALL) == pytest.approx(0.99)  # the calibrated confidence
    assert sure_of_kind(ev, CAP) == 0.0 and sure_of_kind(ev, FLAT) == 0.0
    assert ev.p_kind[2] > 0.25  # (the scores still share a wall call with the capstone)
    # no surer than the reader's own probability for it
    assert sure_of_kind(square_evidence(replace(wall, kind_probabilities=(0.05, 0.9, 0.05))),
                        WALL) == pytest.approx(0.9)  # fmt: skip
    # over a still board's frames: a kind called on half of them is half as sure
    cap = replace(wall, kind="cap", kind_probabilities=(0.004, 0.001, 0.995))
    both = average([{"c3": ev}, {"c3": square_evidence(cap)}])["c3"]
    assert sure_of_kind(both, WALL) == pytest.approx(0.495)
    assert sure_of_kind(square_evidence(_read_empty(0.9, (0.0, 1.0, 0.0))), WALL) == 0.0


def _read_empty(empty_confidence: float, lean: tuple[float, ...] | None) -> SquareReading:
    return SquareReading(True, confidence=empty_confidence, empty_confidence=empty_confidence,
                         kind_probabilities=lean)  # fmt: skip


def test_a_square_read_empty_keeps_the_kind_the_reader_leans_to_should_a_piece_be_there():
    flat, wall, cap = square_evidence(_read_empty(0.7, (0.02, 0.08, 0.90))).p_kind
    assert cap > wall > flat  # (the wall-or-capstone doubt still shares the cap's lean)
    assert square_evidence(_read_empty(0.7, None)).p_kind == pytest.approx((1 / 3,) * 3)


def test_a_piece_the_reader_half_saw_contradicts_the_other_kinds_as_far_as_it_saw_it():
    def against(empty_confidence, lean, stone):
        return contradiction(((WHITE, stone),), square_evidence(_read_empty(empty_confidence,
                                                                            lean)))  # fmt: skip

    lean = (0.02, 0.08, 0.90)
    assert against(0.6, lean, FLAT) - against(0.6, lean, CAP) > 0.4  # read a capstone, half
    assert against(0.99, lean, FLAT) - against(0.99, lean, CAP) < 0.02  # surely empty: noise
    # continuous with a square read occupied at a coin flip, where a kind counts in full
    assert against(0.5001, lean, FLAT) - against(0.5001, lean, CAP) == pytest.approx(
        against(0.4999, lean, FLAT) - against(0.4999, lean, CAP), abs=1e-3)
    assert against(0.6, None, FLAT) == pytest.approx(against(0.6, None, CAP))  # no lean given


def test_a_call_taken_back_weighs_nothing_for_an_empty_square_or_any_stack():
    # (a coin flip on every question would still make any piece dearer than none)
    stacks = [(), ((WHITE, FLAT),), ((1 - WHITE, WALL),), ((WHITE, FLAT), (1 - WHITE, CAP))]
    assert [square_cost(stack, UNREAD) for stack in stacks] == [0.0] * len(stacks)
    coin_flip = replace(UNREAD, unread=False)
    assert square_cost((), coin_flip) < square_cost(((WHITE, FLAT),), coin_flip)


def _read_tallest(p_tallest: float) -> SquareReading:
    """A stack read as tall as the reader reads (its last height class, 8) at `p_tallest`, 7
    at the rest."""
    p = [0.0] * 7 + [p_tallest]
    p[6] = 1.0 - p_tallest
    return SquareReading(False, "dark", "flat", 8, confidence=p_tallest, empty_confidence=0.99,
                         color_confidence=0.99, kind_confidence=0.99,
                         height_confidence=p_tallest, height_probabilities=tuple(p))  # fmt: skip


def test_the_tallest_height_the_reader_reads_stands_for_that_many_pieces_or_more():
    # vision learns a stack of 10 as 8: read 8 surely, a stack of 9 or 10 is read right
    ev = square_evidence(_read_tallest(0.99))
    assert ev.readable(10) == 8 and ev.readable(3) == 3
    assert [height_error(ev, n) for n in (8, 9, 10, 12)] == pytest.approx([0.0] * 4, abs=0.01)
    assert height_error(ev, 7) > 0.5
    assert height_surprise(ev, 10) == height_surprise(ev, 8) < 0.02
    assert height_surprise(ev, 7) > 4.0
    dark = (1 - WHITE, FLAT)
    assert contradiction((dark,) * 10, ev) == contradiction((dark,) * 8, ev) < 0.02
    # a height the reader leans below its tallest still counts against the taller stacks
    unsure = square_evidence(_read_tallest(0.6))
    assert height_error(unsure, 8) == 0.0 < height_error(unsure, 10)
    # without a distribution the reader's tallest is not known: the call counts as it is
    assert square_evidence(replace(_read_tallest(0.99), height_probabilities=None)
                           ).readable(10) == 10  # fmt: skip

"""Scenes: game state (real `controller.tak` values) -> the LED picture, per the colour language."""

from __future__ import annotations

import pytest

from controller.leds import scenes
from controller.leds.frame import Animation, Effect, LedFrame
from controller.leds.scenes import BLUE, DIM_ORANGE, ORANGE, WHITE
from controller.tak import BLACK, Ply, Position
from controller.tak import WHITE as WHITE_PLAYER


def lit_summary(frame: LedFrame) -> dict[str, tuple]:
    return {sq: (light.colour, light.effect) for sq, light in frame.lit().items()}


def test_last_move_spread_shows_origin_and_each_square_dropped_on():
    frame = scenes.last_move(6, Ply.from_ptn("3c3>111"))
    assert lit_summary(frame) == {
        "c3": (BLUE, Effect.SOLID),
        "d3": (ORANGE, Effect.SOLID),
        "e3": (ORANGE, Effect.SOLID),
        "f3": (ORANGE, Effect.SOLID),
    }


def test_last_move_placement_is_one_orange_square():
    assert lit_summary(scenes.last_move(5, Ply.from_ptn("Sd4"))) == {"d4": (ORANGE, Effect.SOLID)}


def flashes_per_square(animation: Animation) -> dict[str, int]:
    """Count, per square, how often it turns bright orange in one cycle (a viewer's count)."""
    counts: dict[str, int] = {}
    previous: LedFrame | None = None
    for frame, _ in animation.steps:
        for square, light in frame.lit().items():
            was = previous[square].colour if previous is not None else None
            if light.colour == ORANGE and was != ORANGE:
                counts[square] = counts.get(square, 0) + 1
        previous = frame
    return counts


def test_hint_spread_flashes_each_square_once_per_piece_dropped_on_it():
    animation = scenes.hint(5, Ply.from_ptn("4b2+121"))
    assert flashes_per_square(animation) == {"b3": 1, "b4": 2, "b5": 1}
    for frame, _ in animation.steps:  # origin pulses blue in every step, path never goes dark
        assert frame["b2"].colour == BLUE and frame["b2"].effect is Effect.PULSE
        assert all(not frame[sq].is_off for sq in ("b3", "b4", "b5"))
    assert lit_summary(animation.steps[0][0])["b4"] == (DIM_ORANGE, Effect.SOLID)


def test_hint_flashes_come_in_path_order_then_a_pause():
    animation = scenes.hint(5, Ply.from_ptn("3a1>21"))
    order = [
        sq
        for frame, _ in animation.steps
        for sq, light in frame.lit().items()
        if light.colour == ORANGE
    ]
    assert order == ["b1", "b1", "c1"]
    assert animation.steps[0][1] == scenes.HINT_PAUSE_S


@pytest.mark.parametrize(("ptn", "flashes"), [("c3", 1), ("Sc3", 2), ("Cc3", 3)])
def test_hint_placement_says_the_stone_by_its_flash_count(ptn, flashes):
    assert flashes_per_square(scenes.hint(5, Ply.from_ptn(ptn))) == {"c3": flashes}


def test_hint_never_looks_like_the_last_move():
    ply = Ply.from_ptn("2a1>11")
    steps = {frame for frame, _ in scenes.hint(5, ply).steps}
    assert scenes.last_move(5, ply) not in steps


def test_illegal_move_blinks_the_offending_squares_fast_over_the_last_move():
    frame = scenes.illegal(5, ["c4", "c5"], last=Ply.from_ptn("c3"))
    assert frame["c3"] == scenes.last_move(5, Ply.from_ptn("c3"))["c3"]
    for square in ("c4", "c5"):
        assert frame[square].effect is Effect.BLINK
        assert frame[square].period_ms == scenes.FAST_BLINK_MS
        assert frame[square].colour == WHITE


def test_resync_pulses_exactly_the_differing_squares():
    frame = scenes.resync(5, ["a1", "e5"])
    assert lit_summary(frame) == {"a1": (WHITE, Effect.PULSE), "e5": (WHITE, Effect.PULSE)}


def test_setup_shows_top_colour_and_marks_stacks_until_done():
    target = Position.from_tps("x5/x5/x5/x5/1,2,12,x2 1 3")
    frame = scenes.setup(target)
    assert lit_summary(frame) == {
        "a1": (WHITE, Effect.SOLID),  # a light piece
        "b1": (BLUE, Effect.SOLID),  # a dark piece
        "c1": (BLUE, Effect.BLINK),  # a stack, dark on top
    }
    assert set(scenes.setup(target, done=["a1", "c1"]).lit()) == {"b1"}


def test_road_win_lights_the_road_in_the_winners_colour():
    position = Position.from_tps("x5/x5/x5/2,2,2,2,x/1,1,1,1,1 2 6")
    road = position.road(WHITE_PLAYER)
    frame = scenes.road_win(5, road, WHITE_PLAYER)
    assert set(frame.lit()) == set(road) == {"a1", "b1", "c1", "d1", "e1"}
    assert {light.colour for light in frame.lit().values()} == {WHITE}
    assert {light.colour for light in scenes.road_win(5, road, BLACK).lit().values()} == {BLUE}


def test_idle_is_four_dim_corners_and_wiring_test_walks_the_board():
    assert set(scenes.idle(6).lit()) == {"a1", "f1", "a6", "f6"}
    assert set(scenes.wiring_test(5, 0).lit()) == {"a1"}
    assert set(scenes.wiring_test(5, 7).lit()) == {"c2"}


# Colour-vision deficiency simulation matrices (Machado, Oliveira & Fernandes 2009, severity 1.0),
# applied to linear RGB.
CVD = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}


def seen_as(colour, deficiency: str) -> tuple[float, ...]:
    linear = [(c / 255) ** 2.2 for c in (colour.r, colour.g, colour.b)]
    matrix = CVD[deficiency]
    return tuple(
        min(1.0, max(0.0, sum(m * v for m, v in zip(row, linear, strict=True)))) for row in matrix
    )


def apart(a, b, deficiency: str) -> float:
    return (
        sum(
            (x - y) ** 2
            for x, y in zip(seen_as(a, deficiency), seen_as(b, deficiency), strict=True)
        )
        ** 0.5
    )


@pytest.mark.parametrize("deficiency", sorted(CVD))
def test_meaning_colours_stay_apart_for_colour_blind_players(deficiency):
    from controller.leds.frame import Colour

    threshold = 0.25
    for a, b in ((BLUE, ORANGE), (BLUE, WHITE), (ORANGE, WHITE)):
        assert apart(a, b, deficiency) > threshold, (a, b)
    # the control: red against green, what the language avoids, does collapse for deuteranopes
    if deficiency == "deuteranopia":
        assert apart(Colour(255, 0, 0), Colour(0, 160, 0), deficiency) < threshold

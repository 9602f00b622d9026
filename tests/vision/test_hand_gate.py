"""The hand gate on rendered frames: the hard cases are flagged, the look-alikes are not.

Flagged: a hand resting still over the board for 10 s, an arm across the board from the side, a
sleeve alone over the board, a hand high under a low lamp casting a long shadow, a hand holding a
piece above a square, every frame of a ply where a hand is over the board. Not flagged: tall
stacks and capstones on the edge squares of a tilted view, LEDs glowing under edge squares. All
seeded: the same frames every run.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.gate import HandGate
from vision.reader import BoardReader
from vision.sim import Hand, Scene, random_scene, random_setup, reach_and_change, render_frame

SKIN = (105, 140, 198)
SLEEVE = (120, 90, 60)


def _installation(seed: int, size: int, tilt: float, **look_changes):
    """Camera, look and a reader that has seen the empty board (as at start-up)."""
    camera, look = random_setup(seed, size, tilt_deg=tilt)
    if look_changes:
        look = replace(look, **look_changes)
    reader = BoardReader(size)
    reader.read(render_frame(Scene(size), camera, look, seed=seed).image)
    return camera, look, reader


def _with_hand(scene: Scene, **hand) -> Scene:
    out = scene.copy()
    out.hands = [Hand(**{"skin": SKIN, "sleeve": SLEEVE, **hand})]
    return out


def _read(reader: BoardReader, scene: Scene, camera, look, seed: int, t: float = 0.0):
    frame = render_frame(scene, camera, look, seed=seed, t=t)
    return frame.truth, reader.read(frame.image, lit=scene.leds or None)


def test_a_hand_resting_still_over_the_board_for_10_s_is_flagged_on_every_frame():
    camera, look, reader = _installation(11, 6, 25.0)
    scene = _with_hand(random_scene(12, 6), tip=(2.5, 3.2), from_side="south", height=1.3)
    stills = 0
    for k in range(20):  # 2 frames a second for 10 s: only the sensor noise and the light change
        truth, reading = _read(reader, scene, camera, look, seed=k, t=0.5 * k)
        assert truth.hand_over_board
        assert reading.occluded and not reading.clean, f"frame {k}: {reading.reason}"
        stills += not reading.moving
    assert stills >= 18  # it really is still: the motion gate cannot be what flags it


@pytest.mark.parametrize("seed,size,tilt", [(21, 5, 10.0), (22, 7, 35.0), (23, 8, 0.0)])
def test_an_arm_across_the_board_from_the_side_is_flagged(seed, size, tilt):
    camera, look, reader = _installation(seed, size, tilt)
    board = random_scene(seed + 1, size)
    for side, tip in (("east", (0.4, size / 2)), ("west", (size - 0.4, size / 2 - 0.5))):
        scene = _with_hand(board, tip=tip, from_side=side, height=1.0, angle_deg=8.0)
        truth, reading = _read(reader, scene, camera, look, seed=seed)
        assert truth.hand_over_board
        assert reading.occluded, f"arm from the {side}: {reading.reason}"


@pytest.mark.parametrize("seed,tilt", [(31, 15.0), (32, 38.0)])
def test_a_sleeve_alone_over_the_board_is_flagged(seed, tilt):
    """The hand reaches past the far edge: only the forearm's sleeve lies over the grid."""
    size = 6
    camera, look, reader = _installation(seed, size, tilt)
    scene = _with_hand(random_scene(seed, size), tip=(3.0, size + 2.2), from_side="south",
                       height=1.2)  # fmt: skip
    truth, reading = _read(reader, scene, camera, look, seed=seed)
    assert truth.hand_over_board
    assert reading.occluded, reading.reason


def test_a_hand_casting_a_long_shadow_under_a_low_lamp_is_flagged():
    camera, look, reader = _installation(41, 6, 20.0, light_elevation_deg=30.0,
                                         shadow_strength=0.7)  # fmt: skip
    scene = _with_hand(random_scene(42, 6), tip=(3.5, 2.5), from_side="north", height=2.8)
    truth, reading = _read(reader, scene, camera, look, seed=3)
    assert truth.hand_over_board
    assert reading.occluded, reading.reason


@pytest.mark.parametrize("held", [("dark", "flat"), ("light", "cap"), ("dark", "wall")])
def test_a_hand_holding_a_piece_above_a_square_is_flagged_not_read_as_a_piece(held):
    camera, look, reader = _installation(51, 5, 30.0)
    board = Scene(5, {"a1": [("light", "flat")], "e5": [("dark", "flat")]})
    scene = _with_hand(board, tip=(2.5, 2.5), from_side="south", height=0.5, holding=held)
    truth, reading = _read(reader, scene, camera, look, seed=5)
    assert truth.hand_over_board
    assert reading.occluded and not reading.clean, reading.reason


def test_every_frame_of_a_ply_with_a_hand_over_the_board_is_flagged():
    before = Scene(6, {"c3": [("light", "flat")], "d4": [("dark", "flat")]})
    after = before.copy()
    after.stacks["e2"] = [("light", "flat")]
    camera, look, reader = _installation(61, 6, 28.0)
    reader.read(render_frame(before, camera, look, seed=1).image)
    flags = []
    for k, scene in enumerate(reach_and_change(before, after, seed=62)):
        truth, reading = _read(reader, scene, camera, look, seed=100 + k, t=k / 10)
        flags.append((truth.hand_over_board, reading.occluded))
        if truth.hand_over_board:
            assert reading.occluded, f"frame {k}: hand over the board read clean"
    assert any(over for over, _ in flags)
    assert flags[-1] == (False, False)  # the hand has gone: clean again


def _tall_edge_stacks(size: int, rng: np.random.Generator) -> Scene:
    """Stacks of 4-6 with walls and capstones on top on every other edge square (a solid row of
    tall stacks along the far edge of a steep view is as wide as an arm: see docs/vision.md)."""
    stacks = {}
    for f in range(0, size, 2):
        for r in (0, size - 1):
            for name in (f"{'abcdefgh'[f]}{r + 1}", f"{'abcdefgh'[r]}{f + 1}"):
                height = int(rng.integers(4, 7))
                stacks[name] = [(("light", "dark")[int(rng.integers(2))], "flat")] * (height - 1)
                stacks[name].append(("dark", str(rng.choice(["flat", "wall", "cap"]))))
    return Scene(size, stacks)


@pytest.mark.parametrize("seed,size,tilt", [(71, 5, 38.0), (72, 6, 30.0), (73, 7, 20.0)])
def test_tall_stacks_on_the_edge_squares_raise_no_hand_alarm(seed, size, tilt):
    camera, look, reader = _installation(seed, size, tilt)
    scene = _tall_edge_stacks(size, np.random.default_rng(seed))
    for k in range(2):
        _truth, reading = _read(reader, scene, camera, look, seed=k, t=k)
        assert reading.board_found and not reading.occluded, reading.reason


@pytest.mark.parametrize("seed,colour", [(81, (0, 0, 255)), (82, (0, 255, 0)), (83, (255, 80, 0))])
def test_leds_glowing_under_edge_squares_raise_no_hand_alarm(seed, colour):
    size = 6
    camera, look, reader = _installation(seed, size, 25.0)
    scene = random_scene(seed, size)
    scene.leds = {sq: colour for sq in ("a1", "c1", "f3", "f6", "a4", "d6")}
    _truth, reading = _read(reader, scene, camera, look, seed=1)
    assert reading.board_found and not reading.occluded, reading.reason


def test_a_hand_seen_stays_flagged_while_still_and_partly_in_the_ring():
    """Motion history: once flagged, a hand that has not visibly moved and still shows in a few
    ring samples (too few for a band) stays flagged; a clear ring releases it even without motion
    (no hand reaches the board without crossing the ring; the motion gate can miss a hand leaving
    between two frames in dim light)."""
    camera, look, reader = _installation(91, 5, 20.0)
    board = Scene(5, {"c3": [("dark", "flat")]})  # nothing near the ring: no stack claims needed
    hand = render_frame(_with_hand(board, tip=(2.5, 2.5), from_side="south"), camera, look)
    clear = render_frame(board, camera, look, seed=2)
    gate = reader.hands
    assert isinstance(gate, HandGate)
    hand_ring, clear_ring = gate.sample(hand.image), gate.sample(clear.image)
    assert gate.check(hand_ring, [], moving=True)[0]
    changed, _ = gate.changed(hand_ring)
    trace_at = np.flatnonzero(changed & gate.voting)[:6]  # a few samples of the arm left
    assert len(trace_at) >= 3
    trace = clear_ring.copy()
    trace[trace_at] = hand_ring[trace_at]
    held, why = gate.check(trace, [], moving=False)
    assert held and "nothing has moved" in why
    assert not gate.check(clear_ring, [], moving=False)[0]  # the ring is clear: it has left
    assert not gate.check(clear_ring, [], moving=False)[0]  # and stays released


def test_ring_changes_that_were_there_before_the_hand_do_not_keep_it_flagged():
    """A few ring samples unexplained on every frame (fresh record bench seed 1372: beside a
    stack, four of them) are no trace of a hand: once a hand has come and gone, the same ring
    releases it. Before, the hand that made that game's last ply stayed "held" to the end, and
    the ply was never judged."""
    camera, look, reader = _installation(91, 5, 20.0)
    board = Scene(5, {"c3": [("dark", "flat")]})
    hand = render_frame(_with_hand(board, tip=(2.5, 2.5), from_side="south"), camera, look)
    clear = render_frame(board, camera, look, seed=2)
    gate = reader.hands
    hand_ring, clear_ring = gate.sample(hand.image), gate.sample(clear.image)
    changed, _ = gate.changed(hand_ring)
    stale_at = np.flatnonzero(changed & gate.voting)[:6]
    assert len(stale_at) >= 3
    stale = clear_ring.copy()
    stale[stale_at] = hand_ring[stale_at]  # changed before any hand came, and after
    assert not gate.check(stale, [], moving=False)[0]
    assert gate.check(hand_ring, [], moving=True)[0]
    assert not gate.check(stale, [], moving=False)[0]  # the hand has left


@pytest.mark.parametrize("seed,tilt", [(101, 12.0), (102, 34.0)])
def test_a_hand_with_the_woods_own_colour_is_flagged(seed, tilt):
    """Skin of the board's colour hides in the ring; the sleeve crossing the table gives it away."""
    camera, look, reader = _installation(seed, 6, tilt)
    board = random_scene(seed, 6)
    for side, tip in (("south", (2.5, 1.5)), ("west", (1.5, 3.5))):
        scene = _with_hand(board, tip=tip, from_side=side, height=1.4, skin=look.board_color)
        truth, reading = _read(reader, scene, camera, look, seed=seed)
        assert truth.hand_over_board
        assert reading.occluded, f"wood-coloured hand from the {side}: {reading.reason}"


def test_the_wood_lit_again_when_a_stack_whose_shadow_the_ring_took_in_goes_is_no_hand():
    """Fresh record bench seed 512 (4x4, tilt 37, a low light): a1's stack cast its shadow over
    the ring, and the ring's model, following the light on still boards, took the shadow in.
    When the stack was spread away the wood there was lit again, brighter than the model
    allowed: a hand, on every frame for 27 s (the model only follows on frames without one),
    and the recording lost its last 11 plies. The wood is as it was first seen: no hand."""
    import random

    from controller.tracking.script import random_game, timeline

    rng = random.Random(512)  # the record bench's draws for its game 512, in its order
    size, length, tilt = rng.choice((4, 5, 6, 7)), rng.randint(20, 60), rng.uniform(0.0, 40.0)
    shots = list(timeline(size, random_game(size, length, rng), rng))
    camera, look = random_setup(512, size, tilt_deg=tilt)
    reader = BoardReader(size)
    before, after = shots[452], shots[465]  # still boards before and after 2a1+11
    assert before.still and after.still and "a1" in before.stacks and "a1" not in after.stacks
    for k in range(10):  # start-up: the empty board
        reader.read(render_frame(Scene(size), camera, look, seed=k, t=k / 5).image)
    for k in range(30):  # the stack on a1 for 6 s
        reading = reader.read(render_frame(Scene(size, before.stacks), camera, look,
                                           seed=100 + k, t=2 + k / 5).image)  # fmt: skip
    assert reading.clean, reading.reason
    for k in range(5):
        reading = reader.read(render_frame(Scene(size, after.stacks), camera, look,
                                           seed=200 + k, t=14 + k / 5).image)  # fmt: skip
        assert not reading.occluded, f"frame {k} after: {reading.reason}"


def test_a_dim_noisy_camera_over_a_dark_board_sees_no_hand_on_the_empty_board():
    """Record bench seed 803 (4x4, tilt 19.5): a dim room, a dark board, sensor noise 8 levels.
    Between two still frames the ring's samples differ by 45 (median squared BGR distance)
    against 3-11 on the other installations, more than the 150 a change needed on 17 % of them:
    from its second frame the gate saw a hand on every still frame, the empty board was never
    learned further, and the game recorded nothing. The gate now measures the camera's noise."""
    import random

    rng = random.Random(803)  # the record bench's draws for its game 803, in its order
    size, _length, tilt = rng.choice((4, 5, 6, 7)), rng.randint(20, 60), rng.uniform(0.0, 40.0)
    camera, look = random_setup(803, size, tilt_deg=tilt)
    assert look.lighting == "dim" and look.noise_sigma > 7
    reader = BoardReader(size)
    flagged = []
    for k in range(10):
        frame = render_frame(Scene(size), camera, look, seed=803_000 + k, t=k / 5).image
        if reader.read(frame).occluded:
            flagged.append(k)
    assert flagged == []
    assert reader.hands.noise > 30  # (43 measured)
    # and a hand over that board is still seen
    _truth, reading = _read(reader, _with_hand(Scene(size), tip=(1.5, 1.5), from_side="south",
                                               height=1.0), camera, look, seed=803_100)  # fmt: skip
    assert reading.occluded


def test_a_stacks_shadow_deeper_than_the_ring_allows_for_is_no_hand():
    """Fresh record bench seed 932 (4x4, tilt 29, a low lamp): a dark wall put on a2's stack
    threw a shadow across the whole ring beside it, darker (gain 0.3-0.45) than light and
    shadow are allowed to make the wood: a hand on every frame for the last 7 s, and the game's
    last three plies were never judged. Only darker, with the wood's hue, beside a stack tall
    enough to cast it: the stack's shadow."""
    import random

    from controller.tracking.script import random_game, timeline

    rng = random.Random(932)  # the record bench's draws for its game 932, in its order
    size, length, tilt = rng.choice((4, 5, 6, 7)), rng.randint(20, 60), rng.uniform(0.0, 40.0)
    shots = list(timeline(size, random_game(size, length, rng), rng))
    camera, look = random_setup(932, size, tilt_deg=tilt)
    reader = BoardReader(size)
    board = shots[655]
    assert board.still and board.stacks["a2"][-1] == ("dark", "wall")
    for k in range(10):  # start-up: the empty board
        reader.read(render_frame(Scene(size), camera, look, seed=k, t=k / 5).image)
    for k in range(10):
        reading = reader.read(render_frame(Scene(size, board.stacks), camera, look,
                                           seed=100 + k, t=2 + k / 5).image)  # fmt: skip
        assert not reading.occluded, f"frame {k}: {reading.reason}"

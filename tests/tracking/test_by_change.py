"""Judging plies by which squares CHANGED (appearance signatures), reading by reading at 5 fps."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest

from controller.tak import BLACK, FLAT, WALL, WHITE, Ply, Position
from controller.tracking import (
    Ask,
    Commit,
    Illegal,
    Takeback,
    Tracker,
    TrackerConfig,
    Withdrawn,
)
from controller.tracking.change import (
    STRIP_BINS,
    board_noise,
    changes,
    darkened,
    faint_changes,
    footprint_changes,
    light_only,
    p_changed,
    p_faint,
    quiet_squares,
)
from controller.tracking.synthetic import hand_reading, stacks_reading, with_appearance_noise
from vision.reading import SquareReading

FPS = 5
DT = 1 / FPS


class Camera:
    """A tracker fed like the real reader does: signatures on every still board, and `misread`
    (square -> what the reader wrongly says is there) applied to the reader's answers only."""

    def __init__(self, position: Position, seed: int = 1, **config) -> None:
        self.tracker = Tracker(position, TrackerConfig(**config))
        self.size = position.size
        self.rng = random.Random(seed)
        self.t = 0.0
        self.misread: dict[str, tuple] = {}
        self.shaded: dict[str, float] = {}  # square -> how much its look is off (a shadow cast)
        self.light = 0.0  # the room's light, in signature units (drifts)
        self.log: list = []

    def reading(self, stacks, **kwargs):
        """A clean reading of `stacks` (noise and the room's light are added frame by frame)."""
        truth = stacks_reading(self.size, stacks, appearance=True, **kwargs)
        if self.misread:
            wrong = stacks_reading(self.size, {**stacks, **self.misread}, **kwargs)
            squares = {**truth.squares, **{sq: wrong.squares[sq] for sq in self.misread}}
            truth = replace(truth, squares=squares)
        if self.shaded:
            looks = {sq: truth.appearance[sq] + np.float32(by) for sq, by in self.shaded.items()}
            truth = replace(truth, appearance={**truth.appearance, **looks})
        return truth

    def feed(self, reading, seconds: float, *, drift: float = 0.0, answer: bool = True) -> list:
        """`answer`: accept the best candidate of a question at once, as the offline recorder
        does (False: live, nobody has answered yet)."""
        out = []
        self.last_reading = reading
        for _ in range(round(seconds * FPS)):
            self.light += drift * DT
            frame = with_appearance_noise(reading, self.rng, light=self.light)
            for decision in self.tracker.step(frame, self.t):
                out.append(decision)
                self.log.append(decision)
                if isinstance(decision, Ask) and answer:  # as the offline recorder does
                    self.log += self.tracker.accept(decision.candidates[0].ply, guess=True)
            self.t += DT
        return out

    def board(self, stacks, seconds: float = 1.2, **kwargs) -> list:
        stacks = stacks.stacks() if isinstance(stacks, Position) else stacks
        return self.feed(self.reading(stacks, **kwargs), seconds)

    def play(self, truth: Position, ptn: str, **kwargs) -> list:
        truth.play(Ply.from_ptn(ptn))
        self.feed(hand_reading(self.size), 0.6)
        return self.board(truth, **kwargs)


def committed(log) -> list[str]:
    return [d.ply.ptn() for d in log if isinstance(d, Commit)]


def _two_plies_in() -> tuple[Position, Camera]:
    """A 5x5 game after a1 and e5, every board of it seen by the camera."""
    truth, camera = Position(5), Camera(Position(5))
    camera.board(truth, 2.0)
    camera.play(truth, "a1")
    camera.play(truth, "e5")
    return truth, camera


def test_tracking_and_vision_compare_signatures_the_same_way():
    from vision import appearance

    assert STRIP_BINS == appearance.BINS  # where a signature's footprint starts
    rng = np.random.default_rng(3)
    rows = appearance.BINS + appearance.FOOTPRINT**2
    then = rng.normal(10.0, 2.0, (25, rows, 3)).astype(np.float32)
    now = then + 0.4 + rng.normal(0.0, 0.05, then.shape).astype(np.float32)  # light + noise
    now[7, 2:5] += 3.0  # one square visibly changed on three bins
    now[9, appearance.BINS :] += 3.0  # and one in its footprint alone: not a strip's change
    names = [f"s{i}" for i in range(25)]
    ours = changes(dict(zip(names, now, strict=True)), dict(zip(names, then, strict=True)))
    theirs = appearance.changes(now, then)
    assert [ours[n] for n in names] == pytest.approx(list(theirs), abs=1e-5)
    assert p_changed(ours["s7"]) == 1.0
    assert max(p_changed(ours[n]) for n in names if n != "s7") == 0.0


def test_a_footprint_changed_all_round_is_a_faint_change_and_one_changed_from_a_side_is_not():
    rng = np.random.default_rng(4)
    side = 9
    then = rng.normal(12.0, 1.0, (25, STRIP_BINS + side * side, 3)).astype(np.float32)
    now = then + rng.normal(0.0, 0.05, then.shape).astype(np.float32)
    outline = np.zeros((side, side), bool)
    outline[1, 1:-1] = outline[-2, 1:-1] = outline[1:-1, 1] = outline[1:-1, -2] = True
    now[5, STRIP_BINS:][outline.ravel()] += 1.5  # the top piece turned: its outline moved
    near = np.zeros((side, side), bool)
    near[:3] = True
    now[3, STRIP_BINS:][near.ravel()] += 3.0  # a neighbour's shadow reaching in from one side
    names = [f"s{i}" for i in range(25)]
    now_looks, then_looks = dict(zip(names, now, strict=True)), dict(zip(names, then, strict=True))
    footprints = footprint_changes(now_looks, then_looks)
    assert footprints["s5"] > 2.0 and footprints["s3"] < 0.3
    faint = faint_changes(now_looks, then_looks, changes(now_looks, then_looks))
    assert faint["s5"] == 1.0 and faint["s3"] == 0.0
    assert max(faint[n] for n in names if n != "s5") == 0.0
    # signatures without footprints (older files, the synthetic reader): the strips alone
    strips = {n: look[:STRIP_BINS] for n, look in now_looks.items()}
    before = {n: look[:STRIP_BINS] for n, look in then_looks.items()}
    assert footprint_changes(strips, before) == {}
    strip = changes(strips, before)
    floor = board_noise(strip)
    assert faint_changes(strips, before, strip) == {n: p_faint(c, floor) for n, c in strip.items()}


def test_a_square_is_quiet_only_where_both_its_strip_and_its_footprint_stayed_put():
    rng = np.random.default_rng(6)
    side = 9
    then = rng.normal(12.0, 1.0, (25, STRIP_BINS + side * side, 3)).astype(np.float32)
    now = then + rng.normal(0.0, 0.02, then.shape).astype(np.float32)
    now[2, STRIP_BINS:] += rng.normal(0.0, 0.6, (side * side, 3)).astype(np.float32)  # footprint
    now[7, :STRIP_BINS] += rng.normal(0.0, 0.4, (STRIP_BINS, 3)).astype(np.float32)  # strip
    names = [f"s{i}" for i in range(25)]
    now_looks, then_looks = dict(zip(names, now, strict=True)), dict(zip(names, then, strict=True))
    quiet = quiet_squares(changes(now_looks, then_looks), footprint_changes(now_looks, then_looks))
    assert quiet == set(names) - {"s2", "s7"}
    # without footprints nothing is sure to be quiet: the strip alone misses faint changes
    strips = {n: look[:STRIP_BINS] for n, look in now_looks.items()}
    before = {n: look[:STRIP_BINS] for n, look in then_looks.items()}
    assert quiet_squares(changes(strips, before), footprint_changes(strips, before)) == set()


def test_the_boards_noise_is_what_the_untouched_squares_changed_by():
    rng = np.random.default_rng(5)
    then = {f"s{i}": rng.normal(10.0, 2.0, (8, 3)).astype(np.float32) for i in range(16)}
    now = {n: s + rng.normal(0.0, 0.05, s.shape).astype(np.float32) for n, s in then.items()}
    quiet = board_noise(changes(now, then))
    now["s3"] = now["s3"] + np.float32([4.0, -1.0, -3.0])  # a piece placed
    now["s9"] = now["s9"] - np.float32(2.0)  # its shadow on a neighbour
    noisy = changes(now, then)
    # two squares of sixteen changed a lot: the median is still the sensor's noise
    assert 0.0 < quiet < 0.3 and board_noise(noisy) == pytest.approx(quiet, abs=0.05)
    assert noisy["s3"] > 20 * board_noise(noisy)
    assert board_noise({}) == 0.0


def test_a_change_of_the_light_alone_is_told_from_a_change_of_colour():
    rng = np.random.default_rng(4)
    then = {f"s{i}": rng.normal(10.0, 2.0, (8, 3)).astype(np.float32) for i in range(9)}
    now = {n: s + np.float32(0.2) for n, s in then.items()}  # the room a little brighter
    now["s1"] = now["s1"] - np.float32(1.5)  # a shadow: every channel alike
    now["s2"] = now["s2"] + np.float32([2.0, -0.5, -1.5])  # a piece: the colour changed
    now["s3"] = now["s3"] - np.float32(5.0)  # deeper than any shadow: a dark piece on light wood
    shade = light_only(now, then)
    assert shade["s1"] == 1.0 and shade["s2"] == 0.0 and shade["s3"] == 0.0
    # which way the light went: darker where a shadow came (or a dark piece), not in the room
    dark = darkened(now, then)
    assert dark["s1"] == pytest.approx(1.5, abs=0.1) and dark["s3"] == pytest.approx(5.0, abs=0.1)
    assert abs(dark["s4"]) < 0.1
    assert darkened(then, now)["s1"] == pytest.approx(-1.5, abs=0.1)  # the shadow went


def test_a_square_misread_all_along_never_stalls_the_game():
    truth, camera = _two_plies_in()
    # from now on the reader sees a tall dark stack on empty c3, and a wall where a1's flat is
    camera.misread = {"c3": ((BLACK, FLAT),) * 4, "a1": ((BLACK, WALL),)}
    camera.feed(hand_reading(5), 0.6)
    camera.board(truth, 2.0)
    for ptn in ("d4", "b2", "e5<"):
        assert not [d for d in camera.play(truth, ptn) if isinstance(d, Illegal)]
    assert committed(camera.log) == ["a1", "e5", "d4", "b2", "e5<"]
    assert camera.tracker.position.tps() == truth.tps()


def test_without_signatures_the_same_misread_stalls_the_game():
    # the control for the test above: on the reader's answers alone, a phantom that appears on
    # an untouched square contradicts every hypothesis
    truth, camera = Position(5), Camera(Position(5))
    camera.board(truth, 2.0)
    camera.play(truth, "a1")
    camera.misread = {"c3": ((BLACK, FLAT),) * 4}
    truth.play(Ply.from_ptn("e5"))
    reading = replace(camera.reading(truth.stacks()), appearance=None)
    camera.feed(hand_reading(5), 0.6)
    assert [type(d) for d in camera.feed(reading, 1.2)] == [Illegal]


def test_light_drifting_on_a_still_board_is_not_a_change():
    truth, camera = Position(5), Camera(Position(5))
    camera.board(truth, 2.0)
    camera.play(truth, "a1")
    # the room darkens steadily by 2 units a second (a signature unit is a visible difference)
    assert camera.feed(camera.reading(truth.stacks()), 6.0, drift=-2.0) == []
    assert committed(camera.play(truth, "e5")) == ["e5"]


def test_a_square_that_changed_with_no_ply_to_explain_it_is_illegal():
    truth, camera = _two_plies_in()
    moved = dict(truth.stacks())
    moved["a1"] = ((BLACK, WALL),)  # someone stood a1's flat up: no ply does that
    camera.feed(hand_reading(5), 0.6)
    assert camera.board(moved, 1.0) == [Illegal(("a1",))]
    camera.feed(hand_reading(5), 0.6)
    assert camera.board(truth, 1.0)[0].__class__.__name__ == "Resynced"
    camera.play(truth, "c3")
    assert committed(camera.log) == ["a1", "e5", "c3"]


def test_camera_bumped_takes_the_signatures_again():
    truth, camera = Position(5), Camera(Position(5))
    camera.board(truth, 2.0)
    camera.play(truth, "a1")
    # the camera moved: every square's pixels are other pixels now
    bumped = camera.reading(truth.stacks())
    shifted = {sq: s + np.float32(3.0 * ((i % 3) - 1)) for i, (sq, s) in
               enumerate(bumped.appearance.items())}  # fmt: skip
    first = replace(bumped, appearance=shifted, relocalised=True)
    later = replace(bumped, appearance=shifted)
    assert camera.feed(first, DT) + camera.feed(later, 1.4) == []  # nothing to report
    truth.play(Ply.from_ptn("e5"))
    camera.feed(hand_reading(5), 0.6)
    after = camera.reading(truth.stacks())
    after = replace(after, appearance={sq: s + shifted[sq] - bumped.appearance[sq]
                                       for sq, s in after.appearance.items()})  # fmt: skip
    assert committed(camera.feed(after, 1.2)) == ["e5"]


def _flat_placed_read_so_sure(sure: float) -> list:
    truth, camera = _two_plies_in()
    truth.play(Ply.from_ptn("c3"))
    camera.feed(hand_reading(5), 0.6)
    reading = camera.reading(truth.stacks())
    squares = dict(reading.squares)
    squares["c3"] = replace(squares["c3"], kind_confidence=sure, confidence=sure)
    return camera.feed(replace(reading, squares=squares), 1.2)


# 0.92: fresh bench seed 520, a wall read as a flat so sure, recorded as a flat without a `?`
@pytest.mark.parametrize("sure", [0.8, 0.92])
def test_a_flat_the_reader_is_not_sure_is_not_a_wall_is_asked_about(sure):
    asks = [d for d in _flat_placed_read_so_sure(sure) if isinstance(d, Ask)]
    assert asks and asks[0].candidates[0].ply.ptn() == "c3"
    assert {"Sc3", "Cc3"} & {c.ply.ptn() for c in asks[0].candidates}


def test_a_flat_the_reader_is_sure_of_is_committed():
    decisions = _flat_placed_read_so_sure(0.97)
    assert [d.ply.ptn() for d in decisions if isinstance(d, Commit)] == ["c3"]
    assert not [d for d in decisions if isinstance(d, Ask)]


def _c2_flat_recorded_as_a_wall() -> tuple[Position, Camera]:
    """a1, e5, c3; then black places a flat on c2 and the reader calls it a wall, 80 % sure:
    asked, and recorded Sc2? (the camera accepts the first candidate)."""
    truth, camera = Position(5), Camera(Position(5))
    camera.board(truth, 2.0)
    for ptn in ("a1", "e5", "c3"):
        camera.play(truth, ptn)
    camera.misread = {"c2": ((WHITE, WALL),)}
    truth.play(Ply.from_ptn("c2"))
    camera.feed(hand_reading(5), 0.6)
    reading = camera.reading(truth.stacks())
    squares = dict(reading.squares)
    squares["c2"] = replace(squares["c2"], color="dark", kind_confidence=0.8, confidence=0.8)
    camera.feed(replace(reading, squares=squares), 1.2)
    assert camera.tracker.position.top("c2") == (BLACK, WALL)
    camera.misread = {}
    return truth, camera


def test_a_close_call_is_revised_when_a_later_spread_only_fits_the_other_candidate():
    truth, camera = _c2_flat_recorded_as_a_wall()
    # white moves c3 onto c2: only legal if c2 is a flat
    decisions = camera.play(truth, "c3-")
    assert isinstance(decisions[0], Takeback) and decisions[0].n == 1
    assert isinstance(decisions[1], Ask) and decisions[1].candidates[0].ply.ptn() == "c2"
    assert "revised" in decisions[1].reason
    camera.board(truth, 1.0)
    assert camera.tracker.position.tps() == truth.tps()
    assert committed(camera.log)[-2:] == ["c2", "c3-"]


def test_a_close_call_far_back_is_revised_when_a_much_later_spread_shows_it():
    # as above, but the spread onto c2 comes six plies later (bench seed 22: a flat recorded as
    # a wall at ply 6 showed at ply 30, when a wall was moved onto it)
    truth, camera = _c2_flat_recorded_as_a_wall()
    for ptn in ("a5", "e1", "b5", "d1", "a4", "e2"):
        camera.play(truth, ptn)
    decisions = camera.play(truth, "c3-")
    assert isinstance(decisions[0], Takeback) and decisions[0].n == 7
    assert decisions[1].candidates[0].ply.ptn() == "c2" and "revised" in decisions[1].reason
    camera.board(truth, 1.0)
    assert camera.tracker.position.tps() == truth.tps()


def test_a_close_call_played_again_after_an_older_one_was_revised_can_itself_be_revised():
    # c2 (black's flat) recorded Sc2?, then d3 (white's flat) recorded Sd3?; c3- onto c2
    # revises ply 4 and plays ply 5 again as recorded, still a close call: when black later
    # moves d4 onto d3, only a flat there fits, and ply 5 is revised in turn (fresh bench seed
    # 2605: ply 4's question went with ply 3's revision; the game was out of sync for its
    # last 14 plies)
    truth, camera = _c2_flat_recorded_as_a_wall()
    _placed_and_asked(camera, truth, "d3", "d3", ((WHITE, WALL),), 0.8, person=False)
    assert committed(camera.log)[-1] == "Sd3"
    for ptn in ("a5", "c3-"):
        camera.play(truth, ptn)
    camera.board(truth, 1.0)
    assert committed(camera.log)[-4:] == ["c2", "Sd3", "a5", "c3-"]  # ply 4 revised
    for ptn in ("d4", "b1", "d4-"):
        camera.play(truth, ptn)
    camera.board(truth, 1.0)
    assert camera.tracker.position.tps() == truth.tps()
    assert committed(camera.log)[-6:] == ["d3", "a5", "c3-", "d4", "b1", "d4-"]


def _placed_and_asked(
    camera: Camera, truth: Position, ptn: str, square: str, read_as: tuple, sure: float,
    person: bool,
) -> None:
    """`ptn` placed on `square`, which the reader takes for `read_as`, `sure` sure: asked, and
    the first candidate taken, as the recorder's guess or (`person`) a person's answer, live."""
    camera.misread = {square: read_as}
    truth.play(Ply.from_ptn(ptn))
    camera.feed(hand_reading(camera.size), 0.6)
    reading = camera.reading(truth.stacks())
    squares = dict(reading.squares)
    squares[square] = replace(squares[square], kind_confidence=sure, confidence=sure)
    (ask,) = camera.feed(replace(reading, squares=squares), 1.2, answer=not person)
    if person:
        camera.log += camera.tracker.accept(ask.candidates[0].ply)
    camera.misread = {}


def _black_piece_on_c2_read_as_a_wall(placed: str, person: bool = False) -> tuple[Position, Camera]:
    """Black, with a wall on c3 and a flat on d3, places `placed` on c2; the reader calls it a
    wall, 80 % sure: asked, and recorded Sc2? (`person`: answered Sc2 by a person, live, rather
    than taken as the recorder's guess). Then white places e5."""
    truth, camera = _seen("x5/x5/x2,2S,2,x/x5/1,x4 2 3")
    _placed_and_asked(camera, truth, placed, "c2", ((BLACK, WALL),), 0.8, person)
    assert committed(camera.log) == ["Sc2"]
    camera.play(truth, "e5")
    return truth, camera


def test_a_close_call_is_revised_when_a_later_ply_fits_it_and_another_only_against_the_reader():
    # bench seed 22: black's flat on c2 was recorded Sc2?. Now black moves its wall from c3 onto
    # c2; seen from above, a dark wall on a dark flat barely changes c2. With c2 a wall that
    # move is illegal, but the wall moved onto d3's dark flat fits the changes (a top of the
    # same colour is hard to see), while the reader surely sees a flat on d3. Only c2 as a flat
    # explains the board with the reader's agreement.
    truth, camera = _black_piece_on_c2_read_as_a_wall("c2")
    decisions = _played_with_looks(camera, truth, "c3-", {"c2": 0.3})
    assert isinstance(decisions[0], Takeback) and decisions[0].n == 2
    assert decisions[1].candidates[0].ply.ptn() == "c2" and "fits it better" in decisions[1].reason
    camera.board(truth, 1.0)
    assert committed(camera.log)[-3:] == ["c2", "e5", "c3-"]
    assert camera.tracker.position.tps() == truth.tps()


def test_a_person_s_answer_is_never_revised():
    # live, a person answered the question: their answer is the game, whatever later boards
    # seem to say (the same boards as above, where the recorder's own guess is revised)
    truth, camera = _black_piece_on_c2_read_as_a_wall("c2", person=True)
    decisions = _played_with_looks(camera, truth, "c3-", {"c2": 0.3})
    assert not [d for d in decisions if isinstance(d, Takeback)]
    assert committed(camera.log)[:2] == ["Sc2", "e5"]


def test_of_two_close_calls_the_one_whose_other_answer_explains_the_board_best_is_revised():
    # black's flat on c2 recorded Sc2? (wrong), later black's wall on d3 recorded Sd3? (right);
    # then black moves c3's wall onto c2, a dark wall on a dark flat, barely seen from above. With
    # both walls nothing fits. Had d3 been a flat, the wall moved onto d3 would fit the changes
    # (a top of its colour is hard to see), against the reader, who sees a wall there as before;
    # had c2 been a flat, the move played fits with the reader. The newer call is not the one
    # to revise just for being newer (bench seed 37: revising the newest, wrongly, lost 3 plies)
    truth, camera = _seen("x5/x5/x2,2S,x2/x5/1,x4 2 3")
    _placed_and_asked(camera, truth, "c2", "c2", ((BLACK, WALL),), 0.8, person=False)
    camera.play(truth, "e5")
    _placed_and_asked(camera, truth, "Sd3", "d3", ((BLACK, WALL),), 0.8, person=False)
    camera.play(truth, "a5")
    decisions = _played_with_looks(camera, truth, "c3-", {"c2": 0.3})
    assert isinstance(decisions[0], Takeback) and decisions[0].n == 4
    assert decisions[1].candidates[0].ply.ptn() == "c2"
    assert committed(camera.log)[-5:] == ["c2", "e5", "Sd3", "a5", "c3-"]
    assert camera.tracker.position.tps() == truth.tps()


def test_a_close_call_stands_when_a_later_board_fits_the_other_way_only_about_as_well():
    # the control: c2 really is a wall, and black moves c3's wall onto d3, where the reader
    # now sees two flats (the wall's top, seen from above, taken for a flat). The wall moved
    # onto c2 had c2 been a flat explains that no worse, but not clearly better: nothing is
    # revised (revising then would record c2 and c3-, two wrong plies for one)
    truth, camera = _black_piece_on_c2_read_as_a_wall("Sc2")
    camera.misread = {"d3": ((BLACK, FLAT), (BLACK, FLAT))}
    decisions = _played_with_looks(camera, truth, "c3>", {"d3": 0.3})
    assert [type(d) for d in decisions] == [Ask]
    assert decisions[0].candidates[0].ply.ptn() == "c3>"
    assert committed(camera.log) == ["Sc2", "e5", "c3>"]
    assert camera.tracker.position.tps() == truth.tps()


def _white_wall_on_d2_read_as_a_flat(
    person: bool, sure: float = 0.6
) -> tuple[Position, Camera, list]:
    """4x4, white flats on a2, b2, c2; white places a wall on d2 and the reader calls it a flat,
    `sure` sure: asked, and d2 recorded, which ends the game with white's road (`person`: a
    person answered d2; else the recorder's guess). Then black places a4."""
    truth, camera = _seen("x4/x4/1,1,1,x/2,2,2,x 1 4")
    _placed_and_asked(camera, truth, "Sd2", "d2", ((WHITE, FLAT),), sure, person)
    assert committed(camera.log) == ["d2"] and camera.tracker.state == "over"
    return truth, camera, camera.play(truth, "a4")


@pytest.mark.parametrize("sure", [0.6, 0.8])
def test_a_game_ended_by_a_guess_goes_on_when_a_ply_is_played_after_the_end(sure):
    # (at 0.8 the wall was judged dearer than the commit margin when asked, and `c2>`, a spread
    # onto d2 nobody asked about, fits the board after a4 as well: fresh bench seed 604 revised
    # its `d4?` so, for `Sd4`; the candidates asked about are tried first)
    truth, camera, decisions = _white_wall_on_d2_read_as_a_flat(person=False, sure=sure)
    assert isinstance(decisions[0], Takeback) and decisions[0].n == 1
    assert decisions[1].candidates[0].ply.ptn() == "Sd2"
    assert committed(camera.log) == ["d2", "Sd2", "a4"]
    assert camera.tracker.state == "tracking" and camera.tracker.position.tps() == truth.tps()


def test_after_an_ending_a_person_confirmed_nothing_more_is_judged():
    _, camera, decisions = _white_wall_on_d2_read_as_a_flat(person=True)
    assert decisions == [] and camera.tracker.state == "over"


def test_a_piece_that_barely_changes_its_square_is_seen_by_the_reader_coming():
    # a light flat on light wood, seen from straight above: its colours differ from the bare
    # square's by a little more than the noise only; the reader is sure a piece is there now
    truth, camera = _two_plies_in()
    bare = camera.reading(truth.stacks()).appearance["c3"]
    truth.play(Ply.from_ptn("c3"))
    camera.feed(hand_reading(5), 0.6)
    reading = camera.reading(truth.stacks())
    faint = replace(reading, appearance={**reading.appearance, "c3": bare + np.float32(0.6)})
    camera.feed(faint, 1.2)
    assert committed(camera.log) == ["a1", "e5", "c3"]


def _seen(tps: str) -> tuple[Position, Camera]:
    """A game from `tps`, its board seen by the camera."""
    truth, camera = Position.from_tps(tps), Camera(Position.from_tps(tps))
    camera.board(truth, 2.0)
    return truth, camera


def _played_with_looks(
    camera: Camera, truth: Position, ptn: str, off: dict, seconds: float = 1.2
) -> list:
    """Play `ptn` under a hand (several plies, space-separated: made at once); then the board
    for `seconds`, except that the squares in `off` look as they did before the ply plus that
    much (a change barely above the noise, as seen from above; a shadow cast on an untouched
    square)."""
    looks_before = camera.reading(truth.stacks()).appearance
    for one in ptn.split():
        truth.play(Ply.from_ptn(one))
    camera.feed(hand_reading(camera.size), 0.6)
    reading = camera.reading(truth.stacks())
    looks = {sq: looks_before[sq] + np.float32(by) for sq, by in off.items()}
    return camera.feed(replace(reading, appearance={**reading.appearance, **looks}), seconds)


def _dropped_on_its_twins(camera: Camera, truth: Position, ptn: str) -> list:
    """Play `ptn` (flats dropped on stacks topped by flats of their colour): only the reader's
    heights tell which stacks grew."""
    ply = Ply.from_ptn(ptn)
    targets = [sq for sq in ply.squares(camera.size) if sq != ply.square]
    return _played_with_looks(camera, truth, ptn, dict.fromkeys(targets, 0.3))


def test_a_flat_moved_onto_a_twin_is_told_apart_by_the_height_the_reader_saw_grow():
    start = "x5/x5/x5/x5/1,1,1,x2 1 3"
    truth, camera = _seen(start)
    _dropped_on_its_twins(camera, truth, "b1<")
    assert committed(camera.log) == ["b1<"]
    assert not [d for d in camera.log if isinstance(d, Ask)]


def test_a_flat_moved_onto_a_twin_read_too_high_all_along_is_asked_about():
    # the reader has said "two flats" on a1 since before the ply: its height did not change, so
    # it cannot tell a1 from c1, and the tracker must not guess
    start = "x5/x5/x5/x5/1,1,1,x2 1 3"
    truth, camera = Position.from_tps(start), Camera(Position.from_tps(start))
    camera.misread = {"a1": ((WHITE, FLAT), (WHITE, FLAT))}
    camera.board(truth, 2.0)
    camera.misread = {}  # now a1 really is two flats
    _dropped_on_its_twins(camera, truth, "b1<")
    (ask,) = [d for d in camera.log if isinstance(d, Ask)]
    assert {c.ply.ptn() for c in ask.candidates} == {"b1<", "b1>"}


def test_a_capstone_that_covers_and_shadows_its_neighbours_is_still_committed():
    # a capstone stands 0.8 of a square tall: seen at a tilt it hides part of the square behind
    # it and shadows the one beside it, whose looks change as much as a placed flat's own square
    truth, camera = _two_plies_in()
    truth.play(Ply.from_ptn("Cc3"))
    camera.feed(hand_reading(5), 0.6)
    reading = camera.reading(truth.stacks())
    covered = {sq: reading.appearance[sq] + np.float32(3.0) for sq in ("c4", "d3")}
    camera.feed(replace(reading, appearance={**reading.appearance, **covered}), 1.2)
    assert committed(camera.log) == ["a1", "e5", "Cc3"]


def test_a_capstone_moved_onto_a_flat_of_its_colour_that_barely_shows_is_recorded():
    # from above: a disk of the same colour on the flat; its look changes little (bench: 0.5-0.8)
    start = "x5/x5/x2,1C,1,x/x5/x5 1 8"
    truth, camera = _seen(start)
    _played_with_looks(camera, truth, "c3>", {"d3": 0.5})
    assert committed(camera.log) == ["c3>"]


def test_a_spread_onto_two_stacks_of_its_colour_is_recorded_from_the_heights_read():
    start = "x5/x5/x5/x,111,1,1,x/x5 1 10"
    truth, camera = _seen(start)
    _dropped_on_its_twins(camera, truth, "3b2>12")
    assert committed(camera.log) == ["3b2>12"]


def test_a_height_the_reader_still_misreads_after_a_spread_never_makes_a_placement_win_quietly():
    # bench seed 13: a flat moved from a two-stack onto the empty square next to it; the reader
    # went on reading the stack two high, and a placement on that square looked as good
    start = "x5/x5/x5/x3,22,x/x5 2 10"
    truth, camera = _seen(start)
    camera.misread = {"d2": ((BLACK, FLAT), (BLACK, FLAT))}  # from now on
    decisions = _played_with_looks(camera, truth, "d2-", {"d2": 0.8})
    assert not [d for d in decisions if isinstance(d, Commit) and d.ply.ptn() == "d1"]
    asked = [d for d in decisions if isinstance(d, Ask)]
    assert committed(decisions) == ["d2-"] or "d2-" in {c.ply.ptn() for c in asked[0].candidates}


def test_a_spread_whose_count_only_unsure_heights_tell_is_asked_about():
    # bench seed 37: 2c2> (the whole stack onto d2) recorded, unmarked, as c2> (its top only):
    # the reader saw a faint piece left on c2 and read d2 one too low, both unsure
    start = "x5/x5/x5/x2,21,1,x/x5 1 10"
    truth, camera = _seen(start)
    truth.play(Ply.from_ptn("2c2>"))
    camera.feed(hand_reading(5), 0.6)
    camera.misread = {"c2": ((BLACK, FLAT),), "d2": ((WHITE, FLAT), (WHITE, FLAT))}
    decisions = camera.board(truth, height_confidence=0.5, confidence=0.64)
    asked = [d for d in decisions if isinstance(d, Ask)]
    assert asked and {"c2>", "2c2>"} <= {c.ply.ptn() for c in asked[0].candidates}


def _placed_on_c3_but_read_as(ptn: str, read_as, **reading) -> list:
    """Two plies in, `ptn` placed on c3 and the reader reading c3 as `read_as` (with the other
    squares) at `reading`'s confidences: the decisions on that board."""
    truth, camera = _two_plies_in()
    truth.play(Ply.from_ptn(ptn))
    camera.feed(hand_reading(5), 0.6)
    camera.misread = {"c3": read_as}
    return camera.board(truth, **reading)


def test_a_wall_read_in_the_other_colour_is_asked_about_not_reported_illegal():
    # bench seed 24: the set's dark walls were read light at 0.98 (a thin side in shade)
    decisions = _placed_on_c3_but_read_as("Sc3", ((BLACK, WALL),))
    assert not [d for d in decisions if isinstance(d, Illegal)]
    (ask,) = [d for d in decisions if isinstance(d, Ask)]
    assert ask.candidates[0].ply.ptn() == "Sc3"


def _c5_lifted_by_an_unseen_hand(seconds: float = 3.0) -> tuple[Position, Camera, list]:
    """Black to move; c5's two-stack lifted (b5 a flat of its colour beside it), and the board
    then still with no hand seen for `seconds` (past `lifted_grace_s`, the tracker's wait for
    the pieces to come down): the decisions on that board."""
    truth, camera = _seen("x,2,22,x2/x5/x5/x5/1,x4 2 10")
    lifted = dict(truth.stacks())
    del lifted["c5"]
    camera.feed(hand_reading(5), 0.6)
    return truth, camera, camera.board(lifted, seconds)


def test_a_stack_lifted_by_a_hand_the_gate_missed_is_never_committed_as_a_spread():
    # bench seed 8: the hand paused with a lifted two-stack just beyond the far edge, unseen by
    # the gate; the still board showed c5 emptied, as if spread onto b5, whose height the reader
    # read unchanged
    *_, decisions = _c5_lifted_by_an_unseen_hand()
    assert not [d for d in decisions if isinstance(d, Commit)]


def test_a_question_asked_mid_spread_is_revised_when_the_board_shows_the_finished_spread():
    # the same, then the hand drops the stack on d5: nobody answered the question (the recorder
    # keeps its first candidate, 2c5<), and the board now shows 2c5>, which it never offered
    truth, camera, _ = _c5_lifted_by_an_unseen_hand()
    asked = [d for d in camera.log if isinstance(d, Ask)]
    assert asked and "2c5>" not in {c.ply.ptn() for c in asked[0].candidates}
    truth.play(Ply.from_ptn("2c5>"))
    camera.feed(hand_reading(5), 0.6)
    decisions = camera.board(truth, 2.0)
    assert isinstance(decisions[0], Takeback) and decisions[0].n == 1
    assert decisions[1].candidates[0].ply.ptn() == "2c5>"
    assert camera.tracker.position.tps() == truth.tps()
    assert committed(camera.play(truth, "a5")) == ["a5"]  # and the game goes on


def test_a_stack_lifted_and_soon_dropped_where_no_question_offered_it_is_committed_unasked():
    # the same, the pieces dropped on d5 within `lifted_grace_s`: the board with c5 emptied,
    # where the reader saw nothing land, was waited on, not asked about (fresh bench seed 1353)
    truth, camera, decisions = _c5_lifted_by_an_unseen_hand(seconds=2.0)
    assert decisions == []
    truth.play(Ply.from_ptn("2c5>"))
    camera.feed(hand_reading(5), 0.6)
    camera.board(truth, 2.0)
    assert committed(camera.log) == ["2c5>"]
    assert not [d for d in camera.log if isinstance(d, Ask)]


def _lifted_with_nowhere_to_land(seconds: float) -> tuple[Camera, list]:
    """Black to move; c5's two-stack lifted, no square beside it with a top it could land on
    unseen, and the board then still for `seconds`: the decisions on that board."""
    truth, camera = _seen("x2,22,x2/x5/x5/x5/1,x4 2 10")
    lifted = dict(truth.stacks())
    del lifted["c5"]
    camera.feed(hand_reading(5), 0.6)
    return camera, camera.board(lifted, seconds)


def test_a_stack_lifted_when_the_frames_end_is_judged_as_it_stands_not_forgotten():
    # no ply fits a board with c5 emptied, and the pieces are waited for (`lifted_grace_s`);
    # when the recording ends 2 s into the wait, no hand will drop them now, and the board is
    # judged as once it has stood (fresh bench seed 6138: the game's last ply lost without a
    # word when its frames ended 0.8 s into the wait)
    camera, waiting = _lifted_with_nowhere_to_land(2.0)
    assert waiting == [] and camera.tracker.state == "tracking"
    ended = camera.tracker.finish()
    _, stood = _lifted_with_nowhere_to_land(3.0)
    assert ended and ended == stood
    assert [type(d) for d in ended] == [Illegal]  # (no trace where they went: still in a hand)


def test_pieces_lifted_and_dropped_faintly_seen_when_the_frames_end_are_asked_about_not_lost():
    # c5's two dropped on d5, which the reader reads bare and whose look changed only faintly;
    # the frames end 2 s into the wait for the pieces (fresh bench seed 6138's last ply, `f4<`,
    # was reported as an illegal board and missing from the PTN): the spreads off c5 are asked
    # about, the one that fits the faint change first
    truth, camera = _seen("x2,22,x2/x5/x5/x5/1,x4 2 10")
    camera.misread = {"d5": ()}
    waiting = _played_with_looks(camera, truth, "2c5>", {"d5": 0.5}, seconds=2.0)
    assert waiting == [] and camera.tracker.state == "tracking"
    (ask,) = camera.tracker.finish()
    assert isinstance(ask, Ask) and "recording ended" in ask.reason
    assert ask.candidates[0].ply == Ply.from_ptn("2c5>")
    assert {c.ply.square for c in ask.candidates} == {"c5"}


def test_a_flat_read_in_the_other_colour_but_not_surely_is_asked_about_not_reported_illegal():
    # bench seed 29: a light flat read dark at 0.91; the game stopped there
    decisions = _placed_on_c3_but_read_as("c3", ((BLACK, FLAT),), confidence=0.91)
    assert not [d for d in decisions if isinstance(d, Illegal)]
    (ask,) = [d for d in decisions if isinstance(d, Ask)]
    assert ask.candidates[0].ply.ptn() == "c3"


def test_a_flat_surely_read_in_the_other_colour_still_rules_the_ply_out():
    # (after the opening: at ply 3 the same board is also what a quick reply leaves, white's flat
    # placed by black beside e5 and moved onto it at once, and that is asked about, the
    # placement `e5` last: `_last_was_two`)
    truth, camera = _two_plies_in()
    camera.play(truth, "b3")
    truth.play(Ply.from_ptn("c3"))
    camera.feed(hand_reading(5), 0.6)
    camera.misread = {"c3": ((WHITE, FLAT),)}
    decisions = camera.board(truth, confidence=0.99)
    assert [type(d) for d in decisions] == [Illegal]


def _a1_and_b1_unseen(*, answer: bool = True) -> tuple[Position, Camera, Callable]:
    """a1 holds two white flats, b1 one, white to move; a1 and b1 look the same whatever is
    played on them, and the reader reads them as they were: -> the game, the camera, and a
    `play(ptn)` making a ply under a hand and showing the board after (`answer`: the camera's
    questions answered at once with their first candidate, as the recorder does)."""
    truth, camera = _seen("x5/x5/x5/x5/11,1,x3 1 3")
    camera.misread = {"a1": ((WHITE, FLAT),) * 2, "b1": ((WHITE, FLAT),)}
    unchanged = {sq: camera.reading(truth.stacks()).appearance[sq] for sq in ("a1", "b1")}

    def play(ptn: str) -> list:
        truth.play(Ply.from_ptn(ptn))
        camera.feed(hand_reading(5), 0.6, answer=answer)
        reading = camera.reading(truth.stacks())
        return camera.feed(replace(reading, appearance={**reading.appearance, **unchanged}), 1.2,
                           answer=answer)  # fmt: skip

    return truth, camera, play


def test_a_ply_that_changed_no_look_is_asked_about_when_the_next_one_shows_it_was_missed():
    # a1> moves a white flat onto a white flat, and seen from straight above neither square
    # looks different, nor does the reader's height change
    truth, camera, play_unseen_on_a1_b1 = _a1_and_b1_unseen()
    play_unseen_on_a1_b1("a1>")
    assert committed(camera.log) == []  # nothing seen: nothing recorded yet
    # black places on d4: not white's ply, so a white ply was missed; a1> is the only white ply
    # that changes no top
    decisions = play_unseen_on_a1_b1("d4")
    (ask,) = [d for d in decisions if isinstance(d, Ask)]
    assert [c.ply.ptn() for c in ask.candidates] == ["a1>"]
    assert "not seen" in ask.reason
    assert committed(camera.log) == ["a1>", "d4"]
    assert camera.tracker.position.tps() == truth.tps()


def test_without_a_quiet_board_before_it_a_ply_of_the_wrong_player_is_illegal():
    # the control: the same d4 straight after a board where something was recorded
    truth, camera = _seen("x5/x5/x5/x5/11,1,x3 1 3")
    camera.play(truth, "c3")
    camera.play(truth, "d4")
    assert committed(camera.log) == ["c3", "d4"]
    moved = dict(truth.stacks())
    moved["e5"] = ((BLACK, FLAT),)  # black again: no white ply can have been missed unseen here
    camera.feed(hand_reading(5), 0.6)
    assert [type(d) for d in camera.board(moved, 1.0)] == [Illegal]


def test_a_phantom_that_goes_when_a_tall_neighbour_leaves_does_not_stall_the_ply():
    # a wall placed on b2 shades c1, where the reader then sees a flat; the wall moves onto b3,
    # and c1 reads empty again, its look changed back as much as a placed piece's (bench seed
    # 22: c4 after a wall left d4). c1 is next to where the wall stood, not where it went: it is
    # the reader's phantom gone, not a piece moved.
    truth, camera = _seen("x5/x5/x,1,x3/x5/x5 1 3")
    camera.misread, camera.shaded = {"c1": ((WHITE, FLAT),)}, {"c1": 3.0}
    camera.play(truth, "Sb2")
    camera.play(truth, "e5")
    camera.misread, camera.shaded = {}, {}
    camera.play(truth, "b2+")
    assert committed(camera.log) == ["Sb2", "e5", "b2+"]


def test_a_flat_placed_so_faintly_that_nothing_seemed_to_happen_is_asked_about_once_missed():
    # a light flat on light wood seen from straight above: its square's look changes by a little
    # more than the noise, and the reader does not see it at all (bench seed 22, b4)
    truth, camera = _two_plies_in()
    bare = camera.reading(truth.stacks()).appearance["c3"]
    truth.play(Ply.from_ptn("c3"))
    camera.misread = {"c3": ()}
    camera.shaded = {"c3": bare + np.float32(0.3) - camera.reading(truth.stacks()).appearance["c3"]}
    camera.feed(hand_reading(5), 0.6)
    camera.board(truth)
    assert committed(camera.log) == ["a1", "e5"]  # nothing seen: nothing recorded yet
    decisions = camera.play(truth, "d4")
    (ask,) = [d for d in decisions if isinstance(d, Ask)]
    assert ask.candidates[0].ply.ptn() == "c3" and "not seen" in ask.reason
    assert committed(camera.log) == ["a1", "e5", "c3", "d4"]


def test_a_ply_of_the_wrong_player_after_a_board_no_hand_touched_is_illegal_not_a_missed_ply():
    # as in the missed-ply test, the board before looked unchanged, but no hand came: the camera
    # only saw motion (someone nudged the table). Black's flat on d4 is then a piece of the
    # wrong colour, not a sign that a white ply was missed.
    truth, camera = _seen("x5/x5/x5/x5/11,1,x3 1 3")
    camera.feed(replace(camera.reading(truth.stacks()), moving=True), 0.4)
    camera.board(truth)
    moved = dict(truth.stacks())
    moved["d4"] = ((BLACK, FLAT),)
    camera.feed(hand_reading(5), 0.6)
    assert [type(d) for d in camera.board(moved, 1.0)] == [Illegal]


def test_a_capstone_moved_onto_a_flat_of_its_colour_is_told_by_the_faint_change_it_made():
    # d1's dark capstone goes onto e1 or c1, both dark flats; the reader reads e1 as a dark
    # flat still (so the ply is asked about: it contradicts the capstone), and e1's look changed
    # by only 0.75, c1's by 0.13: both below what counts as a change, but only one stands out
    # from the noise (bench seed 20, recorded d1<? for d1>, its reading of c1 a shade better)
    truth, camera = _seen("x5/x5/x5/x5/x2,2,2C,2 2 5")
    camera.misread = {"e1": ((BLACK, FLAT),)}
    (ask,) = _played_with_looks(camera, truth, "d1>", {"e1": 0.43, "c1": 0.075})
    first, *others = ask.candidates
    assert first.ply.ptn() == "d1>"
    assert all(c.cost - first.cost > 0.4 for c in others)



# b2: black, three white flats and a white wall on top, 1.3 pitches tall; white spreads it right
_TOWER = "x5/x5/x5/x,2111S,x3/x5 1 5"


def test_the_shadow_of_a_tower_taken_down_is_not_a_change_no_ply_explains():
    # the tower's shadow falls two squares away under a low light, and goes with it: a4 and b4
    # brighten as much as if a piece had gone, in every channel alike (bench seed 37, b2 and b3
    # behind b4 when its three flats and wall were spread)
    truth, camera = _seen(_TOWER)
    lifted = {"a4": 3.0, "b4": 3.0}
    assert [type(d) for d in _played_with_looks(camera, truth, "3b2>21", lifted)] == [Commit]
    assert committed(camera.log) == ["3b2>21"]


def test_a_change_of_colour_two_squares_from_the_tower_is_not_its_shadow():
    # the control: the same squares changed as much, but in one colour channel only: not the
    # shadow, so no ply fits what changed; the reader reads every square as the spread leaves
    # them, so it is asked about (`_shown_by_board`), never committed quietly
    truth, camera = _seen(_TOWER)
    tinted = {"a4": np.float32([9.0, 0.0, 0.0]), "b4": np.float32([9.0, 0.0, 0.0])}
    (ask,) = _played_with_looks(camera, truth, "3b2>21", tinted)
    assert isinstance(ask, Ask) and "shows this ply" in ask.reason


def _wall_on_d5_and_b3_darkened(reader_sees_a_piece: bool) -> tuple[list, Camera]:
    """White stands a wall on d5; b3, two squares off and within its shadow's reach, darkens by a
    grey shift as deep as a dark flat placed on wood, and the reader says either that a dark flat
    came there or that b3 is still empty. -> the decisions, the camera."""
    truth, camera = _seen("x5/x5/x5/x5/1,2,x3 1 2")
    if reader_sees_a_piece:
        camera.misread = {"b3": ((BLACK, FLAT),)}
    return _played_with_looks(camera, truth, "Sd5", {"b3": -2.5}), camera


def test_a_square_the_reader_saw_a_piece_come_to_is_not_a_walls_shadow():
    # bench seed 40 (with a retrained classifier): a dark flat placed on b3 changed it by 5.5, a
    # grey change, and it was excused as the shadow of a wall placed on d5, so one placement was
    # recorded for two plies and every ply after it was off by one, silently. The board is
    # white's wall and a black flat: no one ply, but two with no still board between them
    # (`ChangeJudge.pairs`), and those are asked about, never committed quietly
    decisions, camera = _wall_on_d5_and_b3_darkened(True)
    (ask,) = decisions
    assert isinstance(ask, Ask) and ask.candidates[0].describe() == "Sd5 then b3"
    assert committed(camera.log) == ["Sd5", "b3"]  # the answer (the best, taken) records both


@pytest.mark.parametrize(("start", "plies"), [
    ("x5/x5/x2,1,x2/x5/2,x3,1 2 2", "c2 d3"),  # two placements
    ("x5/x5/x2,1,x2/x2,2,x2/2,x3,1 1 3", "c3- d3"),  # a flat moved onto the other's, a placement
    # a placement, and a flat moved onto a stack with the same top: no top changes, and alone the
    # placement fitted as a wall, d2 and d3 excused as its shadows (quick replies, seed 450)
    ("2S,x,1,2/11,x,2,1/2,2S,22,11/1,2,2,x 2 12", "d1 d2+"),
])
def test_a_reply_made_before_the_board_was_still_is_asked_about_as_two_plies(start, plies):
    # one hand leaves as the other comes in: no still board between the plies. Before, the board
    # was illegal, then out of sync until both plies were taken back (and `c3-` was committed
    # alone, d3 excused as a phantom beside the stack it built: `_pair_instead`)
    truth, camera = _seen(start)
    first, reply = plies.split()
    camera.feed(hand_reading(truth.size), 0.6)
    for ptn in (first, reply):
        truth.play(Ply.from_ptn(ptn))
    decisions = camera.feed(camera.reading(truth.stacks()), 1.2, answer=False)
    (ask,) = decisions
    assert isinstance(ask, Ask) and ask.candidates[0].describe() == f"{first} then {reply}"
    assert "two plies at once" in ask.reason
    assert camera.tracker.position.ply_count == Position.from_tps(start).ply_count  # not yet
    answered = camera.tracker.accept(ask.candidates[0].ply)
    assert [d.ply.ptn() for d in answered if isinstance(d, Commit)] == [first, reply]
    assert camera.tracker.position.tps() == truth.tps()


@pytest.mark.parametrize("answer", ["d4 then d4>", "e3 then e3+"])
def test_a_placement_moved_on_at_once_in_the_opening_is_asked_about_when_the_next_ply_shows_it(
    answer,
):
    # quick-reply bench seed 302: black places white's flat and white moves it on at once; the
    # still board is just what a placement on the square it reached shows (`e4` here), and was
    # recorded as that, silently. Black's placement next is then not legal (white's turn): the
    # board fits no ply, but would fit one of black's had `e4` been two plies
    truth, camera = Position(5), Camera(Position(5))
    camera.board(truth, 2.0)
    camera.play(truth, "a1")
    camera.feed(hand_reading(5), 0.6)
    first, reply = answer.split(" then ")
    truth.play(Ply.from_ptn(first))
    truth.play(Ply.from_ptn(reply))
    camera.board(truth)
    assert committed(camera.log) == ["a1", "e4"]  # still boards alone cannot tell
    camera.feed(hand_reading(5), 0.6)
    truth.play(Ply.from_ptn("b2"))  # black's
    decisions = camera.feed(camera.reading(truth.stacks()), 1.2, answer=False)
    takeback, ask = decisions[:2]
    assert isinstance(takeback, Takeback) and takeback.n == 1
    assert isinstance(ask, Ask) and "two plies at once" in ask.reason
    offered = [c.describe() for c in ask.candidates]
    assert answer in offered and offered[-1] == "e4"  # every neighbour may have been the first
    chosen = next(c for c in ask.candidates if c.describe() == answer)
    answered = camera.tracker.accept(chosen.ply, then=chosen.then)
    answered += camera.tracker.judge_again()  # the board shows black's ply now
    assert [d.ply.ptn() for d in answered if isinstance(d, Commit)] == [first, reply, "b2"]
    assert camera.tracker.position.tps() == truth.tps()


def test_a_last_ply_that_a_person_confirmed_is_not_split_into_two():
    # the control: the same boards, the placement answered by a person (a question the reader
    # raised); black's placement then is an illegal board, the placement stays
    truth, camera = Position(5), Camera(Position(5))
    camera.board(truth, 2.0)
    camera.play(truth, "a1")
    camera.tracker.accept(Ply.from_ptn("e4"))  # typed in by hand before the board showed it
    camera.feed(hand_reading(5), 0.6)
    truth.play(Ply.from_ptn("d4"))
    truth.play(Ply.from_ptn("d4>"))
    camera.board(truth)
    camera.feed(hand_reading(5), 0.6)
    truth.play(Ply.from_ptn("b2"))
    decisions = camera.feed(camera.reading(truth.stacks()), 1.2, answer=False)
    assert [type(d) for d in decisions] == [Illegal]
    assert camera.tracker.position.last_ply == Ply.from_ptn("e4")


def test_a_square_left_and_read_occupied_is_asked_about_with_the_ply_alone_too():
    # fresh bench seed 914: `d3-` beside a stack of four, d3 then read occupied (a phantom, at
    # 0.69), was asked about only as "d3- then Sd3", and the guess ran the game a ply off. The
    # ply alone is offered too; read at 0.85, a piece there is more likely a reply placed at
    # once (quick replies on the tracker's own readings, seed 305), so the pair comes first
    # (the phantom case, with the ply alone first, is replayed from seed 914's own readings)
    truth, camera = _seen("x5/x5/x2,121,1,x/x5/x5 1 10")
    camera.feed(hand_reading(5), 0.6)
    truth.play(Ply.from_ptn("d3-"))
    clean = camera.reading(truth.stacks())
    seen = stacks_reading(5, {"d3": ((WHITE, WALL),)}, confidence=0.85)
    reading = replace(clean, squares={**clean.squares, "d3": seen.squares["d3"]})
    (ask,) = camera.feed(reading, 1.2, answer=False)
    assert [c.describe() for c in ask.candidates] == ["d3- then Sd3", "d3-"]


@pytest.mark.parametrize("kind", [FLAT, WALL])
@pytest.mark.parametrize("sure", [0.7, 0.8])
def test_a_ghost_left_beside_a_stack_never_lets_a_placement_next_to_it_in_quietly(kind, sure):
    # `d3-` beside the stack of three on c3, d3 then read as a light piece, not surely: the
    # placement on d2 fits every reading, and d3's change could be excused as its neighbour's.
    # Before `_ghost_rival` it was committed quietly (a silent error); now it is asked, the
    # move first (d3's look says a piece left)
    truth, camera = _seen("x5/x5/x2,121,1,x/x5/x5 1 10")
    camera.feed(hand_reading(5), 0.6)
    truth.play(Ply.from_ptn("d3-"))
    clean = camera.reading(truth.stacks())
    seen = stacks_reading(5, {"d3": ((WHITE, kind),)}, confidence=sure)
    reading = replace(clean, squares={**clean.squares, "d3": seen.squares["d3"]})
    (ask,) = camera.feed(reading, 1.2, answer=False)
    assert [c.describe() for c in ask.candidates] == ["d3-", "d2"]


def _d2_moved_and_c2_read_bare(played: str, bare: float, c2_look_off: float = 0.0) -> list:
    """Light flats on d3 and d2; `played` moves d2's; the reader reads c2 bare at `bare`, d3 a
    light flat on a light flat (d2's, had it gone up); c2's look is off by `c2_look_off` more
    than its own (a shadow) -> what the tracker decides on the board."""
    truth, camera = _seen("x5/x5/x3,1,x/x3,1,x/x5 1 10")
    before = camera.reading(truth.stacks()).appearance
    camera.feed(hand_reading(5), 0.6)
    truth.play(Ply.from_ptn(played))
    clean = camera.reading(truth.stacks())
    taller = stacks_reading(5, {"d3": ((WHITE, FLAT),) * 2}, confidence=0.95,
                            height_confidence=0.87)  # fmt: skip
    squares = {**clean.squares, "d3": taller.squares["d3"],
               "c2": SquareReading(empty=True, confidence=bare, empty_confidence=bare)}
    looks = dict(clean.appearance)
    if c2_look_off:
        looks["c2"] = before["c2"] + np.float32(c2_look_off)
    return camera.feed(replace(clean, squares=squares, appearance=looks), 1.2, answer=False)


def test_a_piece_moved_where_the_look_changed_but_the_reader_sees_none_is_asked_about():
    # fresh bench seed 4445: `d2<` put a flat on the bare c2, read bare at 0.93, and d3 was read
    # a piece higher, so `d2+` fitted every reading; c2's change was excused as its
    # neighbour's and `d2+` committed quietly. Now the rival is asked about, first.
    (ask,) = _d2_moved_and_c2_read_bare("d2<", bare=0.93)
    assert isinstance(ask, Ask) and "the look says a piece came" in ask.reason
    assert [c.describe() for c in ask.candidates] == ["d2<", "d2+"]


def test_a_square_read_bare_for_sure_whose_look_changed_holds_no_piece_unseen():
    # fresh bench seed 4631: b4 brightened by 1.41 (the stack beside it lower), read bare at
    # 0.999, and the spread onto it was asked first and guessed. So sure a reader is believed.
    (commit,) = _d2_moved_and_c2_read_bare("d2+", bare=0.999, c2_look_off=1.4)
    assert isinstance(commit, Commit) and commit.ply == Ply.from_ptn("d2+")


def test_pairs_with_the_same_first_ply_are_each_offered_and_the_reply_chosen_is_recorded():
    # the reply's kind is what the reader is unsure of: "c2 then d3" and "c2 then Sd3" are both
    # candidates (quick-reply bench seed 324 offered `2b3+` with one reply, the wrong one)
    truth, camera = _seen("x5/x5/x2,1,x2/x5/2,x3,1 2 2")
    camera.feed(hand_reading(5), 0.6)
    for ptn in ("c2", "Sd3"):
        truth.play(Ply.from_ptn(ptn))
    clean = camera.reading(truth.stacks())
    unsure = stacks_reading(5, {"d3": ((WHITE, FLAT),)}, confidence=0.6)  # read a flat, at 0.6
    reading = replace(clean, squares={**clean.squares, "d3": unsure.squares["d3"]})
    (ask,) = camera.feed(reading, 1.2, answer=False)
    offered = [c.describe() for c in ask.candidates]
    assert offered[:2] == ["c2 then d3", "c2 then Sd3"]
    answered = camera.tracker.accept(Ply.from_ptn("c2"), then=Ply.from_ptn("Sd3"))
    assert [d.ply.ptn() for d in answered if isinstance(d, Commit)] == ["c2", "Sd3"]
    assert camera.tracker.position.tps() == truth.tps()


def test_two_plies_at_once_that_the_reader_shows_though_a_square_barely_changed_are_asked():
    # quick-reply bench seed 305: a stack taken off the board's edge changed its square's look
    # by 0.6 only, so no pair fitted by what changed; the reader read every square right. Here
    # the looks are off another way (a far square changed as by glare, a5): no pair fits them
    truth, camera = _seen("x5/x5/x5/x5/2,x3,1 1 3")
    decisions = _played_with_looks(camera, truth, "e1< c3", {"a5": 3.0})
    ask = next(d for d in decisions if isinstance(d, Ask))
    assert ask.candidates[0].describe() == "e1< then c3" and "board shows them" in ask.reason
    assert committed(camera.log) == ["e1<", "c3"]


def test_a_grey_change_in_a_walls_shadow_with_no_piece_seen_is_its_shadow():
    # the control: the same change, the reader seeing nothing come, is the wall's shadow (the
    # synthetic reader's kinds leave a capstone close behind: asked, Sd5 first)
    decisions, camera = _wall_on_d5_and_b3_darkened(False)
    (ask,) = decisions
    assert isinstance(ask, Ask) and ask.candidates[0].ply.ptn() == "Sd5"
    assert camera.tracker.position.ply_count == 3


def test_a_flat_dropped_on_a_tower_whose_top_is_out_of_its_squares_sight_is_still_recorded():
    # c4 is seven high: its top shows beyond the square, where its look is not taken, so a
    # dark flat dropped on its light top changes nothing there (bench seed 37, c4 eight high)
    truth, camera = _seen("x5/x2,1212121,2,x/x5/x5/x5 2 10")
    assert committed(_played_with_looks(camera, truth, "d4<", {"c4": 0.0})) == ["d4<"]


def test_the_top_of_a_low_stack_that_changed_unseen_is_a_board_no_ply_explains():
    # the control: on a stack of three the top is in sight, and a new top that changed nothing
    # there cannot be what happened by what changed; the reader reads c4's new top, so the ply
    # is asked about (`_shown_by_board`), never committed quietly
    truth, camera = _seen("x5/x2,121,2,x/x5/x5/x5 2 6")
    (ask,) = _played_with_looks(camera, truth, "d4<", {"c4": 0.0})
    assert isinstance(ask, Ask) and "shows this ply" in ask.reason
    # and where the reader does not see it either, no ply explains the board: d4 lost its piece
    # and nothing else changed (black may be holding it, so the alarm waits), then illegal
    truth, camera = _seen("x5/x2,121,2,x/x5/x5/x5 2 6")
    camera.misread = {"c4": ((WHITE, FLAT), (BLACK, FLAT), (WHITE, FLAT))}
    assert _played_with_looks(camera, truth, "d4<", {"c4": 0.0}) == []
    assert [type(d) for d in camera.feed(camera.last_reading, 1.6)] == [Illegal]


def _stack_lifted_from_c3_for(seconds: float) -> tuple[Position, Camera, list]:
    """White lifts its two flats off c3 and holds them where the camera does not see the hand
    (high over the far edge, imaged beyond the board) for `seconds`: the board lacks them."""
    truth, camera = _seen("x5/x5/x2,11,x2/x5/2,x4 1 4")
    camera.feed(hand_reading(5), 0.6)
    lifted = truth.stacks()
    del lifted["c3"]
    return truth, camera, camera.board(lifted, seconds)


def test_a_stack_held_where_the_camera_cannot_see_the_hand_is_not_an_illegal_board():
    # bench seeds 10 and 36: a spread in two motions, the hand paused over the far edge
    truth, camera, decisions = _stack_lifted_from_c3_for(2.0)
    assert decisions == []
    camera.play(truth, "2c3>11")
    assert not [d for d in camera.log if isinstance(d, Illegal)]
    assert committed(camera.log) == ["2c3>11"]


def test_a_stack_lifted_and_never_dropped_is_an_illegal_board_after_a_while():
    *_, decisions = _stack_lifted_from_c3_for(3.0)
    assert [type(d) for d in decisions] == [Illegal]


def test_a_ply_asked_about_and_taken_back_unanswered_withdraws_the_question():
    # live, nobody answers at once: the player lifts the piece the camera asked about (c3: a
    # flat or a wall?) and the board is as before the question. That is not an illegal board:
    # the question goes, and the ply played next is judged as usual.
    truth, camera = _two_plies_in()
    tracker = camera.tracker
    camera.misread = {"c3": ((BLACK, WALL),)}
    truth.play(Ply.from_ptn("c3"))
    camera.feed(hand_reading(5), 0.6)
    (ask,) = camera.feed(camera.reading(truth.stacks()), 1.2, answer=False)
    assert isinstance(ask, Ask) and tracker.state == "asking"
    camera.feed(hand_reading(5), 0.6)  # a hand comes and goes, the board as it was: still asked
    assert camera.feed(camera.reading(truth.stacks()), 1.2, answer=False) == []
    assert tracker.pending == ask
    camera.misread = {}
    truth.pop()
    camera.feed(hand_reading(5), 0.6)
    assert camera.feed(camera.reading(truth.stacks()), 1.2, answer=False) == [Withdrawn()]
    assert tracker.state == "tracking" and tracker.pending is None
    assert committed(camera.play(truth, "d4")) == ["d4"]


def _moved_off_an_unsure_square(occupied: float, look_change: float) -> Camera:
    """A light flat on d4 the reader was only `occupied` sure of is moved up to d5 (`d4+`); d4's
    look changes by `look_change` only (a light flat on light wood), though the reader now sees
    d4 empty at 0.97 (bench seed 40, tilt 35: read at 0.75-0.85 when placed, its look changing
    by 1.15 when it left; `d5` was recorded without a question)."""
    tps = "x5/x3,1,x/x5/x5/2,x4 1 3"
    truth, camera = Position.from_tps(tps), Camera(Position.from_tps(tps))
    reading = camera.reading(truth.stacks())
    d4 = replace(reading.squares["d4"], empty_confidence=occupied, confidence=occupied)
    camera.feed(replace(reading, squares={**reading.squares, "d4": d4}), 2.0)
    _played_with_looks(camera, truth, "d4+", {"d4": look_change})
    return camera


def test_a_flat_moved_off_a_faintly_changed_square_the_reader_turned_on_is_recorded():
    # the look changed a little (p about 0.45) and the reader went from 0.75 occupied to empty:
    # together they say d4 changed; the placement on d5 alone leaves d4 as the reader denies
    camera = _moved_off_an_unsure_square(0.75, 0.65)
    assert committed(camera.log) == ["d4+"]
    assert not [d for d in camera.log if isinstance(d, Ask)]


def test_a_ply_that_leaves_alone_a_square_the_reader_turned_against_is_never_recorded_quietly():
    # read at only 0.6 before, the look changing barely above the noise: the hints fall short of
    # calling d4 changed, and `d5` fits the changes best; but it leaves a flat on d4, which the
    # reader now denies at 0.97 where it did not before: asked (the recorder's guess is then
    # marked `?`), never committed quietly
    camera = _moved_off_an_unsure_square(0.6, 0.5)
    assert camera.log and isinstance(camera.log[0], Ask)


def _moved_off_a_square_read_empty(look_change: float) -> Camera:
    """A dark flat on b3 that the reader reads empty (0.82 sure: hidden behind a taller
    neighbour) is moved onto the light flat on c3 (`b3>`); b3's look changes by `look_change`
    only, c3's plainly (its top turns dark). Fresh bench seed 212, tilt 39: read empty for 20
    plies, b3 changed by 1.17 when the flat left."""
    tps = "x5/x5/x,2,1,x2/x5/1,x3,2 2 3"
    truth, camera = Position.from_tps(tps), Camera(Position.from_tps(tps))
    camera.board(truth, 2.0)
    reading = camera.reading(truth.stacks())  # then, nothing moving, b3 is read empty
    b3 = SquareReading(True, confidence=0.82, empty_confidence=0.82)
    camera.feed(replace(reading, squares={**reading.squares, "b3": b3}), 2.0)
    _played_with_looks(camera, truth, "b3>", {"b3": look_change / 3**0.5})
    return camera


def test_a_ply_off_a_square_the_reader_never_saw_occupied_fits_a_faint_change_there():
    # the reader never saw the flat the game has on b3, so it cannot be expected to see it
    # leave plainly either. Before, b3's faint change missed the structure check: here the
    # reader's whole board still showed the ply, which was asked about; on the bench it did not
    # (other squares misread), and the game was out of sync for its last 15 plies
    camera = _moved_off_a_square_read_empty(1.17)
    assert committed(camera.log) == ["b3>"]
    assert not [d for d in camera.log if isinstance(d, (Ask, Illegal))]


def test_a_ply_off_a_square_the_reader_never_saw_occupied_with_no_change_there_is_asked():
    # the control: with no change at all on b3, the ply does not fit by what changed (a flat
    # does not leave a square without a trace, whatever the reader saw before); the reader
    # reads the position it leaves, so it is asked about, never committed quietly
    camera = _moved_off_a_square_read_empty(0.0)
    assert isinstance(camera.log[0], Ask) and "shows this ply" in camera.log[0].reason


@pytest.mark.parametrize("change,first", [(0.0, "c5"), (0.1, "c5"), (0.4, "c4+"), (0.8, "c4+")])
def test_a_question_between_a_placement_and_a_spread_onto_it_puts_first_what_the_source_shows(
    change, first
):
    # White's flat lands on c5: placed, or moved off c4's two white flats. Seen from above c4
    # changes only faintly if at all, and the reader reads it two high all along: asked. Its
    # look changing above the board's noise says the spread (fresh bench seeds 13, 118, 224,
    # 501, all asked and guessed the placement); no change says the placement.
    truth, camera = _seen("x5/x2,11,x2/x5/x5/2,x4 1 4")
    camera.misread = {"c4": ((WHITE, FLAT), (WHITE, FLAT))}
    _played_with_looks(camera, truth, "c4+", {"c4": change / 3**0.5})
    ask = camera.log[0]
    assert isinstance(ask, Ask)
    assert [c.ply.ptn() for c in ask.candidates] == [first, *({"c5", "c4+"} - {first})]


def test_a_spread_that_leaves_an_older_position_s_tops_is_not_taken_for_a_takeback():
    # fresh bench seed 106: black moves its flat back from b5 onto c5, where white has just
    # placed a flat; the tops are those of two plies ago (c5 dark, b5 empty), and the reader reads
    # c5 one high, not two. A takeback is rarer than a ply: not taken back on a misread height.
    truth, camera = Position(5), Camera(Position(5))
    camera.board(truth, 2.0)
    for ptn in ("c5", "c3", "c3-", "c5<", "c5"):
        camera.play(truth, ptn)
    camera.misread = {"c5": ((BLACK, FLAT),)}
    camera.play(truth, "b5>")
    assert not [d for d in camera.log if isinstance(d, Takeback)]
    assert committed(camera.log) == ["c5", "c3", "c3-", "c5<", "c5", "b5>"]
    assert camera.tracker.position.tps() == truth.tps()


def test_a_ply_the_reader_reads_on_every_square_is_asked_about_though_its_look_did_not_change():
    # fresh bench seed 204 (tilt 37): a capstone moved onto a flat of its colour, from above a
    # dark disc on a dark tile: its new square's look changed by 0.22, under the noise, while
    # the squares behind the capstone's old and new places changed a lot (one uncovered, one
    # hidden now), so by what changed no ply fits; but the reader read every square as the ply
    # leaves them. Asked about (not reported illegal, then out of sync for the rest of the game).
    truth, camera = _seen("x5/x5/x2,1C,1,x/x5/x5 1 8")
    decisions = _played_with_looks(camera, truth, "c3>", {"d3": 0.0, "c4": 5.0, "d4": 5.0})
    assert not [d for d in decisions if isinstance(d, Illegal)]
    (ask,) = [d for d in decisions if isinstance(d, Ask)]
    assert ask.candidates[0].ply.ptn() == "c3>"
    assert "shows this ply" in ask.reason
    assert camera.tracker.position.tps() == truth.tps()  # (accepted, as the recorder does)


def test_a_hand_that_left_no_trace_is_known_until_the_next_ply():
    # what `takboard record` warns of at the end of a recording: a ply changing no look would be
    # found only by a later board, and after the last frame there is none
    truth, camera = _two_plies_in()
    assert not camera.tracker.hand_left_no_trace
    camera.feed(hand_reading(5), 0.6)  # a hand comes and goes; nothing changed
    camera.board(truth)
    assert camera.tracker.hand_left_no_trace
    camera.play(truth, "d4")
    assert not camera.tracker.hand_left_no_trace


def test_a_placement_the_reader_reads_empty_where_the_look_changed_is_asked_about():
    # fresh bench seed 632: a light flat on wood of its own colour, b4, its look changed by 1.44
    # and read empty at 0.87. No ply fitted, the board was illegal, then out of sync for good.
    truth, camera = _two_plies_in()
    truth.play(Ply.from_ptn("c3"))
    camera.feed(hand_reading(5), 0.6)
    reading = camera.reading(truth.stacks())
    squares = dict(reading.squares)
    squares["c3"] = SquareReading(empty=True, confidence=0.87, empty_confidence=0.87)
    asked = camera.feed(replace(reading, squares=squares), 1.2, answer=False)
    assert [type(d) for d in asked] == [Ask]
    assert [c.ply.ptn() for c in asked[0].candidates] == ["c3", "Sc3", "Cc3"]
    assert "c3 changed, but the reader sees no piece there" in asked[0].reason
    camera.tracker.accept(Ply.from_ptn("c3"))
    # the reader goes on reading c3 empty; the game goes on
    camera.misread = {"c3": ()}
    assert committed(camera.play(truth, "d4")) == ["d4"]


def _white_flat_beside_its_own() -> tuple[Position, Camera, np.ndarray]:
    """5x5 after a1, e5, e4, a2: white to move, its flat on e4 next to its flat on e5; e5 reads
    and looks like one flat whatever stands there (a height the camera cannot see)."""
    truth, camera = _two_plies_in()
    camera.play(truth, "e4")
    camera.play(truth, "a2")
    one = camera.reading(truth.stacks()).appearance["e5"]
    two = camera.reading({**truth.stacks(), "e5": ((WHITE, FLAT),) * 2}).appearance["e5"]
    camera.misread = {"e5": ((WHITE, FLAT),)}
    return truth, camera, one - two


def _spread_onto_e5_unseen() -> tuple[Position, Camera]:
    truth, camera, two_look_like_one = _white_flat_beside_its_own()
    truth.play(Ply.from_ptn("e4+"))
    camera.shaded = {"e5": two_look_like_one}
    return truth, camera


def test_a_flat_lifted_and_held_out_of_view_is_not_a_spread_onto_its_neighbour():
    # fresh bench seed 741: a flat lifted off a5 and held out of the camera's view for 1.8 s
    # fitted `a5>` onto b5's flat of its colour, committed quietly; then it was put on a4
    truth, camera, _ = _white_flat_beside_its_own()
    lifted = {sq: st for sq, st in truth.stacks().items() if sq != "e4"}
    camera.feed(hand_reading(5), 0.6)
    assert camera.board(lifted, 1.8) == []
    assert committed(camera.play(truth, "e4-")) == ["e4-"]
    assert camera.tracker.position.tps() == truth.tps()


def test_a_spread_held_back_is_committed_when_the_next_ply_comes():
    truth, camera = _spread_onto_e5_unseen()
    camera.feed(hand_reading(5), 0.6)
    assert camera.board(truth, 1.2) == []  # the pieces may still be in a hand
    decisions = camera.play(truth, "c3")
    assert [type(d) for d in decisions] == [Commit, Commit]  # no question
    assert committed(decisions) == ["e4+", "c3"]


def test_a_spread_held_back_is_committed_once_the_board_has_stood():
    truth, camera = _spread_onto_e5_unseen()
    camera.feed(hand_reading(5), 0.6)
    assert committed(camera.board(truth, 3.0)) == ["e4+"]


def test_a_spread_held_back_when_the_recording_ends_is_asked_about():
    # nothing will show where its pieces came down: recorded, and marked (fresh bench seed
    # 4697: the last ply, held back as `b4-`, was `b4>`, and written without a mark)
    truth, camera = _spread_onto_e5_unseen()
    camera.feed(hand_reading(5), 0.6)
    assert camera.board(truth, 1.2) == []
    (ask,) = camera.tracker.finish()
    assert isinstance(ask, Ask) and ask.candidates[0].ply == Ply.from_ptn("e4+")
    assert "before the pieces were seen to come down" in ask.reason



def test_a_shadow_lifted_off_an_empty_square_is_not_asked_about_as_a_piece_unseen():
    # fresh bench seed 702 (tilt 1): a wall moved onto a flat of its colour changed nothing seen
    # from above, but the shadow it had cast on b1 was gone; b1, read empty, was asked about as
    # a piece the reader did not see (`b2-` for `b2>`), and a later spread came out one short.
    # Here white's wall leaves c3 for d3, unseen there; c2 beside c3 brightens (its shadow
    # gone). (A lone flat casts next to no shadow: its square's neighbour changed by the light
    # alone is a piece unseen there, `test_a_flat_moved_beside_where_it_was_is_not_taken_for_
    # its_own_shadow` in tests/record.)
    truth, camera = _two_plies_in()
    camera.play(truth, "Sc3")
    camera.play(truth, "a5")
    before = camera.reading(truth.stacks()).appearance["d3"]
    truth.play(Ply.from_ptn("c3>"))
    after = camera.reading(truth.stacks()).appearance["d3"]
    camera.misread = {"d3": ()}
    camera.shaded = {"d3": before - after, "c2": 2.5}  # the light alone on c2
    camera.feed(hand_reading(5), 0.6)
    decisions = camera.board(truth, 3.2)
    assert not [d for d in decisions if isinstance(d, Ask)]


def test_a_light_flat_that_changed_its_square_by_the_light_alone_is_asked_about():
    # fresh bench seed 811: a light flat on light wood changed b1 by 2.72, mostly in brightness,
    # and was read empty: with no stack moved beside it, that is no shadow
    truth, camera = _two_plies_in()
    camera.feed(hand_reading(5), 0.6)
    truth.play(Ply.from_ptn("c3"))
    camera.misread = {"c3": ()}
    camera.shaded = {"c3": 2.5}  # (on the bare square's look: the light alone)
    reading = camera.reading({**truth.stacks(), "c3": ()})
    asked = [d for d in camera.feed(reading, 1.2, answer=False) if isinstance(d, Ask)]
    assert asked and asked[0].candidates[0].ply.ptn() == "c3"


def test_a_phantom_beside_a_stack_a_spread_raised_is_guessed_no_reply():
    # fresh bench seed 716 (tilt 30): `2c2-` made c1 four high, and the reader read a dark flat
    # at 0.96 on d1 beside it, where d1's look changed. Asked as "2c2- then d1" first: the guess
    # put the game a ply off, and 9 plies were later recorded wrong without a mark.
    truth, camera = _seen("x5/x5/x2,12,x2/x2,1,x2/x5 1 5")
    truth.play(Ply.from_ptn("c2+"))  # c3: three high, white on top
    stacks = truth.stacks()
    with_flat = camera.reading({**stacks, "d3": ((BLACK, FLAT),)}).appearance["d3"]
    camera.misread = {"d3": ((BLACK, FLAT),)}
    camera.shaded = {"d3": with_flat - camera.reading(stacks).appearance["d3"]}
    camera.feed(hand_reading(5), 0.6)
    asked = [d for d in camera.feed(camera.reading(stacks), 1.2, answer=False)
             if isinstance(d, Ask)]  # fmt: skip
    assert asked, "a phantom beside the stack may be a reply: asked, not committed"
    first, *others = asked[0].candidates
    assert first.ply.ptn() == "c2+" and first.then is None
    assert any(c.then is not None and c.then.ptn() == "d3" for c in others)


def test_a_piece_never_seen_in_the_opening_is_found_when_the_colours_stop_fitting():
    # The second ply's light flat on c3, read surely empty, changes c3's look by a grey shift
    # only (like a shadow): "nothing happened", and nothing to ask about. White's own light flat
    # on b2 then fits ply 2 (black places a light flat too) and is committed; black's dark flat
    # on d4 fits no ply (ply 3 is white's). The quiet board before b2 is searched for a ply
    # nobody saw (`_missed_before_last`): c3, then b2, and d4 after them.
    truth, camera = Position(5), Camera(Position(5))
    camera.board(truth, 2.0)
    camera.play(truth, "a1")
    camera.misread = {"c3": ()}
    _played_with_looks(camera, truth, "c3", {"c3": 0.6})
    assert committed(camera.log) == ["a1"]
    camera.play(truth, "b2")
    assert committed(camera.log) == ["a1", "b2"]
    camera.play(truth, "d4")
    ask = next(d for d in camera.log if isinstance(d, Ask))
    assert "not seen" in ask.reason and (ask.candidates[0].ply, ask.candidates[0].then) == (
        Ply.from_ptn("c3"), Ply.from_ptn("b2"))
    assert camera.tracker.position.tps() == truth.tps()


def _straightened(camera: Camera, truth: Position, square: str, read_as: tuple) -> list:
    """A hand comes and goes and places nothing, but `square`'s look changed faintly (a piece
    beside it nudged) and the reader half sees `read_as` there (at 0.6): no answer given."""
    before = camera.reading(truth.stacks()).appearance
    camera.feed(hand_reading(camera.size), 0.6)
    clean = camera.reading(truth.stacks())
    unsure = stacks_reading(camera.size, {square: read_as}, confidence=0.6).squares[square]
    looks = {**clean.appearance, square: before[square] + np.float32([0.45, -0.15, -0.3])}
    board = replace(clean, squares={**clean.squares, square: unsure}, appearance=looks)
    return camera.feed(board, 1.2, answer=False)


def test_a_board_that_barely_changed_asks_and_nothing_was_played_is_an_answer():
    truth, camera = _two_plies_in()
    (ask,) = _straightened(camera, truth, "b2", ((WHITE, FLAT),))
    assert "barely changed" in ask.reason and ask.candidates[0].ply == Ply.from_ptn("b2")
    assert camera.tracker.decline()  # "none of these: nothing was played"
    assert camera.tracker.state == "tracking" and camera.tracker.pending is None
    assert camera.tracker.position.tps() == truth.tps()
    camera.play(truth, "c3")  # the next ply is judged against the board asked about
    assert committed(camera.log) == ["a1", "e5", "c3"]
    assert not camera.tracker.decline()  # nothing pending now




def _flat_moved_off_c3_read_still_there() -> Camera:
    """White's flat moved off c3 onto d3, and the reader still reads a light flat on c3, not
    surely (0.97), as it reads the wood a dark piece uncovers now and then; c3's look is back
    to how it was bare."""
    truth, camera = _two_plies_in()
    camera.play(truth, "c3")
    camera.play(truth, "d4")
    camera.misread = {"c3": ((WHITE, FLAT),)}
    camera.play(truth, "c3>")
    return camera


def test_a_piece_read_unsurely_where_the_look_came_back_to_bare_wood_is_not_believed():
    # fresh bench seeds 1839 and 2169: "the flat moved off, then a flat placed right there" was
    # guessed for the move alone; c3 looks as it did bare, so the reader's call there counts
    # neither for nor against the move. (It counts for no other ply either: a call taken back
    # once made a piece on c3 dearer than none, which decided a count wrong where the piece
    # left was a light flat on light wood, fresh bench seed 5640. Without it the move is
    # 0.5 ahead of a flat placed on d3 beside c3's change: asked, the move first.)
    camera = _flat_moved_off_c3_read_still_there()
    assert committed(camera.log) == ["a1", "e5", "c3", "d4", "c3>"]
    asked = [d for d in camera.log if isinstance(d, Ask)]
    assert all(a.candidates[0].ply == Ply.from_ptn("c3>") for a in asked)
    ranked = camera.tracker.last.ranked
    assert ranked[0].ply == Ply.from_ptn("c3>") and ranked[0].contradiction == 0.0


def test_without_its_bare_look_such_a_ghost_still_keeps_a_placement_beside_from_a_quiet_commit(
    monkeypatch,
):
    # (no bare look to go by: the camera moved since c3 was bare) `d3` fits every reading,
    # c3's sure change excused beside it; the move, contradicted only by the piece read on c3,
    # is asked about first, never committed quietly wrong
    monkeypatch.setattr(Tracker, "_bare_again", lambda self, evidence, looks: evidence)
    camera = _flat_moved_off_c3_read_still_there()
    asked = [d for d in camera.log if isinstance(d, Ask)]
    assert [c.ply.ptn() for c in asked[0].candidates] == ["c3>", "d3"]
    assert committed(camera.log)[-1] == "c3>"


def test_the_bare_looks_are_forgotten_when_the_camera_moves():
    truth, camera = _two_plies_in()
    assert "c3" in camera.tracker._bare  # kept while c3 was bare
    camera.play(truth, "c3")
    reading = camera.reading(truth.stacks())
    camera.feed(replace(reading, relocalised=True), DT)  # other pixels from here on
    camera.feed(reading, 1.4)
    assert "c3" not in camera.tracker._bare and "b2" in camera.tracker._bare  # taken again


def _wall_moved_onto_its_twin(*, a2_read_occupied: bool = False) -> tuple[list, Camera]:
    """A dark wall moved from b1 onto b2's dark flat (a1, a2 bare), read as fresh bench seed 3674
    read it: b2 a dark flat, one high, the kind at 0.83 and the height at 0.5, its look as before;
    a1 and a2 changed by light alone, the wall's shadow gone from a1 and fallen on a2.
    `a2_read_occupied`: the reader reads a dark flat on a2 too. -> the decisions, the camera."""
    truth, camera = _seen("1,x4/x5/x5/x,2,x3/x,2S,x3 2 5")
    looks_before = camera.reading(truth.stacks()).appearance
    camera.misread = {"b2": ((BLACK, FLAT),)}
    if a2_read_occupied:
        camera.misread["a2"] = ((BLACK, FLAT),)
    truth.play(Ply.from_ptn("b1+"))
    camera.feed(hand_reading(camera.size), 0.6)
    reading = camera.reading(truth.stacks())
    b2 = replace(reading.squares["b2"], kind_confidence=0.83, height_confidence=0.5,
                 confidence=0.5)  # fmt: skip
    shadows = {"b2": 0.0, "a1": 3.6, "a2": -3.6}
    looks = {sq: looks_before[sq] + np.float32(by) for sq, by in shadows.items()}
    seen = replace(reading, squares={**reading.squares, "b2": b2},
                   appearance={**reading.appearance, **looks})  # fmt: skip
    return camera.feed(seen, 1.2), camera


def test_a_wall_moved_onto_its_twin_is_told_by_the_shadow_it_took_along():
    # fresh bench seed 3674 (4x4, tilt 22): from above, a dark bar on a dark square, b2's look
    # hardly changed; the wall's shadow changed a1 and a2 by 3.6 each. Bare squares the reader
    # reads bare, next to the squares the ply altered: nothing came there, so that is the shadow,
    # and the ply fits (it did not: an illegal board, and the game went out of sync for its last
    # 17 plies)
    decisions, camera = _wall_moved_onto_its_twin()
    assert not any(isinstance(d, Illegal) for d in decisions)
    assert committed(camera.log) == ["b1+"]


def test_a_grey_change_next_to_a_wall_on_a_square_read_occupied_is_no_shadow():
    # the control: the reader reads a piece come to a2, so a2's change may be that piece, not
    # the wall's shadow: nothing is committed quietly
    decisions, _ = _wall_moved_onto_its_twin(a2_read_occupied=True)
    assert decisions and not any(isinstance(d, Commit) for d in decisions)


def test_the_height_change_share_weighs_every_height_the_reader_believes_in():
    from controller.tracking.by_change import height_change_share

    # fresh bench seed 5006's d1: a stack of two read three (two at 0.27), then one at 0.95
    then = (0.0, 0.27, 0.55, 0.18, 0.0, 0.0, 0.0, 0.0)
    now = (0.95, 0.05, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    taken_off, unchanged = height_change_share(then, now, -1), height_change_share(then, now, 0)
    assert taken_off > 0.25 > 0.05 > unchanged  # the calls say two off: neither, by them
    # every way the two can be apart, once: the shares add up to one
    shares = [height_change_share(then, now, d) for d in range(-7, 8)]
    assert sum(shares) == pytest.approx(1.0)
    # two sure readings of one height: nothing changed, surely
    sure = (0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    assert height_change_share(sure, sure, 0) == 1.0 and height_change_share(sure, sure, 1) == 0.0
    # a sure growth by one
    grown = (0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    assert height_change_share(sure, grown, 1) == 1.0
    # no belief at all says nothing
    assert height_change_share((0.0,) * 8, grown, 1) == 0.0


def _capstone_moved_in_front_of_a_wall(behind_empty_at: float) -> list:
    """The tracker's log as a light capstone moves from c2 to c3, in front of a dark wall on c4
    and away from a light flat on d2: c4 then reads bare at `behind_empty_at`, and both
    neighbours' looks change (the wall partly hidden, d2 uncovered), as fresh bench seed 5987
    saw them (7x7, tilt 34)."""
    truth, camera = _seen("x5/x2,2S,x2/x5/x2,1C,1,x/x5 1 4")
    truth.play(Ply.from_ptn("c2+"))
    camera.feed(hand_reading(5), 0.6)
    camera.shaded = {"c4": 3.0, "d2": 3.0}
    reading = camera.reading(truth.stacks())
    half = SquareReading(empty=True, confidence=behind_empty_at, empty_confidence=behind_empty_at)
    camera.feed(replace(reading, squares={**reading.squares, "c4": half}), 1.2)
    return camera.log


def test_a_piece_half_hidden_behind_a_capstone_that_came_in_front_of_it_does_not_stall_the_ply():
    # the wall behind the capstone's new square is read bare, but only at 0.6: hidden, not taken
    # away; it counts against a ply that leaves it alone as little as a neighbour uncovered
    log = _capstone_moved_in_front_of_a_wall(0.6)
    assert [type(d) for d in log] == [Commit] and log[0].ply == Ply.from_ptn("c2+")


def test_a_piece_surely_gone_from_behind_a_capstone_is_not_excused_as_hidden():
    # read bare at 0.97, the wall went: the move leaves it there, so it is asked about
    log = _capstone_moved_in_front_of_a_wall(0.97)
    assert isinstance(log[0], Ask) and log[0].candidates[0].ply == Ply.from_ptn("c2+")
    assert "nearly shows" in log[0].reason


def _live_play(camera: Camera, truth: Position, ptn: str) -> list:
    """`ptn` made under a hand, then the board still, with nobody answering a question (live)."""
    truth.play(Ply.from_ptn(ptn))
    camera.feed(hand_reading(camera.size), 0.6, answer=False)
    return camera.feed(camera.reading(truth.stacks()), 1.2, answer=False)


def _c2_asked_and_waiting() -> tuple[Position, Camera, Ask]:
    """Black places a flat on c2 that the reader takes for a wall, 80 % sure: asked, live, and
    nobody has answered yet."""
    truth, camera = _seen("x5/x5/x2,2S,2,x/x5/1,x4 2 3")
    camera.misread = {"c2": ((BLACK, WALL),)}
    truth.play(Ply.from_ptn("c2"))
    camera.feed(hand_reading(5), 0.6, answer=False)
    reading = camera.reading(truth.stacks())
    squares = dict(reading.squares)
    squares["c2"] = replace(squares["c2"], kind_confidence=0.8, confidence=0.8)
    (ask,) = camera.feed(replace(reading, squares=squares), 1.2, answer=False)
    assert isinstance(ask, Ask) and {"c2", "Sc2"} <= {c.ply.ptn() for c in ask.candidates}
    return truth, camera, ask


def test_plies_played_on_while_a_question_waits_are_recorded_in_order_once_it_is_answered():
    # live, the players do not stop for the question: white places e5, black d1. Nothing is
    # recorded past a ply nobody has named (judged against the board asked about, without the
    # ply asked about, `e5` and `d1` fit nothing or the wrong ply: fresh bench seeds 6030 and
    # 6047, a question answered 3 s late, plies recorded wrong without a mark); once answered,
    # the boards seen meanwhile are judged in turn, as if it had been answered at once
    truth, camera, ask = _c2_asked_and_waiting()
    assert _live_play(camera, truth, "e5") == []
    assert _live_play(camera, truth, "d1") == []
    assert camera.tracker.pending is ask and committed(camera.log) == []
    camera.log += camera.tracker.accept(Ply.from_ptn("c2"))
    camera.feed(camera.reading(truth.stacks()), 1.2, answer=False)
    assert committed(camera.log) == ["c2", "e5", "d1"]
    assert camera.tracker.position.tps() == truth.tps()
    assert _live_play(camera, truth, "b1") and committed(camera.log)[-1] == "b1"  # and on


def test_a_question_the_board_went_back_from_takes_the_boards_seen_meanwhile_with_it():
    # the players played on, then took it all back, the question's ply too: the question goes,
    # and the boards seen while it waited are not judged later
    truth, camera, _ = _c2_asked_and_waiting()
    before = Position.from_tps("x5/x5/x2,2S,2,x/x5/1,x4 2 3")
    _live_play(camera, truth, "e5")
    camera.feed(hand_reading(5), 0.6, answer=False)
    decisions = camera.feed(camera.reading(before.stacks()), 1.2, answer=False)
    assert [type(d) for d in decisions] == [Withdrawn]
    assert committed(camera.log) == [] and camera.tracker.position.tps() == before.tps()
    camera.feed(camera.reading(before.stacks()), 1.2, answer=False)
    assert committed(camera.log) == []


def test_a_question_asked_mid_spread_goes_when_the_pieces_come_down_before_an_answer():
    # live: c5's two lifted and held out of view, asked about as they stand (the spreads that
    # fit a board with c5 emptied); then dropped on d5 before anyone answered. One ply off c5
    # explains the new board from the one before the question: the question goes, and that
    # ply is asked about in its place, never committed quietly (the players may have made the
    # ply asked about and the next: tests/record/games/seed1434.npz) (fresh bench seed 6016:
    # `2d5<` asked as "2d5- or 2d5>"; judged against the board asked about, `d5<` was committed
    # without a mark)
    truth, camera = _seen("x,2,22,x2/x5/x5/x5/1,x4 2 10")
    lifted = dict(truth.stacks())
    del lifted["c5"]
    camera.feed(hand_reading(5), 0.6, answer=False)
    camera.feed(camera.reading(lifted), 3.0, answer=False)
    (ask,) = [d for d in camera.log if isinstance(d, Ask)]
    assert "2c5>" not in {c.ply.ptn() for c in ask.candidates}
    decisions = _live_play(camera, truth, "2c5>")
    assert isinstance(decisions[0], Withdrawn) and isinstance(decisions[1], Ask)
    assert decisions[1].candidates[0].ply == Ply.from_ptn("2c5>")
    assert "changed while a question waited" in decisions[1].reason
    assert committed(camera.log) == []
    camera.log += camera.tracker.accept(Ply.from_ptn("2c5>"))
    assert committed(camera.log) == ["2c5>"]
    assert camera.tracker.position.tps() == truth.tps()


def test_a_missed_ply_asked_about_live_then_played_on_is_recorded_with_the_plies_after_it():
    # the same missed `a1>`, asked about live, and nobody answers: white places c3 too. The
    # question is about a ply before the board it was asked on, judged from the board before
    # that; once answered, the board it was asked on is judged again first, then the one after
    # (judged as the board then stood, three plies past the last match, it fitted nothing)
    truth, camera, play_unseen_on_a1_b1 = _a1_and_b1_unseen(answer=False)
    play_unseen_on_a1_b1("a1>")
    (ask,) = [d for d in play_unseen_on_a1_b1("d4") if isinstance(d, Ask)]
    assert [c.ply.ptn() for c in ask.candidates] == ["a1>"] and "not seen" in ask.reason
    assert play_unseen_on_a1_b1("c3") == [] and committed(camera.log) == []
    camera.log += camera.tracker.accept(Ply.from_ptn("a1>"))
    camera.feed(camera.last_reading, 1.2, answer=False)
    assert committed(camera.log) == ["a1>", "d4", "c3"]
    assert camera.tracker.position.tps() == truth.tps()


def test_a_hand_passing_over_the_board_while_a_missed_ply_is_asked_about_loses_no_ply():
    # the missed `a1>` asked about live; before anyone answers, a hand passes over the board
    # and leaves it as it was. Once answered, the board asked on is still judged again: it
    # shows `d4` (the step that took in the unchanged board dropped that judging before)
    truth, camera, play_unseen_on_a1_b1 = _a1_and_b1_unseen(answer=False)
    play_unseen_on_a1_b1("a1>")
    (ask,) = [d for d in play_unseen_on_a1_b1("d4") if isinstance(d, Ask)]
    board = camera.last_reading
    camera.feed(hand_reading(5), 0.6, answer=False)
    camera.feed(board, 1.2, answer=False)
    assert committed(camera.log) == [] and "not seen" in ask.reason
    camera.log += camera.tracker.accept(Ply.from_ptn("a1>"))
    camera.feed(board, 1.2, answer=False)
    assert committed(camera.log) == ["a1>", "d4"]
    assert camera.tracker.position.tps() == truth.tps()

"""The board reader on rendered frames: accuracy on a seeded set, hands, LEDs, JSON, CLI, debug."""

from __future__ import annotations

import json

import numpy as np
import pytest

from controller.cli import main as takboard
from vision.gate import every_nth_pixel
from vision.reader import BoardReader
from vision.reading import BoardReading, SquareReading
from vision.sim import Scene, random_scene, random_setup, render_frame

# The square classifier reads this set (452 squares) 100 % / 99.6 % / 100 % right (the floors
# for the strip fit before it were 0.92 / 0.82 / 0.97). These sit a few squares below: the test
# fails when the reader gets clearly worse, not at the first unlucky square (docs/vision.md).
MIN_OCCUPANCY = 0.98
MIN_COLOR_KIND = 0.97
MIN_TOP_COLOR = 0.98


def _installation(seed: int, size: int, tilt: float):
    camera, look = random_setup(seed, size, tilt_deg=tilt)
    reader = BoardReader(size)
    reader.read(render_frame(Scene(size), camera, look, seed=seed).image)
    return camera, look, reader


def test_reading_a_seeded_set_meets_the_accuracy_floor():
    squares = right_occupancy = right_color_kind = pieces = right_color = usable = 0
    for seed, size, tilt in [(101, 5, 25.0), (102, 6, 30.0), (103, 7, 35.0), (104, 4, 40.0),
                             (105, 6, 15.0), (106, 8, 28.0)]:  # fmt: skip
        camera, look, reader = _installation(seed, size, tilt)
        for k in range(2):
            frame = render_frame(random_scene(seed * 10 + k, size), camera, look, seed=k + 5)
            reading = reader.read(frame.image)
            assert reading.board_found
            if reading.occluded:  # a false hand alarm skips a frame; it must stay rare
                continue
            usable += 1
            for name, truth in frame.truth.squares.items():
                got = reading.squares[name]
                squares += 1
                right_occupancy += got.empty == truth.empty
                right_color_kind += got.empty == truth.empty and (
                    truth.empty or (got.color == truth.color and got.kind == truth.kind)
                )
                if not truth.empty and not got.empty:
                    pieces += 1
                    right_color += got.color == truth.color
    assert usable >= 10  # of 12
    assert right_occupancy / squares >= MIN_OCCUPANCY
    assert right_color_kind / squares >= MIN_COLOR_KIND
    assert right_color / pieces >= MIN_TOP_COLOR


def test_squares_carry_the_readers_belief_occupied_ones_with_calls_at_their_confidences():
    kinds_named = ("flat", "wall", "cap")
    for seed, size, tilt in [(102, 6, 30.0), (103, 7, 35.0)]:
        camera, look, reader = _installation(seed, size, tilt)
        for k in range(2):  # (103's second frame has a call calibrated below a runner-up's share)
            frame = render_frame(random_scene(seed * 10 + k, size), camera, look, seed=5 + k)
            reading = reader.read(frame.image)
            occupied = [sq for sq in reading.squares.values() if not sq.empty]
            assert occupied
            for sq in occupied:
                kinds, heights = np.array(sq.kind_probabilities), np.array(sq.height_probabilities)
                assert kinds.shape == (3,) and heights.shape == (8,)
                assert kinds.sum() == pytest.approx(1) and heights.sum() == pytest.approx(1)
                call, height = kinds_named.index(sq.kind), sq.height - 1
                assert kinds[call] == pytest.approx(sq.kind_confidence)
                assert heights[height] == pytest.approx(sq.height_confidence)
                assert kinds.max() <= kinds[call] + 1e-9 and heights.max() <= heights[height] + 1e-9
            # squares read empty: the kind the reader leans to should a piece be there after all
            # (tracking: a piece it half saw is offered as that kind)
            for sq in (sq for sq in reading.squares.values() if sq.empty):
                kinds = np.array(sq.kind_probabilities)
                assert kinds.shape == (3,) and kinds.sum() == pytest.approx(1)
                assert sq.height_probabilities is None


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_a_hand_over_the_board_never_comes_out_as_a_usable_reading(seed):
    size = 4 + seed % 5
    camera, look, reader = _installation(200 + seed, size, 10.0 + 5 * seed)
    scene = random_scene(300 + seed, size, hand_probability=1.0)
    frame = render_frame(scene, camera, look, seed=seed)
    assert frame.truth.hand_present
    reading = reader.read(frame.image)
    assert not reading.clean
    assert reading.occluded or not reading.board_found
    assert reading.reason


def test_frames_without_hands_are_not_flagged():
    camera, look, reader = _installation(400, 6, 30.0)
    for k in range(3):
        reading = reader.read(render_frame(random_scene(410 + k, 6), camera, look, seed=k).image)
        assert reading.board_found and not reading.occluded, reading.reason


def test_lit_leds_on_an_empty_board_are_not_read_as_pieces():
    size = 5
    camera, look, reader = _installation(500, size, 25.0)
    # single-colour LEDs; white or mixed glow can clip the wood's channels (a known weak spot)
    leds = {"a1": (0, 0, 255), "c3": (0, 255, 0), "b4": (255, 80, 0)}
    frame = render_frame(Scene(size, leds=leds), camera, look, seed=3)
    reading = reader.read(frame.image, lit=leds)
    assert reading.board_found and not reading.occluded
    assert all(sq.empty for sq in reading.squares.values())


def test_json_has_the_promised_shape():
    camera, look, reader = _installation(600, 5, 30.0)
    scene = Scene(5, {"c3": [("light", "flat"), ("dark", "flat")], "a1": [("light", "wall")]})
    reading = reader.read(render_frame(scene, camera, look, seed=1).image)
    data = json.loads(json.dumps(reading.to_json()))
    assert isinstance(data["board_found"], bool) and isinstance(data["occluded"], bool)
    assert set(data["squares"]) == {f"{f}{r}" for f in "abcde" for r in range(1, 6)}
    for square in data["squares"].values():
        assert isinstance(square["empty"], bool)
        assert square["color"] in ("light", "dark", None)
        assert square["kind"] in ("flat", "wall", "cap", None)
        assert isinstance(square["height"], int)
        assert 0.0 <= square["confidence"] <= 1.0
        if square["empty"]:
            assert square["color"] is None and square["kind"] is None and square["height"] == 0
    assert data["squares"]["c3"]["empty"] is False
    not_found = BoardReading(5, board_found=False, reason="0 of 4 markers seen").to_json()
    assert not_found["board_found"] is False and not_found["squares"] == {}


def test_square_reading_refuses_contradictions():
    with pytest.raises(ValueError, match="empty square"):
        SquareReading(True, color="light")
    with pytest.raises(ValueError, match="kind must be"):
        SquareReading(False, color="dark", kind="pawn", height=1)


def test_reader_rejects_a_non_image_with_a_clear_error():
    with pytest.raises(ValueError, match="uint8"):
        BoardReader(5).read(np.zeros((10, 10, 3), np.float32))


def test_cli_reads_a_frame_as_json_and_writes_debug_images(tmp_path, capsys):
    import cv2

    size = 5
    camera, look = random_setup(700, size, tilt_deg=30.0)
    empty = tmp_path / "empty.png"
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(empty), render_frame(Scene(size), camera, look, seed=1).image)
    scene = Scene(size, {"b2": [("dark", "flat")], "d4": [("light", "flat"), ("light", "flat")]})
    cv2.imwrite(str(frame), render_frame(scene, camera, look, seed=2).image)
    status = takboard(["vision", "read", str(frame), "--size", "5", "--reference", str(empty),
                       "--json", "--debug", str(tmp_path / "dbg")])  # fmt: skip
    out = capsys.readouterr().out
    assert status == 0
    data = json.loads(out)
    assert data["board_found"] is True
    assert data["squares"]["b2"]["color"] == "dark"
    assert data["squares"]["a1"]["empty"] is True
    written = sorted(p.name for p in (tmp_path / "dbg").iterdir())
    assert written == ["frame_frame.png", "frame_topview.png"]
    assert cv2.imread(str(tmp_path / "dbg" / "frame_frame.png")).shape == (720, 1280, 3)

    assert takboard(["vision", "read", str(frame), "--size", "5"]) == 0
    assert "board 5x5: found" in capsys.readouterr().out


def test_cli_read_reports_bad_input_clearly(tmp_path, capsys):
    assert takboard(["vision", "read", str(tmp_path / "missing.png"), "--size", "5"]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "bad.png").write_text("not an image")
    assert takboard(["vision", "read", str(tmp_path / "bad.png"), "--size", "5"]) == 2
    assert "not an image" in capsys.readouterr().err


def test_a_thin_wall_is_coloured_from_the_line_of_samples_along_it():
    # seen from above, a dark wall standing across the line of sight covers the middle row of
    # the 3 x 3 samples about the square's centre, along it the middle column; the board
    # around it is bright. Both must come out dark, and a capstone (round) keeps the column.
    from vision.reader import _top_colours
    from vision.views import PLANE_HEIGHTS

    board, dark = 180.0, 40.0
    plane = np.full((3, len(PLANE_HEIGHTS), 11, 11, 3), board, np.float32)
    empty = plane.copy()
    plane[0, :, 5, 4:7] = dark  # the wall across the line of sight: one row (index 1 = across)
    plane[1, :, 4:7, 5] = dark  # the wall along it: one column
    plane[2, :, 5, 4:7] = dark  # a "capstone" seen the same way: the column is kept for it
    kind = np.array(["wall", "wall", "cap"], dtype=object)
    colours = _top_colours((plane, empty), kind, np.ones(3), board_grey=board)
    assert colours[0] == pytest.approx([dark] * 3) and colours[1] == pytest.approx([dark] * 3)
    assert colours[2] == pytest.approx([board] * 3)  # a "capstone"'s column is board: kept


# A dark red set under a warm lamp (bench installation 209324885): faces light tan and maroon;
# three light walls' sides, one of them lit, and three near-black sides of dark walls, whose hue
# (their colour shares) is mostly noise and leans to the light set's.
_FACES = np.array([[90, 143, 179], [88, 140, 176], [27, 21, 66], [29, 22, 69]], np.float32)
_LIGHT_SIDES = [[60, 95, 125], [80, 130, 165], [62, 98, 128]]  # one lit, two in shade


def _side_colours(sides: list[list[int]]) -> list[str]:
    from vision.reader import ColorModel

    colors = np.vstack([_FACES, np.array(sides, np.float32)])
    kinds = ["flat"] * len(_FACES) + ["wall"] * len(sides)
    labels, _ = ColorModel().classify(colors, kinds, white=230.0, black=20.0)
    return labels[len(_FACES) :]


def test_near_black_sides_the_hue_is_unsure_of_go_by_the_split_of_the_sides_in_view():
    from vision.reader import _by_hue, _colour_space

    sides = _LIGHT_SIDES + [[10, 9, 26]] * 3
    centres = np.stack([_colour_space(_FACES[2:]).mean(0), _colour_space(_FACES[:2]).mean(0)])
    by_hue, sure = _by_hue(np.array(sides, np.float32), centres)
    assert list(by_hue[3:]) == ["light"] * 3 and (sure[3:] < 0.7).all()  # hue alone: wrong
    assert _side_colours(sides) == ["light"] * 3 + ["dark"] * 3


def test_light_sides_in_shade_the_hue_is_sure_of_keep_its_call():
    # the control: two light walls lit and two in deep shade split by brightness as if they
    # were two colours; their hue is sure (0.94) and keeps them light
    lit, shaded = [[80, 130, 165], [85, 135, 170]], [[40, 64, 82]] * 2
    assert _side_colours(lit + shaded) == ["light"] * 4


def test_a_side_the_wrong_grey_is_put_right_by_its_upward_face():
    # under a lamp, light walls' shaded sides and dark walls' lit ones are the same grey; their
    # top edges, lit as the flats' faces are, are not (the colours of bench installation 20)
    from vision.reader import ColorModel

    faces = np.array([[154, 203, 232], [150, 200, 230], [29, 51, 74], [31, 53, 77]], np.float32)
    sides = np.array([[62, 106, 145], [52, 89, 140]], np.float32)  # light in shade, dark lit
    upward = np.array([[150, 198, 228], [30, 52, 76]], np.float32)
    colors, kinds = np.vstack([faces, sides]), ["flat"] * 4 + ["wall"] * 2
    by_side, _ = ColorModel().classify(colors, kinds, white=240.0, black=25.0)
    assert by_side[4] == by_side[5]  # the sides alone cannot tell them apart
    unseen = np.full((6, 3), np.nan, np.float32)
    both, sure = ColorModel().classify(colors, kinds, 240.0, 25.0, np.vstack([unseen[:4], upward]))
    assert both[4:] == ["light", "dark"] and (sure[4:] > 0.5).all()
    # an edge the plane grid does not reach (NaN) leaves the side's call as it was
    alone, _ = ColorModel().classify(colors, kinds, 240.0, 25.0, unseen)
    assert alone == by_side


def test_walls_under_a_lamp_are_read_in_their_colours():
    # bench seed 1, installation 20 (6x6, tilt 12, a lamp): a light wall's side in its shade
    # was read dark, 0.995 sure; its top edge puts it right
    size, seed = 6, 249968375
    camera, look, reader = _installation(seed, size, 11.864136027990266)
    scene = random_scene(956840638, size, hand_probability=0.0)
    frame = render_frame(scene, camera, look, seed=seed + 2, t=4.0)
    reading = reader.read(frame.image)
    tall = {n: t for n, t in frame.truth.squares.items() if t.kind in ("wall", "cap")}
    assert len(tall) >= 6 and tall["b6"].color == "light"
    assert {n: reading.squares[n].color for n in tall} == {n: t.color for n, t in tall.items()}


def test_glare_is_taken_off_a_top_before_it_is_divided_by_the_light():
    # light multiplies, glare adds: the empty board there is 1.2 x its colour + 60 grey levels,
    # and so is the dark piece over it
    from vision.reader import _unlit

    wood = np.array([70.0, 120.0, 180.0])
    grey = float(wood.mean())
    piece = np.array([20.0, 30.0, 25.0])
    empty, frame = 1.2 * wood + 60.0, 1.2 * piece + 60.0
    assert _unlit(frame, empty, grey, wood) == pytest.approx(piece, abs=0.5)
    taken_for_light = _unlit(frame, empty, grey, None)  # without the board's colour
    assert taken_for_light.mean() > 2 * piece.mean()
    # without glare the light alone is divided out, as before
    assert _unlit(1.2 * piece, 1.2 * wood, grey, wood) == pytest.approx(piece, abs=0.5)
    # a grey board cannot tell glare from light: left as it was
    board = np.full(3, 120.0)
    assert _unlit(frame, 1.2 * board + 60, 120.0, board) == pytest.approx(
        _unlit(frame, 1.2 * board + 60, 120.0, None))


def test_a_dark_flat_under_the_lamps_glare_is_read_dark():
    # bench seed 1, installation 48 (6x6, tilt 24, a window's glare on the varnish over f5):
    # the dark flat there was read light, 0.6-0.76 sure, on six frames of ten
    size, seed = 6, 891556153
    camera, look, reader = _installation(seed, size, 23.89655312414565)
    assert look.glare
    scene = random_scene(323731159, size, hand_probability=0.0)
    frame = render_frame(scene, camera, look, seed=seed + 2, t=4.0)
    assert frame.truth.squares["f5"].color == "dark"
    assert reader.read(frame.image).squares["f5"].color == "dark"


@pytest.mark.parametrize("fill", [0, 128, 250])
def test_a_black_or_even_frame_is_said_to_be_too_dark_or_blank(fill):
    # a covered lens or a dead camera: no board, and the reason says why, not "not found"
    camera, look, reader = _installation(107, 5, 25.0)
    for shape in [(720, 1280, 3), (541, 961, 3), (480, 640)]:  # colour and grey, odd sizes too
        frame = np.full(shape, fill, np.uint8)
        frame[::3, ::3] = np.clip(fill + 2, 0, 255)  # a little noise, under the spread's bar
        reading = reader.read(frame)
        assert not reading.board_found
        assert reading.reason == "frame too dark or blank"
    # and the camera coming back is read again
    assert reader.read(render_frame(Scene(5), camera, look, seed=1).image).board_found


@pytest.mark.parametrize("shape", [(720, 1280, 3), (540, 960, 3), (541, 961, 3), (537, 955, 3),
                                   (1944, 2592, 3), (7, 9, 3)])  # fmt: skip
def test_every_nth_pixel_picks_the_same_pixels_as_numpy_strides(shape):
    frame = np.random.default_rng(sum(shape)).integers(0, 256, shape, dtype=np.uint8)
    for n in (2, 4, 8):
        small = every_nth_pixel(frame, n)
        assert small.flags["C_CONTIGUOUS"]
        assert np.array_equal(small, frame[::n, ::n])

"""The service tells where its camera is: a camera looking straight down is reported, with what to
change, on the camera view's overlay and once in the log (vision/mount.py judges)."""

from __future__ import annotations

import asyncio
import logging

from controller.service.board import BoardService
from controller.service.camera import CameraPipeline, open_frame_source
from controller.service.config import Settings
from controller.store import Journal
from tests.service.table import WallClock
from tests.service.waiting import wait_for


def test_a_camera_looking_straight_down_is_told_to_lean_back(tmp_path, caplog):
    # the simulated camera as a real frame source would be configured, 4 degrees from vertical
    settings = Settings(data_dir=tmp_path, camera="sim:size=5:seed=2:tilt=4:fps=5",
                        serial="none", size=5, fps=5.0)  # fmt: skip

    async def scenario():
        camera = CameraPipeline(open_frame_source(settings, None), settings=settings,
                                clock=WallClock())  # fmt: skip
        board = BoardService(settings=settings, journal=Journal(tmp_path / "j.db"), camera=camera)
        await board.start()
        try:
            await wait_for(lambda: "mount" in camera.overlay(), 60, "the board found")
            # judged once per localisation, not once per frame
            seen = camera.frames_read
            await wait_for(lambda: camera.frames_read >= seen + 3, 10, "three more frames")
            return camera.overlay()["mount"]
        finally:
            await board.stop()

    with caplog.at_level(logging.WARNING, logger="controller.service.camera"):
        mount = asyncio.run(scenario())
    assert 2 <= mount["view_angle_deg"] <= 6
    assert len(mount["advice"]) == 1 and "straight down" in mount["advice"][0]
    warnings = [r.getMessage() for r in caplog.records if "camera mount" in r.getMessage()]
    assert len(warnings) == 1 and "lean it 20-30 deg" in warnings[0]


def test_light_pieces_close_to_the_board_colour_are_reported_once_a_light_flat_is_down(
        tmp_path, caplog):  # fmt: skip
    """The pipeline measures the game's first lone light flat against its picture of the bare
    board (vision/contrast.py): an installation whose light flats are nearly the wood's colour."""
    from controller.tak import Ply, Position
    from vision.reader import BoardReader
    from vision.sim import Scene, random_setup, render_frame

    settings = Settings(data_dir=tmp_path, camera="none", serial="none", size=5)
    camera, look = random_setup(1477, 5, tilt_deg=30.0)  # a benchmark installation
    empty = render_frame(Scene(5), camera, look, seed=1).image
    pipeline = CameraPipeline(lambda: None, settings=settings, clock=WallClock())
    pipeline.reference = empty
    pipeline.reader = BoardReader(5, reference=empty)
    pipeline.reader.read(empty)  # the board found
    position = Position(5)
    position.play(Ply.from_ptn("a1"))  # a dark flat: nothing to measure yet
    frame = render_frame(Scene(5, {"a1": [("dark", "flat")]}), camera, look, seed=2).image
    assert pipeline._contrast_check(frame, position) is None
    position.play(Ply.from_ptn("c3"))  # black places white's flat
    scene = Scene(5, {"a1": [("dark", "flat")], "c3": [("light", "flat")]})
    frame = render_frame(scene, camera, look, seed=3).image
    with caplog.at_level(logging.WARNING, logger="controller.service.camera"):
        check = pipeline._contrast_check(frame, position)
    assert check["square"] == "c3" and check["delta_e"] < 20
    assert "close to the board's colour" in check["advice"][0]
    assert any("piece contrast" in r.getMessage() for r in caplog.records)


def test_a_bare_board_overexposed_by_glare_is_reported_on_the_overlay_and_logged_once(
        tmp_path, caplog):  # fmt: skip
    """The pipeline judges its picture of the bare board (vision/exposure.py): bench seed 1's
    installation 34, a lamp's glare clipping the wood over two squares."""
    from vision.reader import BoardReader
    from vision.sim import Scene, random_setup, render_frame

    settings = Settings(data_dir=tmp_path, camera="none", serial="none", size=6)
    camera, look = random_setup(1073517566, 6, tilt_deg=4.306467830495411)
    empty = render_frame(Scene(6), camera, look, seed=1073517566).image
    pipeline = CameraPipeline(lambda: None, settings=settings, clock=WallClock())
    pipeline.reference = empty
    pipeline.reader = BoardReader(6, reference=empty)
    reading = pipeline.reader.read(empty)
    with caplog.at_level(logging.WARNING, logger="controller.service.camera"):
        for _ in range(3):  # judged once per pose and reference, not once per frame
            overlay = pipeline._make_overlay(empty, reading)
    exposure = overlay["exposure"]
    assert exposure["clipped_share"] > 0.05 and "overexposed" in exposure["advice"][0]
    assert sum("camera exposure" in r.getMessage() for r in caplog.records) == 1
    # and where the glare lies (vision/glare.py), for the page to ring those squares
    glare = overlay["glare"]
    assert set(glare["squares"]) == {"e1", "e2"} and "e1, e2" in glare["advice"][0]
    assert sum(r.getMessage().startswith("glare:") for r in caplog.records) == 1


def test_the_contrast_is_measured_on_the_board_the_light_flat_was_committed_on(tmp_path):
    """The next ply made at once (the light flat moved on before the camera's tracker caught
    up) must not be measured as the bare square it left: 0, where the flat stands out by 28."""
    import asyncio

    from tests.service.table import game_on_the_table, watched

    journal, _, table, settings = game_on_the_table(tmp_path, [])

    async def scenario():
        async with watched(settings, table, journal) as (board, camera, _seen):
            def recorded() -> list[str]:
                return [p.ptn for p in board.session.plies()]

            await wait_for(lambda: board.health_report()["tracker"] == "tracking", 30, "tracking")
            table.place("b1", 1)
            await wait_for(lambda: len(recorded()) == 1, 30, "b1")
            table.place("c3", 0)
            await wait_for(lambda: len(recorded()) == 2, 30, "c3")
            table.spread("c3", ">", [1])  # at once
            await wait_for(lambda: len(recorded()) == 3, 30, "c3>")
            return camera.overlay().get("contrast")

    contrast = asyncio.run(scenario())
    assert contrast["square"] == "c3" and contrast["delta_e"] > 15, contrast

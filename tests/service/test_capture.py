"""Bug reports: the camera's last minute kept by the running service (the simulated camera over
the virtual table, the real reader and tracker), saved in one file, and replayed by a fresh
tracker to the same plies; a broken file is a clear error."""

from __future__ import annotations

import asyncio
import zipfile

import cv2
import numpy as np
import pytest

from controller.cli import main as takboard
from controller.service.capture import CaptureRing, load_capture, replay_capture
from controller.tracking import Commit
from tests.service.table import game_on_the_table, position_after, watched
from tests.service.waiting import wait_for
from vision.reading import BoardReading


@pytest.mark.slow
def test_a_bug_report_replays_to_the_plies_the_service_recorded(tmp_path, capsys):
    opening = ["a1", "e5"]
    journal, _, table, settings = game_on_the_table(tmp_path, opening)

    async def scenario():
        async with watched(settings, table, journal) as (board, _camera, _seen):
            def recorded() -> list[str]:
                return [p.ptn for p in board.session.plies()]

            await wait_for(lambda: board.health_report()["tracker"] == "tracking", 30,
                           "the camera to see the journal's position")
            table.place("c3", 0)
            await wait_for(lambda: len(recorded()) == 3, 30, "white's c3")
            table.place("c2", 1)
            await wait_for(lambda: len(recorded()) == 4, 30, "black's c2")
            table.spread("c3", "-", [1])
            await wait_for(lambda: len(recorded()) == 5, 30, "white's c3-")
            await asyncio.sleep(1.0)  # a few still frames after it
            path, readings = await board.save_capture("c3- looked fine")
            return path, readings, recorded()

    path, readings, played = asyncio.run(scenario())
    assert played == [*opening, "c3", "c2", "c3-"]
    assert path.parent == tmp_path / "captures" and path.name.startswith("capture-")
    capture = load_capture(path)
    assert len(capture.readings) == readings > 10
    assert capture.positions[0] == position_after(5, opening).tps()  # the window's first board
    assert capture.recorded == ["c3", "c2", "c3-"]
    assert capture.about["note"] == "c3- looked fine" and capture.about["ply_at_start"] == 2
    with zipfile.ZipFile(path) as z:
        frames = [n for n in z.namelist() if n.startswith("frames/")]
        assert 1 <= len(frames) <= 15
        image = cv2.imdecode(np.frombuffer(z.read(frames[-1]), np.uint8), cv2.IMREAD_COLOR)
        assert image is not None and image.shape[1] == 960
        assert "c3-" in z.read("game.ptn").decode()
    # the same readings, a fresh tracker: the same plies
    replayed = [d.ply.ptn() for step in replay_capture(capture) for d in step.decisions
                if isinstance(d, Commit)]  # fmt: skip
    assert replayed == ["c3", "c2", "c3-"]
    assert takboard(["capture", "replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "note: c3- looked fine" in out
    assert "the service recorded: c3 c2 c3-" in out and "this replay:          c3 c2 c3-" in out


def test_the_ring_keeps_the_last_minute_of_one_board_size():
    ring = CaptureRing(seconds=60.0)
    for k in range(400):  # 4 frames a second for 100 s
        ring.add(k * 0.25, BoardReading(5, board_found=True), "x5/x5/x5/x5/x5 1 1")
    assert len(ring.moments) == 241 and ring.moments[0].t == 99.75 - 60.0
    ring.add(100.0, BoardReading(6, board_found=True), "x6/x6/x6/x6/x6/x6 1 1")
    assert len(ring.moments) == 1  # another size: another game, the old readings go
    frame = np.zeros((720, 1280, 3), np.uint8)
    for k in range(40):
        if ring.wants_jpeg(k * 0.5):
            ring.add_jpeg(k * 0.5, frame)
    assert len(ring.jpegs) == 15 and ring.jpegs[-1][0] - ring.jpegs[-2][0] == pytest.approx(1.0)


def test_a_file_that_is_not_a_capture_is_a_clear_error(tmp_path, capsys):
    import io
    import json

    from vision.readings_file import save_readings

    readings = io.BytesIO()
    save_readings(readings, 5, [BoardReading(5, board_found=True)], [], "test")
    garbled = tmp_path / "garbled.zip"
    with zipfile.ZipFile(garbled, "w") as z:
        z.writestr("readings.npz", readings.getvalue())
        z.writestr("timeline.json", json.dumps({"times": [0.0], "positions": ["x5/x5 1 1"]}))
        z.writestr("about.json", "{}")
    with pytest.raises(ValueError, match="position 1 of the capture is not a TPS"):
        load_capture(garbled)
    text = tmp_path / "notes.zip"
    text.write_text("not a zip")
    part = tmp_path / "part.zip"
    with zipfile.ZipFile(part, "w") as z:
        z.writestr("about.json", "{}")
    for path, why in ((text, "File is not a zip file"), (part, "no readings.npz, timeline.json"),
                      (tmp_path / "gone.zip", "No such file")):  # fmt: skip
        with pytest.raises(ValueError, match="not a takboard capture") as error:
            load_capture(path)
        assert str(path) in str(error.value) and why in str(error.value)
        assert takboard(["capture", "replay", str(path)]) == 2
        assert "not a takboard capture" in capsys.readouterr().err


def test_a_bug_report_that_cannot_be_written_says_where_and_why(tmp_path):
    """The data dir's captures/ is a file (as a full or read-only disk would refuse it): a clear
    error naming the place, and the game goes on."""
    from controller.service.errors import UnavailableError

    journal, _, table, settings = game_on_the_table(tmp_path, ["a1", "e5"])
    (tmp_path / "captures").write_text("in the way")

    async def scenario():
        async with watched(settings, table, journal) as (board, camera, _seen):
            await wait_for(lambda: len(camera.capture.moments) >= 3, 30, "a few readings")
            with pytest.raises(UnavailableError, match="cannot write the bug report in") as err:
                await board.save_capture("")
            assert str(tmp_path / "captures") in str(err.value)
            assert [p.ptn for p in board.session.plies()] == ["a1", "e5"]

    asyncio.run(scenario())

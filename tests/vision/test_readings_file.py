"""`vision.readings_file`: readings stored and loaded back as they were read."""

from __future__ import annotations

import numpy as np
import pytest

from vision.appearance import BINS
from vision.reading import BoardReading, SquareReading
from vision.readings_file import load_readings, save_readings


def test_readings_come_back_as_they_were_saved(tmp_path):
    look = np.arange(BINS * 3, dtype=np.float32).reshape(BINS, 3) / 7
    clean = BoardReading(
        4, board_found=True, confidence=0.93,
        squares={
            "a1": SquareReading(empty=True, confidence=0.99, empty_confidence=0.99),
            "b2": SquareReading(empty=False, color="dark", kind="wall", height=3, confidence=0.61,
                                empty_confidence=0.99, color_confidence=0.97,
                                kind_confidence=0.61, height_confidence=0.8),
            # (what the reader believed besides its calls; float32-exact, as stored)
            "c3": SquareReading(empty=False, color="light", kind="flat", height=2,
                                confidence=0.5, kind_confidence=0.75, height_confidence=0.5,
                                kind_probabilities=(0.75, 0.125, 0.125),
                                height_probabilities=(0.25, 0.5, 0.25, 0, 0, 0, 0, 0)),
        },
        appearance={"a1": look, "b2": look + 1},
    )  # fmt: skip
    hand = BoardReading(4, board_found=True, occluded=True, moving=True, confidence=0.2)
    lost = BoardReading(4, board_found=False, relocalised=True)
    save_readings(tmp_path / "game.npz", 4, [clean, hand, lost], ["a1", "d4"], "a test")

    size, readings, plies = load_readings(tmp_path / "game.npz")
    assert size == 4 and plies == ["a1", "d4"]
    assert readings == [clean, hand, lost]  # flags, confidences, every square's answers
    assert readings[0].squares["b2"].height_probabilities is None
    assert set(readings[0].appearance) == {"a1", "b2"}
    assert np.array_equal(readings[0].appearance["b2"], look + 1)
    assert readings[1].appearance is None


def test_a_file_that_is_not_a_readings_file_is_named_in_the_error(tmp_path):
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match=r"other\.npz: not a readings file \(no answers, "):
        load_readings(tmp_path / "other.npz")
    (tmp_path / "text.npz").write_text("hello")
    with pytest.raises(ValueError, match=r"text\.npz: not a readings file"):
        load_readings(tmp_path / "text.npz")


def test_a_file_from_before_the_readers_gave_distributions_loads_without_them(tmp_path):
    reading = BoardReading(4, board_found=True, squares={
        "b2": SquareReading(empty=False, color="dark", kind="wall", height=3,
                            kind_probabilities=(0.25, 0.5, 0.25),
                            height_probabilities=(0.25, 0.25, 0.5, 0, 0, 0, 0, 0)),
    })  # fmt: skip
    save_readings(tmp_path / "new.npz", 4, [reading], [], "a test")
    with np.load(tmp_path / "new.npz") as stored:
        old = {k: stored[k] for k in stored.files if k not in ("kind_p", "height_p")}
    np.savez_compressed(tmp_path / "old.npz", **old)
    _, (loaded,), _ = load_readings(tmp_path / "old.npz")
    square = loaded.squares["b2"]
    assert (square.kind, square.height) == ("wall", 3)
    assert square.kind_probabilities is None and square.height_probabilities is None


def test_a_readers_footprints_come_back_exactly_where_tracking_compares_them(tmp_path):
    # what the reader gives (vision.appearance: footprints kept to steps float16 holds exactly)
    from vision.reader import BoardReader
    from vision.sim import Scene, random_setup, render

    camera, look = random_setup(5, 4, tilt_deg=20.0)
    reader = BoardReader(4)
    scenes = [Scene(4)] * 3 + [Scene(4, {"b2": [("dark", "flat")]})] * 3
    readings = [reader.read(render(scene, camera, look, seed=k, t=k / 5))
                for k, scene in enumerate(scenes)]  # fmt: skip
    assert len(readings[-1].appearance["b2"]) > BINS  # the footprint follows the strip's bins
    assert {r.clean for r in readings} == {True, False}  # (the piece's arrival moves)
    save_readings(tmp_path / "game.npz", 4, readings, [], "a test")
    _, back, _ = load_readings(tmp_path / "game.npz")
    for then, now in zip(readings, back, strict=True):
        assert set(then.appearance) == set(now.appearance)
        for name, signature in then.appearance.items():
            # only the frames tracking compares keep their footprints (a hand's never are)
            kept = signature if then.clean else signature[:BINS]
            assert np.array_equal(kept, now.appearance[name]), name

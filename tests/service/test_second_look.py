"""The running board takes the same second looks at a ply its camera was sure of as the offline
recorder (`controller.tracking.second_look`): a game the real reader read (`tests/record/games/`)
is replayed through the camera pipeline, the board service and its SQLite journal, every question
answered as the players would (`bench/live.py`), and the ply the reader got wrong is marked
unsure in the journal, on the page's API and in the PTN, naming the ply that was played."""

from __future__ import annotations

from pathlib import Path

import pytest

import controller.tracking.second_look as second_look
from bench.live import replay_live
from controller.store import Journal
from controller.tak import Ply
from vision.readings_file import load_readings

GAMES = Path(__file__).resolve().parents[1] / "record" / "games"


def replayed(name: str, data: Path):
    """Game `name` on the live board -> (its `LiveResult`, the game as journalled, the true
    plies, every event published as (type, data))."""
    seen: list[tuple[str, dict]] = []
    data.mkdir(parents=True, exist_ok=True)
    result = replay_live(GAMES / name, data, listen=lambda e: seen.append((e.type, e.data)))
    journal = Journal(data / "games.db")
    (game,) = journal.games()
    truth = [Ply.from_ptn(p) for p in load_readings(GAMES / name)[2]]
    return result, journal, journal.game(game.id), truth, seen


@pytest.mark.slow
def test_a_sure_spread_a_cheaper_count_explains_better_is_marked_live(tmp_path):
    # fresh bench seed 5430 (6x6, tilt 28; its first 595 frames): ply 45, `3b4>`, moved b4's
    # whole stack, a light wall on top, onto c4. The reader read a light wall still on b4, which
    # ruled `3b4>` out, and the camera committed `2b4>` surely (the recorder's test:
    # tests/record/test_replayed_games.py).
    result, journal, record, truth, seen = replayed("seed5430-start.npz", tmp_path)
    assert len(record.plies) == len(truth) == 45
    assert [e.number for e in record.plies if e.ply != truth[e.number - 1]] == [45]
    last = record.plies[44]
    assert last.ply == Ply.from_ptn("2b4>") and last.uncertain
    assert last.alternatives == (Ply.from_ptn("3b4>"),)
    committed = [d for t, d in seen if t == "ply_committed" and d["number"] == 45]
    assert committed[-1]["uncertain"] is True and committed[-1]["source"] == "camera"
    assert result.silent_errors == 0 and result.exact == 44 and result.unsure == 1
    assert "2b4>? {unsure: also 3b4>}" in journal.export_ptn(record.id)


@pytest.mark.slow
def test_a_sure_spread_is_marked_live_when_a_later_board_shows_the_piece_it_would_have_left(
        tmp_path, monkeypatch):  # fmt: skip
    # fresh bench seed 5432 (5x5, tilt 34): ply 49, `c2<`, took a light wall off a dark flat
    # onto b2. The flat was read empty while the dark stack on c3 stood behind it, and `2c2<`
    # was committed surely; three plies later `3c3+12` took that stack away and the flat was
    # read. The journal marks ply 49 then, and the page hears of it.
    result, _, record, truth, seen = replayed("seed5432.npz", tmp_path / "looked")
    assert record.plies[48].ply == Ply.from_ptn("2c2<") and truth[48] == Ply.from_ptn("c2<")
    assert record.plies[48].uncertain
    assert record.plies[48].alternatives == (Ply.from_ptn("c2<"),)
    marked = [d for t, d in seen if t == "ply_marked"]
    assert [(d["number"], d["ptn"], d["alternatives"]) for d in marked] == [(49, "2c2<", ["c2<"])]
    assert "dark piece on c2" in marked[0]["reason"]
    assert result.silent_errors == 0 and result.marked_later == 1
    # the mechanism, not chance: without the look again the ply stays unmarked
    monkeypatch.setattr(second_look, "PIECE_LEFT_SEEN", 1.01)
    result, _, record, _, seen = replayed("seed5432.npz", tmp_path / "not")
    assert not record.plies[48].uncertain and not [t for t, _ in seen if t == "ply_marked"]
    assert result.silent_errors == 1

"""The journal on real SQLite files: games, plies, takebacks, tags, results, reopening."""

from __future__ import annotations

import sqlite3

import pytest

from controller.store import Journal, JournalError, UnknownGameError
from controller.tak import IllegalPlyError, Ply


class Clock:
    def __init__(self) -> None:
        self.now = 1_780_000_000.0  # 2026-05-28

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def db(tmp_path):
    return tmp_path / "data" / "takboard.db"


@pytest.fixture
def journal(db):
    with Journal(db, clock=Clock()) as journal:
        yield journal


def plies(*texts: str) -> list[Ply]:
    return [Ply.from_ptn(t) for t in texts]


def test_database_is_in_wal_mode_with_full_sync(journal, db):
    assert db.exists()
    assert journal._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_new_game_keeps_size_komi_players_and_tags(journal):
    gid = journal.new_game(size=6, komi=4, players=("Ann", "Bob"), tags={"Event": "Club night"})
    game = journal.game(gid)
    assert (game.size, game.komi, game.opening, game.result) == (6, 4, "swap", None)
    assert game.players == ("Ann", "Bob")
    assert game.tags["Event"] == "Club night"
    assert game.tags["Date"] == "2026.05.28"
    assert game.plies == ()


def test_plies_append_in_order_and_read_back_as_plies(journal):
    gid = journal.new_game(size=5)
    numbers = [journal.append_ply(gid, p) for p in plies("a1", "e5", "c3")]
    assert numbers == [1, 2, 3]
    game = journal.game(gid)
    assert [e.ply for e in game.plies] == plies("a1", "e5", "c3")
    assert [e.number for e in game.plies] == [1, 2, 3]
    assert journal.position(gid).tps() == "x4,1/x5/x2,1,x2/x5/2,x4 2 2"


def test_uncertain_ply_keeps_its_alternatives(journal):
    gid = journal.new_game(size=5)
    journal.append_ply(gid, Ply.from_ptn("a1"), uncertain=True, alternatives=plies("a2", "b1"))
    (entry,) = journal.game(gid).plies
    assert entry.uncertain and entry.alternatives == tuple(plies("a2", "b1"))


def test_illegal_ply_is_refused_and_nothing_is_written(journal):
    gid = journal.new_game(size=5)
    journal.append_ply(gid, Ply.from_ptn("a1"))
    with pytest.raises(IllegalPlyError, match="a1"):
        journal.append_ply(gid, Ply.from_ptn("a1"))  # occupied
    assert journal.game(gid).ply_count == 1
    assert journal.append_ply(gid, Ply.from_ptn("b1")) == 2  # the game goes on


def test_undo_plies_removes_the_last_n_and_the_game_continues(journal):
    gid = journal.new_game(size=5)
    for p in plies("a1", "e5", "c3", "c2"):
        journal.append_ply(gid, p)
    undone = journal.undo_plies(gid, 3)
    assert [e.ply for e in undone] == plies("c2", "c3", "e5")
    assert [e.ply for e in journal.game(gid).plies] == plies("a1")
    assert journal.append_ply(gid, Ply.from_ptn("e1")) == 2
    with pytest.raises(JournalError, match="cannot undo 5"):
        journal.undo_plies(gid, 5)


def test_the_last_ply_is_corrected_in_place_and_the_game_goes_on(journal):
    gid = journal.new_game(size=5)
    journal.append_ply(gid, Ply.from_ptn("a1"))
    journal.append_ply(gid, Ply.from_ptn("e5"))
    journal.append_ply(gid, Ply.from_ptn("c3"), uncertain=True, alternatives=plies("Sc3"))
    old = journal.correct_last_ply(gid, Ply.from_ptn("Sc3"))
    assert old.ply == Ply.from_ptn("c3") and old.number == 3 and old.uncertain
    game = journal.game(gid)
    assert [(e.ply.ptn(), e.uncertain, e.alternatives) for e in game.plies] == [
        ("a1", False, ()), ("e5", False, ()), ("Sc3", False, ())]
    assert journal.position(gid).top("c3") == (0, 1)  # white's wall
    assert journal.append_ply(gid, Ply.from_ptn("d3")) == 4  # on top of the corrected one


def test_a_correction_that_is_not_legal_there_writes_nothing(journal):
    gid = journal.new_game(size=5)
    for p in plies("a1", "e5"):
        journal.append_ply(gid, p)
    with pytest.raises(IllegalPlyError, match="a1"):
        journal.correct_last_ply(gid, Ply.from_ptn("a1"))  # white's flat is on a1 already
    assert [e.ply.ptn() for e in journal.game(gid).plies] == ["a1", "e5"]
    assert journal.append_ply(gid, Ply.from_ptn("c3")) == 3
    with pytest.raises(JournalError, match="no plies"):
        journal.correct_last_ply(journal.new_game(size=5), Ply.from_ptn("a1"))


def test_correcting_the_ply_that_ended_a_game_opens_it_again_unless_it_still_ends_it(journal):
    gid = journal.new_game(size=4)
    for p in plies("d4", "a1", "b1", "d3", "c1", "c4", "d1"):  # d1 completes white's road
        journal.append_ply(gid, p)
    journal.finish(gid, "R-0")
    journal.correct_last_ply(gid, Ply.from_ptn("Sd1"))  # a wall is no part of a road
    game = journal.game(gid)
    assert game.result is None and game.finished_at is None and game.in_progress
    assert journal.append_ply(gid, Ply.from_ptn("b4")) == 8
    journal.undo_plies(gid, 1)
    journal.correct_last_ply(gid, Ply.from_ptn("d1"))  # the road after all
    assert journal.game(gid).result == "R-0"
    with pytest.raises(JournalError, match="finished"):
        journal.append_ply(gid, Ply.from_ptn("b4"))
    # a game ended otherwise (resigned) takes no corrections
    other = journal.new_game(size=5)
    journal.append_ply(other, Ply.from_ptn("a1"))
    journal.finish(other, "0-1")
    with pytest.raises(JournalError, match="otherwise than by its last ply"):
        journal.correct_last_ply(other, Ply.from_ptn("b1"))


def test_an_earlier_ply_is_marked_unsure_after_the_fact_and_stays_so_on_reopening(journal, db):
    gid = journal.new_game(size=5)
    for p in plies("a1", "e5", "e4", "d5", "e4+", "c3"):
        journal.append_ply(gid, p)
    journal.finish(gid, "0-1")  # (a finished game's plies are marked too: it is said after)
    journal.mark_uncertain(gid, 5, plies("e4<"))
    with pytest.raises(IllegalPlyError, match="e4>"):
        journal.mark_uncertain(gid, 5, plies("e4>"))  # off the board: nothing written
    with pytest.raises(JournalError, match="no ply 7"):
        journal.mark_uncertain(gid, 7, ())
    journal.close()
    with Journal(db) as again:
        marked = [(e.number, e.uncertain, e.alternatives) for e in again.game(gid).plies]
        assert marked == [(1, False, ()), (2, False, ()), (3, False, ()), (4, False, ()),
                          (5, True, tuple(plies("e4<"))), (6, False, ())]
        assert "e4+? {unsure: also e4<}" in again.export_ptn(gid)


def test_set_tags_adds_changes_and_removes_case_insensitively(journal):
    gid = journal.new_game(size=5, players=("Ann", "Bob"))
    journal.set_tags(gid, player1="Anna", Event="Cup", Site=None)
    journal.set_tags(gid, Event=None)
    tags = journal.game(gid).tags
    assert tags["Player1"] == "Anna" and "player1" not in tags and "Event" not in tags
    with pytest.raises(JournalError, match="Size"):
        journal.set_tags(gid, Size="6")


def test_finish_records_the_result_and_closes_the_game(journal):
    gid = journal.new_game(size=5)
    journal.append_ply(gid, Ply.from_ptn("a1"))
    journal.finish(gid, "0-R")
    game = journal.game(gid)
    assert game.result == "0-R" and game.finished_at is not None
    assert journal.in_progress() == []
    with pytest.raises(JournalError, match="finished"):
        journal.append_ply(gid, Ply.from_ptn("b1"))
    with pytest.raises(ValueError):
        journal.finish(gid, "3-2")


def test_a_reopened_game_takes_plies_again_and_is_in_progress(journal):
    gid = journal.new_game(size=5)
    journal.append_ply(gid, Ply.from_ptn("a1"))
    journal.finish(gid, "R-0")
    journal.reopen(gid)
    game = journal.game(gid)
    assert game.result is None and game.finished_at is None
    assert [g.id for g in journal.in_progress()] == [gid]
    journal.undo_plies(gid, 1)
    journal.append_ply(gid, Ply.from_ptn("e5"))
    assert [p.ply.ptn() for p in journal.game(gid).plies] == ["e5"]
    with pytest.raises(UnknownGameError, match="no game 999"):
        journal.reopen(999)


def test_games_lists_newest_first_and_delete_removes(journal):
    first = journal.new_game(size=4)
    second = journal.new_game(size=5)
    journal.append_ply(second, Ply.from_ptn("a1"))
    assert [g.id for g in journal.games()] == [second, first]
    assert [g.ply_count for g in journal.games()] == [1, 0]
    journal.delete(second)
    assert [g.id for g in journal.games()] == [first]
    with pytest.raises(UnknownGameError, match=f"no game {second}"):
        journal.game(second)


def test_bad_arguments_are_clear_errors(journal):
    with pytest.raises(JournalError, match=r"size must be 3\.\.8"):
        journal.new_game(size=9)
    with pytest.raises(JournalError, match="half-flats"):
        journal.new_game(size=5, komi=1.5)  # type: ignore[arg-type]
    with pytest.raises(UnknownGameError, match="no game 42"):
        journal.append_ply(42, Ply.from_ptn("a1"))


def test_reopened_journal_resumes_the_game_in_progress(db):
    with Journal(db) as journal:
        gid = journal.new_game(size=5, players=("Ann", "Bob"))
        for p in plies("a1", "e5", "c3"):
            journal.append_ply(gid, p)
    with Journal(db) as journal:
        (game,) = journal.in_progress()
        assert game.id == gid and game.ply_count == 3
        assert journal.append_ply(gid, Ply.from_ptn("c2")) == 4
        assert journal.position(gid).ply_count == 4


def test_a_file_that_is_not_a_journal_is_a_clear_error(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_text("this is not sqlite " * 100)
    with pytest.raises(JournalError, match="not a usable takboard journal"):
        Journal(bad)


def test_rows_are_plain_and_readable_with_sqlite(journal, db):
    gid = journal.new_game(size=5)
    journal.append_ply(gid, Ply.from_ptn("a1"))
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT number, ptn FROM plies").fetchall() == [(1, "a1")]

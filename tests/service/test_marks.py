"""Tak (') and tinue ('') marks in recorded games: computed by the engine, kept per game."""

from __future__ import annotations

from pathlib import Path

from controller import cli
from controller.engine.annotate import annotate_game
from controller.service.marks import MarkCache, annotated_ptn, game_marks
from controller.store import Journal
from controller.tak import Ply, ptn

DATA = Path(__file__).parent.parent / "data" / "tak"
# after b4, white threatens b5
ROAD_THREAT = ["a1", "e5", "b1", "d1", "b2", "d2", "b3", "d3", "b4"]


def record(journal: Journal, plies, size: int = 5) -> int:
    game = journal.new_game(size=size, komi=0, players=("", ""), opening="swap")
    for text in plies:
        journal.append_ply(game, Ply.from_ptn(text))
    return game


def test_a_road_threat_gets_a_tak_mark_in_the_exported_ptn(tmp_path):
    journal = Journal(tmp_path / "j.db")
    game = record(journal, ROAD_THREAT)
    text = annotated_ptn(journal, game)
    assert "5. b4'" in text and "'" not in text.split("5. b4'")[0].split("\n\n", 1)[1]
    assert ptn.parse_game(text).moves[8].annotation == "'"


def test_the_cache_adds_one_ply_at_a_time_and_matches_the_whole_game(tmp_path):
    journal = Journal(tmp_path / "j.db")
    club = ptn.parse_game((DATA / "club-6x6.ptn").read_text(), strict=False)
    plies = [move.ply.ptn() for move in club.moves]
    game = record(journal, [], size=6)
    cache = MarkCache()
    for text in plies:
        journal.append_ply(game, Ply.from_ptn(text))
        cache.marks(journal.game(game))
    assert cache.peek(journal.game(game)) == game_marks(journal.game(game))
    assert cache.peek(journal.game(game)) == annotate_game(club)
    journal.undo_plies(game, 3)  # a takeback: the marks of what is left are still right
    assert cache.peek(journal.game(game)) == game_marks(journal.game(game))


def test_unsure_and_tak_together_read_back(tmp_path):
    journal = Journal(tmp_path / "j.db")
    game = record(journal, ROAD_THREAT[:-1])
    journal.append_ply(game, Ply.from_ptn("b4"), uncertain=True, alternatives=[Ply.from_ptn("c4")])
    text = annotated_ptn(journal, game)
    assert "b4'? {unsure: also c4}" in text
    assert ptn.parse_game(text).moves[8].annotation == "'?"


def test_games_export_writes_the_marks(tmp_path, capsys):
    db = tmp_path / "j.db"
    journal = Journal(db)
    game = record(journal, ROAD_THREAT)
    journal.close()
    assert cli.main(["games", "export", str(game), "--db", str(db)]) == 0
    assert "5. b4'" in capsys.readouterr().out

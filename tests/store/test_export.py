"""PTN export of journal games, and the `takboard games list|export` command."""

from __future__ import annotations

from controller import cli
from controller.store import Journal
from controller.tak import Ply, ptn


def _game(db) -> int:
    with Journal(db) as journal:
        gid = journal.new_game(size=5, komi=3, players=("Ann", "Bob"), tags={"Event": "Club"})
        for text in ("a1", "e5", "c3", "c2"):
            journal.append_ply(gid, Ply.from_ptn(text))
        journal.append_ply(gid, Ply.from_ptn("b3"), uncertain=True,
                           alternatives=[Ply.from_ptn("Sb3")])
        return gid


def test_export_writes_tags_plies_and_marks_unsure_plies(tmp_path):
    db = tmp_path / "j.db"
    gid = _game(db)
    with Journal(db) as journal:
        text = journal.export_ptn(gid)
    game = ptn.parse_game(text)
    assert game.tag("Size") == "5" and game.tag("Komi") == "1.5"
    assert game.tag("Player1") == "Ann" and game.tag("Event") == "Club"
    assert [m.ply.ptn() for m in game.moves] == ["a1", "e5", "c3", "c2", "b3"]
    assert game.moves[4].annotation == "?"
    assert game.moves[4].comments_after == ["unsure: also Sb3"]
    assert game.replay().ply_count == 5


def test_finished_game_exports_its_result(tmp_path):
    db = tmp_path / "j.db"
    gid = _game(db)
    with Journal(db) as journal:
        journal.finish(gid, "0-1")
        game = ptn.parse_game(journal.export_ptn(gid))
    assert game.result == "0-1"


def test_games_list_and_export_commands(tmp_path, capsys):
    db = tmp_path / "j.db"
    gid = _game(db)
    assert cli.main(["games", "--db", str(db), "list"]) == 0
    listing = capsys.readouterr().out
    assert "Ann vs Bob" in listing and "playing" in listing and "5x5" in listing
    out = tmp_path / "out" / "game.ptn"
    assert cli.main(["games", "--db", str(db), "export", str(gid), "-o", str(out)]) == 0
    assert ptn.parse_game(out.read_text()).tag("Player2") == "Bob"
    assert cli.main(["games", "--db", str(db), "export", str(gid)]) == 0
    assert '[Size "5"]' in capsys.readouterr().out


def test_games_commands_give_clear_errors(tmp_path, capsys):
    missing = tmp_path / "none.db"
    assert cli.main(["games", "--db", str(missing), "list"]) == 1
    assert "no journal at" in capsys.readouterr().err
    db = tmp_path / "j.db"
    _game(db)
    assert cli.main(["games", "--db", str(db), "export", "99"]) == 1
    assert "no game 99" in capsys.readouterr().err

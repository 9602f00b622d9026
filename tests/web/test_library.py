"""The library: list, view, download PTN (server-chosen file name), delete."""

from __future__ import annotations

from controller.tak import ptn as ptn_module


def finished_game(web, *plies, size=5):
    web.client.post("/api/games", json={"size": size, "white": "Ann", "black": "Bob"})
    for p in plies:
        assert web.client.post("/api/game/plies", json={"ptn": p}).status_code == 201
    game = web.client.get("/api/game").json()
    web.client.post("/api/game/end", json={"how": "draw"})
    return game["id"]


def test_games_are_listed_newest_first_with_players_and_result(web):
    first = finished_game(web, "a1", "e5")
    second = finished_game(web, "a1")
    games = web.anon.get("/api/library").json()
    assert [g["id"] for g in games] == [second, first]
    assert games[1] | {"date": None} == {"id": first, "size": 5, "komi": 0.0, "white": "Ann",
                                         "black": "Bob", "date": None, "result": "1/2-1/2",
                                         "plies": 2, "in_progress": False}


def test_view_and_download_give_the_same_ptn_and_it_reads_back(web):
    gid = finished_game(web, "a1", "e5", "c3", "c4")
    detail = web.anon.get(f"/api/library/{gid}").json()
    assert [p["ptn"] for p in detail["plies"]] == ["a1", "e5", "c3", "c4"]
    r = web.anon.get(f"/api/library/{gid}/ptn")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/x-ptn")
    assert r.headers["content-disposition"] == f'attachment; filename="takboard-game-{gid}.ptn"'
    assert r.text == detail["ptn"]
    game = ptn_module.parse_game(r.text)
    assert [m.ply.ptn() for m in game.moves] == ["a1", "e5", "c3", "c4"]
    assert game.result == "1/2-1/2"


def test_file_names_never_come_from_the_request_path(web):
    finished_game(web, "a1")
    for path in ("/api/library/1%2F..%2F..%2Fetc%2Fpasswd/ptn", "/api/library/..%2Ftoken/ptn",
                 "/api/library/1.ptn/ptn", "/api/library/-1/ptn", "/api/library/0/ptn",
                 "/api/library/99999999999999999999/ptn"):
        r = web.anon.get(path)
        assert r.status_code in (404, 422), (path, r.status_code)
        assert "content-disposition" not in r.headers


def test_unknown_game_is_404_naming_it(web):
    r = web.anon.get("/api/library/42")
    assert r.status_code == 404 and "42" in r.json()["detail"]


def test_delete_needs_the_token_and_spares_the_game_in_progress(web):
    gid = finished_game(web, "a1")
    assert web.anon.delete(f"/api/library/{gid}").status_code == 401
    assert web.client.delete(f"/api/library/{gid}").status_code == 204
    assert web.anon.get(f"/api/library/{gid}").status_code == 404
    web.client.post("/api/games", json={"size": 5})
    current = web.client.get("/api/game").json()["id"]
    r = web.client.delete(f"/api/library/{current}")
    assert r.status_code == 409 and "in progress" in r.json()["detail"]

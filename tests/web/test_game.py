"""The game API over real HTTP: start, play, confirm, take back, end, tag; and bad input."""

from __future__ import annotations

import time

import httpx
import pytest
from websockets.sync.client import connect

from controller.tak import Ply
from tests.web.conftest import TOKEN
from tests.web.test_events import receive_until


def start(web, **body):
    r = web.client.post("/api/games", json={"size": 5, **body})
    assert r.status_code == 201, r.text
    return r.json()


def play(web, *plies):
    for ptn in plies:
        r = web.client.post("/api/game/plies", json={"ptn": ptn})
        assert r.status_code == 201, r.text
    return web.client.get("/api/game").json()


def test_reading_is_open_but_every_change_needs_the_token(web):
    assert web.anon.get("/api/health").status_code == 200
    r = web.anon.post("/api/games", json={"size": 5})
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == "Bearer"
    assert "Authorization: Bearer" in r.json()["detail"]
    wrong = web.anon.post("/api/games", json={"size": 5},
                          headers={"Authorization": "Bearer not-the-token-at-all"})
    assert wrong.status_code == 403
    not_bearer = web.anon.post("/api/games", json={"size": 5},
                               headers={"Authorization": f"Basic {TOKEN}"})
    assert not_bearer.status_code == 401
    start(web)
    for method, path, body in [("POST", "/api/game/plies", {"ptn": "a1"}),
                               ("POST", "/api/game/takeback", {"plies": 1}),
                               ("POST", "/api/game/end", {"how": "draw"}),
                               ("DELETE", "/api/game/ambiguity", None),
                               ("POST", "/api/game/in-sync", None),
                               ("PATCH", "/api/game/tags", {"tags": {"Event": "x"}}),
                               ("PUT", "/api/leds/brightness", {"brightness": 3}),
                               ("POST", "/api/sim/place", {"square": "a1", "player": "white"})]:
        assert web.anon.request(method, path, json=body).status_code == 401, path
    assert web.anon.get("/api/game").status_code == 200


def test_new_game_and_plies_show_in_order_with_ptn_and_position(web):
    game = start(web, komi=1.5, white="Ann", black="Bob", opening="swap")
    assert (game["size"], game["komi"], game["white"], game["black"]) == (5, 1.5, "Ann", "Bob")
    assert game["plies"] == [] and game["state"] == "recording"
    g = play(web, "a1", "e5", "c3", "Sd3")
    assert [p["ptn"] for p in g["plies"]] == ["a1", "e5", "c3", "Sd3"]
    assert [p["player"] for p in g["plies"]] == ["white", "black", "white", "black"]
    assert g["stacks"]["a1"] == [["black", "flat"]]  # ply 1 places the opponent's flat
    assert g["stacks"]["d3"] == [["black", "wall"]]
    assert g["to_move"] == "white"
    assert "1. a1 e5" in g["ptn"] and "2. c3 Sd3" in g["ptn"] and '[Komi "1.5"]' in g["ptn"]
    assert g["ptn_ninja_url"].startswith("https://ptn.ninja/%5BSize%20%225%22%5D")
    assert web.client.get("/api/game/plies").json() == g["plies"]


@pytest.mark.parametrize("text", ["z9", "a0", "3c3>112", "hello", "c3>>", "9a1+"])
def test_malformed_ply_is_400_and_quotes_the_text(web, text):
    start(web)
    r = web.client.post("/api/game/plies", json={"ptn": text})
    assert r.status_code == 400, r.text
    assert text in r.json()["detail"]


def test_square_off_a_small_board_is_refused(web):
    start(web, size=4)
    r = web.client.post("/api/game/plies", json={"ptn": "e5"})
    assert r.status_code in (400, 409), r.text
    assert "e5" in r.json()["detail"]


def test_illegal_ply_is_409_and_quotes_the_position(web):
    start(web)
    play(web, "a1", "e5")
    r = web.client.post("/api/game/plies", json={"ptn": "a1"})
    assert r.status_code == 409
    assert "a1" in r.json()["detail"] and "x5" in r.json()["detail"]
    assert len(web.client.get("/api/game").json()["plies"]) == 2  # nothing recorded


def test_take_back_undoes_the_last_plies(web):
    start(web)
    play(web, "a1", "e5", "c3")
    r = web.client.post("/api/game/takeback", json={"plies": 2})
    assert r.status_code == 200
    assert r.json()["undone"] == ["c3", "e5"]
    assert [p["ptn"] for p in r.json()["game"]["plies"]] == ["a1"]
    too_many = web.client.post("/api/game/takeback", json={"plies": 5})
    assert too_many.status_code == 404 and "has 1" in too_many.json()["detail"]


def test_the_last_ply_is_corrected_in_one_request(web):
    start(web)
    play(web, "a1", "e5", "c3")
    with connect(web.url.replace("http", "ws") + "/api/events") as ws:
        r = web.client.put("/api/game/plies/last", json={"ptn": "Sc3"})
        assert r.status_code == 200, r.text
        event = receive_until(ws, "ply_corrected")["data"]
    assert (event["number"], event["was"], event["ptn"]) == (3, "c3", "Sc3")
    g = r.json()["game"]
    assert [p["ptn"] for p in g["plies"]] == ["a1", "e5", "Sc3"]
    assert g["stacks"]["c3"] == [["white", "wall"]] and g["to_move"] == "black"
    assert "2. Sc3" in g["ptn"]
    assert web.anon.put("/api/game/plies/last", json={"ptn": "c3"}).status_code == 401
    illegal = web.client.put("/api/game/plies/last", json={"ptn": "a1"})  # a1 is taken
    assert illegal.status_code == 409 and "a1" in illegal.json()["detail"]
    malformed = web.client.put("/api/game/plies/last", json={"ptn": "c9"})
    assert malformed.status_code == 400 and "c9" in malformed.json()["detail"]
    assert [p["ptn"] for p in web.client.get("/api/game").json()["plies"]] == ["a1", "e5", "Sc3"]
    start(web)
    none = web.client.put("/api/game/plies/last", json={"ptn": "a1"})
    assert none.status_code == 404 and "no ply to correct" in none.json()["detail"]


def test_resign_and_draw_end_the_game_and_no_more_plies_are_taken(web):
    start(web)
    play(web, "a1", "e5")
    r = web.client.post("/api/game/end", json={"how": "resign", "player": "black"})
    assert r.status_code == 200 and r.json()["result"] == "1-0" and r.json()["state"] == "over"
    after = web.client.post("/api/game/plies", json={"ptn": "c3"})
    assert after.status_code == 409 and "over" in after.json()["detail"]
    start(web)
    r = web.client.post("/api/game/end", json={"how": "draw"})
    assert r.json()["result"] == "1/2-1/2"
    missing = web.client.post("/api/game/end", json={"how": "resign"})
    assert missing.status_code in (400, 409)


def test_tags_are_set_and_removed_but_fixed_tags_are_refused(web):
    start(web, white="Ann")
    r = web.client.patch("/api/game/tags", json={"tags": {"Event": "Club night", "Player1": None}})
    assert r.status_code == 200
    tags = r.json()["tags"]
    assert tags["Event"] == "Club night" and "Player1" not in tags
    assert '[Event "Club night"]' in r.json()["ptn"]
    for bad in ({"Size": "6"}, {"bad name": "x"}, {"Event": 'quote"inside'}, {"Event": "a\nb"}):
        r = web.client.patch("/api/game/tags", json={"tags": bad})
        assert r.status_code == 422, bad


def test_without_a_game_reads_and_plies_say_to_start_one(web):
    r = web.client.get("/api/game")
    assert r.status_code == 409 and "POST /api/games" in r.json()["detail"]
    assert web.client.post("/api/game/plies", json={"ptn": "a1"}).status_code == 409


@pytest.mark.parametrize("body", [
    {"size": 9}, {"size": 2}, {"komi": 0.3}, {"komi": -1}, {"opening": "random"},
    {"white": "x" * 65}, {"white": 'a"b'}, {"size": "five"}, {"colour": "red"},
])
def test_new_game_input_is_checked(web, body):
    r = web.client.post("/api/games", json=body)
    assert r.status_code == 422, body
    assert r.json()["detail"]


def test_a_pair_question_with_other_replies_is_a_new_question(web):
    start(web)
    play(web, "a1", "e5", "c3")
    c2, d3, sd3 = (Ply.from_ptn(p) for p in ("c2", "d3", "Sd3"))
    first = web.server.call(web.board.ask([c2], [0.1], "two plies at once", [d3]))
    again = web.server.call(web.board.ask([c2], [0.1], "two plies at once", [d3]))
    assert again.id == first.id  # the same question, still on the board
    other = web.server.call(web.board.ask([c2], [0.1], "two plies at once", [sd3]))
    assert other.id != first.id  # the same first ply, another reply: asked anew
    g = web.client.get("/api/game").json()
    assert g["ambiguity"]["then"] == ["Sd3"]


def test_a_catch_up_question_names_every_ply_each_candidate_records(web):
    """Out of sync, the board three plies on: the question names the plies after the reply too,
    and a question that differs only in them is a new question."""
    start(web)
    play(web, "a1", "e5", "c3", "c2")
    down, right, d4, b4, b2 = (Ply.from_ptn(p) for p in ("c3-", "c3>", "d4", "b4", "b2"))
    first = web.server.call(web.board.ask([down, right], [0.1, 0.4], "caught up", [d4, d4],
                                          [(b4,), (b4,)]))
    g = web.client.get("/api/game").json()
    assert g["ambiguity"]["then"] == ["d4", "d4"]
    assert g["ambiguity"]["more"] == [["b4"], ["b4"]]
    again = web.server.call(web.board.ask([down, right], [0.1, 0.4], "caught up", [d4, d4],
                                          [(b4,), (b2,)]))
    assert again.id != first.id  # the same first plies and replies, another third: asked anew
    assert web.board.session.ambiguity.sequence(1) == [right, d4, b2]
    plain = web.server.call(web.board.ask([down], [0.1]))
    assert web.client.get("/api/game").json()["ambiguity"]["more"] == [[]]
    assert plain.sequence(0) == [down]


def test_ambiguity_is_confirmed_by_picking_a_candidate(web):
    start(web)
    play(web, "a1", "e5")
    amb = web.server.call(web.board.ask([Ply.from_ptn("c3"), Ply.from_ptn("c4")], [0.1, 0.2]))
    g = web.client.get("/api/game").json()
    assert g["state"] == "ambiguous"
    assert g["ambiguity"] == {"id": amb.id, "candidates": ["c3", "c4"], "scores": [0.1, 0.2],
                              "reason": "", "then": [None, None], "more": [[], []]}
    assert web.client.post("/api/game/ambiguity",
                           json={"ambiguity_id": amb.id, "candidate": 7}).status_code == 404
    assert web.client.post("/api/game/ambiguity",
                           json={"ambiguity_id": amb.id + 5, "candidate": 0}).status_code == 409
    assert web.client.post("/api/game/ambiguity", json={"ambiguity_id": amb.id}).status_code == 400
    r = web.client.post("/api/game/ambiguity", json={"ambiguity_id": amb.id, "candidate": 1})
    assert r.status_code == 200, r.text
    assert r.json()["ptn"] == "c4"
    assert [p["ptn"] for p in r.json()["game"]["plies"]] == ["a1", "e5", "c4"]
    assert r.json()["game"]["ambiguity"] is None
    again = web.client.post("/api/game/ambiguity", json={"ambiguity_id": amb.id, "candidate": 0})
    assert again.status_code == 409


def test_ambiguity_can_be_corrected_with_a_typed_ply(web):
    start(web)
    play(web, "a1", "e5")
    web.server.call(web.board.ask([Ply.from_ptn("c3"), Ply.from_ptn("c4")], [0.1, 0.2]))
    r = web.client.post("/api/game/ambiguity", json={"ptn": "d2"})
    assert r.status_code == 200 and r.json()["ptn"] == "d2"


def test_a_question_whose_ply_was_taken_back_goes_from_the_game(web):
    start(web)
    play(web, "a1", "e5")
    amb = web.server.call(web.board.ask([Ply.from_ptn("c3"), Ply.from_ptn("c4")], [0.1, 0.2]))
    web.server.call(web.board.withdraw_question())  # the camera saw the board as before
    g = web.client.get("/api/game").json()
    assert g["ambiguity"] is None and g["state"] != "ambiguous"
    assert [p["ptn"] for p in g["plies"]] == ["a1", "e5"]
    r = web.client.post("/api/game/ambiguity", json={"ambiguity_id": amb.id, "candidate": 0})
    assert r.status_code == 409  # nothing to answer any more


def test_a_question_answered_nothing_was_played_goes_and_records_nothing(web):
    start(web)
    play(web, "a1", "e5")
    assert web.client.delete("/api/game/ambiguity").status_code == 409  # nothing asked yet
    amb = web.server.call(web.board.ask([Ply.from_ptn("b2")], [0.1],
                                        "nothing happened, or this: the board barely changed"))
    r = web.client.delete("/api/game/ambiguity", params={"ambiguity_id": amb.id + 3})
    assert r.status_code == 409 and f"pending one is {amb.id}" in r.json()["detail"]
    r = web.client.delete("/api/game/ambiguity", params={"ambiguity_id": amb.id})
    assert r.status_code == 200, r.text
    g = r.json()
    assert g["ambiguity"] is None and g["state"] != "ambiguous"
    assert [p["ptn"] for p in g["plies"]] == ["a1", "e5"]
    assert web.client.delete("/api/game/ambiguity").status_code == 409  # answered already
    play(web, "c3")  # the game goes on
    assert [p["ptn"] for p in web.client.get("/api/game").json()["plies"]] == ["a1", "e5", "c3"]


def test_oversize_bodies_are_refused_with_413(web):
    big = b'{"ptn": "' + b"a" * 70_000 + b'"}'
    r = web.client.post("/api/game/plies", content=big,
                        headers={"Content-Type": "application/json"})
    assert r.status_code == 413

    def chunks():
        for _ in range(80):
            yield b"x" * 1024

    r = web.client.post("/api/game/plies", content=chunks(),
                        headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_malformed_json_and_wrong_types_are_422(web):
    start(web)
    r = web.client.post("/api/game/plies", content=b"{not json",
                        headers={"Content-Type": "application/json"})
    assert r.status_code == 422
    assert web.client.post("/api/game/plies", json={"ptn": 5}).status_code == 422
    assert web.client.post("/api/game/plies", json={"ptn": ""}).status_code == 422
    assert web.client.post("/api/game/plies", json=["a1"]).status_code == 422


def test_hint_without_an_engine_is_503(web):
    start(web)
    r = web.client.post("/api/game/hint")
    assert r.status_code == 503 and "hint engine" in r.json()["detail"]


def test_the_page_is_served_with_its_assets(web):
    page = web.anon.get("/")
    assert page.status_code == 200 and 'id="board"' in page.text and "app.js" in page.text
    for asset in ("/static/app.js", "/static/style.css"):
        assert web.anon.get(asset).status_code == 200
    assert web.anon.get("/static/../pyproject.toml").status_code == 404
    assert isinstance(web.anon, httpx.Client)


def test_hint_from_the_engine_is_a_legal_ply_and_announced(tmp_path):
    from controller.service.hints import EngineHints
    from tests.web.conftest import make_web

    web = make_web(tmp_path, hinter=EngineHints(movetime_ms=200))
    try:
        start(web)
        play(web, "a1", "e5", "c3", "c4")
        r = web.client.post("/api/game/hint")
        assert r.status_code == 200, r.text
        hint = r.json()
        assert hint["info"]["source"] == "builtin" and hint["info"]["depth"] >= 1
        # the hint is a ply the game accepts
        assert web.client.post("/api/game/plies", json={"ptn": hint["ptn"]}).status_code == 201
        assert web.anon.post("/api/game/hint").status_code == 401
    finally:
        web.client.close()
        web.anon.close()
        web.server.stop()


def test_a_game_against_the_computer_over_http(tmp_path):
    from controller.service.hints import EngineHints
    from tests.web.conftest import make_web

    web = make_web(tmp_path, hinter=EngineHints(movetime_ms=200))
    try:
        game = start(web, computer="black", strength="easy", white="Ann")
        assert game["computer"] == {"side": "black", "strength": "easy", "move": None,
                                    "thinking": False}
        assert game["white"] == "Ann" and game["black"] == "takboard (easy)"
        play(web, "a1")
        deadline = time.monotonic() + 20
        while (computer := web.client.get("/api/game").json()["computer"])["move"] is None:
            assert time.monotonic() < deadline, "the computer never answered"
            time.sleep(0.05)
        # the page's "make it on the table" button: the simulated hands act the ply out
        table = web.client.post("/api/sim/ply", json={"ptn": computer["move"]})
        assert table.status_code == 200, table.text
        assert '[Computer "black easy"]' in web.client.get("/api/game").json()["ptn"]
        bad = web.client.post("/api/games", json={"size": 5, "computer": "green"})
        assert bad.status_code == 422
        bad = web.client.post("/api/games", json={"size": 5, "computer": "white",
                                                   "strength": "godlike"})
        assert bad.status_code == 422
    finally:
        web.client.close()
        web.anon.close()
        web.server.stop()


def test_a_computer_game_without_an_engine_is_503(web):
    r = web.client.post("/api/games", json={"size": 5, "computer": "white"})
    assert r.status_code == 503 and "no engine" in r.json()["detail"]


def test_the_board_said_right_with_no_camera_watching_is_refused_with_the_reason(web):
    start(web)
    r = web.client.post("/api/game/in-sync")
    assert r.status_code == 503 and "no camera" in r.json()["detail"]

"""Hands on the virtual table through the API (the page's sim controls)."""

from __future__ import annotations


def test_place_pick_up_drop_and_knock_over_change_the_table(web):
    web.client.post("/api/games", json={"size": 5})
    c = web.client
    assert c.post("/api/sim/place", json={"square": "c3", "player": "white"}).status_code == 200
    c.post("/api/sim/place", json={"square": "c3", "player": "black", "stone": "cap"})
    table = c.post("/api/sim/pick-up", json={"square": "c3", "count": 1}).json()
    assert table["hand_over"] and table["in_hand"] == [[1, 2]]
    table = c.post("/api/sim/drop", json={"square": "c4"}).json()
    assert table["stacks"] == {"c3": [[0, 0]], "c4": [[1, 2]]} and not table["hand_over"]
    c.post("/api/sim/place", json={"square": "a1", "player": "white"})
    c.post("/api/sim/place", json={"square": "a1", "player": "black"})
    table = c.post("/api/sim/knock-over", json={"square": "a1", "direction": ">"}).json()
    assert table["stacks"]["b1"] == [[1, 0]]
    assert c.put("/api/sim/hand", json={"over": True}).json()["hand_over"]


def test_acting_out_a_ply_moves_the_right_colour(web):
    web.client.post("/api/games", json={"size": 5})
    table = web.client.post("/api/sim/ply", json={"ptn": "a1"}).json()
    assert table["stacks"] == {"a1": [[1, 0]]}  # white's first ply places a black flat


def test_a_piece_placed_for_the_player_to_move_has_the_colour_the_game_wants_now(web):
    # decided by the server from the game as it is, not by a page that may not have heard of
    # a new game yet (the page's test once put the old game's colour down, and saw a desync)
    c = web.client
    c.post("/api/games", json={"size": 5})
    assert c.post("/api/sim/place", json={"square": "a1"}).json()["stacks"]["a1"] == [[1, 0]]
    c.post("/api/game/plies", json={"ptn": "a1"})
    table = c.post("/api/sim/place", json={"square": "e5", "player": "to_move"}).json()
    assert table["stacks"]["e5"] == [[0, 0]]  # black's first ply: a white flat
    for p in ("e5", "c3"):
        c.post("/api/game/plies", json={"ptn": p})
    table = c.post("/api/sim/place", json={"square": "d3", "stone": "wall"}).json()
    assert table["stacks"]["d3"] == [[1, 1]]  # then black's own wall
    c.post("/api/games", json={"size": 5, "opening": "no-swap"})
    assert c.post("/api/sim/place", json={"square": "b2"}).json()["stacks"]["b2"] == [[0, 0]]


def test_impossible_hand_actions_are_409_and_say_why(web):
    web.client.post("/api/games", json={"size": 5})
    web.client.post("/api/sim/place", json={"square": "b2", "player": "white", "stone": "wall"})
    r = web.client.post("/api/sim/place", json={"square": "b2", "player": "black"})
    assert r.status_code == 409 and "wall" in r.json()["detail"]
    r = web.client.post("/api/sim/pick-up", json={"square": "d4", "count": 1})
    assert r.status_code == 409 and "d4" in r.json()["detail"]
    r = web.client.post("/api/sim/place", json={"square": "f1", "player": "white"})
    assert r.status_code == 409 and "off a 5x5 board" in r.json()["detail"]
    r = web.client.post("/api/sim/place", json={"square": "j1", "player": "white"})
    assert r.status_code == 422


def test_lay_out_as_recorded_puts_the_game_position_on_the_table(web):
    web.client.post("/api/games", json={"size": 5})
    for p in ("a1", "e5"):
        web.client.post("/api/game/plies", json={"ptn": p})
    web.client.post("/api/sim/place", json={"square": "c3", "player": "white"})
    table = web.client.post("/api/sim/reset").json()
    assert table["stacks"] == {"a1": [[1, 0]], "e5": [[0, 0]]}

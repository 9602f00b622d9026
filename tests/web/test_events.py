"""The WebSocket pushes every event, in order, to every watcher."""

from __future__ import annotations

import json

from websockets.sync.client import connect


def receive_until(ws, wanted: str, limit: int = 20) -> dict:
    for _ in range(limit):
        event = json.loads(ws.recv(timeout=10))
        if event["type"] == wanted:
            return event
    raise AssertionError(f"no {wanted} event in {limit} messages")


def test_watchers_see_game_start_plies_takeback_and_end(web):
    ws_url = web.url.replace("http", "ws") + "/api/events"
    with connect(ws_url) as a, connect(ws_url) as b:
        assert json.loads(a.recv(timeout=10))["type"] == "hello"
        web.client.post("/api/games", json={"size": 5})
        started = receive_until(a, "game_started")
        assert started["data"]["size"] == 5
        web.client.post("/api/game/plies", json={"ptn": "a1"})
        ply = receive_until(a, "ply_committed")
        assert ply["data"] | {"tps": None, "game_id": None} == {
            "game_id": None, "number": 1, "ptn": "a1", "player": 0, "source": "manual",
            "uncertain": False, "margin": None, "tps": None}
        web.client.post("/api/game/takeback", json={"plies": 1})
        assert receive_until(a, "ply_taken_back")["data"]["plies"] == ["a1"]
        web.client.post("/api/game/end", json={"how": "draw"})
        assert receive_until(a, "game_ended")["data"]["result"] == "1/2-1/2"
        # the second watcher saw the same sequence
        seqs = []
        for _ in range(20):
            event = json.loads(b.recv(timeout=10))
            seqs.append(event["seq"])
            if event["type"] == "game_ended":
                break
        assert seqs == sorted(seqs) and seqs[0] == 0


def test_a_closed_watcher_is_forgotten(web):
    ws_url = web.url.replace("http", "ws") + "/api/events"
    with connect(ws_url) as ws:
        ws.recv(timeout=10)
        assert web.board.bus.subscriber_count == 1
    for _ in range(100):
        if web.board.bus.subscriber_count == 0:
            break
        import time

        time.sleep(0.02)
    assert web.board.bus.subscriber_count == 0

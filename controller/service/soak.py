"""Play a scripted game on the simulated board, through everything, and time each ply.

Used by the end-to-end soak test and by `bench/service.py`. The service runs in this process (so
one monotonic clock times everything); the driver talks to it like the page does, over HTTP and the
WebSocket:

    for each ply of the script:
        a hand comes over the board (PUT /api/sim/hand), the pieces move (POST /api/sim/ply),
        the hand leaves (PUT /api/sim/hand)
        -> the simulated camera films it, the real vision reader reads it, the tracker decides,
           the journal records it, the LED firmware (emulated) lights it, the WebSocket tells us

Per ply it records the first still frame after the hand left (the camera's own report of which
table version it filmed), the emulated firmware's ack of the next LED frame and the arrival of the
`ply_committed` event. An `ambiguity` is answered with the script's ply, as a player would tap it.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.sync.client import connect


@dataclass
class PlyTiming:
    number: int
    ptn: str
    still_frame_at: float | None = None
    event_at: float | None = None
    ack_at: float | None = None
    confirmed: bool = False  # answered an ambiguity
    corrected: bool = False  # misread: typed in by hand to carry on (only with correct=True)
    recorded_as: str | None = None  # what the board recorded for this ply
    decided_at: float | None = None  # the tracker's decision on the frame that committed it

    @property
    def latency(self) -> float | None:
        if self.corrected or None in (self.still_frame_at, self.event_at, self.ack_at):
            return None
        return max(self.event_at, self.ack_at) - self.still_frame_at

    @property
    def service_part(self) -> float | None:
        """Tracker decision -> LED ack and WebSocket event: what the service itself adds."""
        if self.latency is None or self.decided_at is None:
            return None
        return max(self.event_at, self.ack_at) - self.decided_at


@dataclass
class SoakResult:
    plies: list[PlyTiming] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)
    final_ptn: str = ""
    recorded: list[str] = field(default_factory=list)


class SoakDriver:
    def __init__(self, url: str, token: str, board) -> None:
        self.url = url
        self.http = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"},
                                 timeout=30)
        self.board = board
        self.events: queue.Queue = queue.Queue()
        self._frames: list[tuple[int | None, float]] = []
        self._acks: list[tuple[int, float]] = []
        self._decisions: list[float] = []
        self._lock = threading.Lock()
        camera, leds = board.camera, board.leds
        camera.observers.append(self._on_camera)
        if leds is not None:
            leds.ack_observers.append(self._on_ack)
        self._stop = threading.Event()
        self._ws_thread = threading.Thread(target=self._listen, daemon=True, name="soak-ws")
        self._ws_ready = threading.Event()
        self._ws_thread.start()
        if not self._ws_ready.wait(10):
            raise RuntimeError("the WebSocket did not connect")

    # --- observers (called on the service's loop) ----------------------------------------------
    def _on_camera(self, name: str, at: float, detail: Any) -> None:
        if name == "decisions" and any(type(d).__name__ == "Commit" for d in detail):
            with self._lock:
                self._decisions.append(at)
        if name == "frame":
            source = self.board.camera.source
            still = not getattr(source, "last_hand", True)
            if still:
                with self._lock:
                    self._frames.append((detail, at))

    def _on_ack(self, generation: int, at: float) -> None:
        with self._lock:
            self._acks.append((generation, at))

    def _listen(self) -> None:
        ws_url = self.url.replace("http", "ws", 1) + "/api/events"
        with connect(ws_url) as ws:
            self._ws_ready.set()
            while not self._stop.is_set():
                try:
                    message = ws.recv(timeout=0.2)
                except TimeoutError:
                    continue
                except Exception:
                    return
                self.events.put((json.loads(message), time.monotonic()))

    def close(self) -> None:
        self._stop.set()
        self._ws_thread.join(5)
        self.http.close()

    # --- playing -------------------------------------------------------------------------------
    def new_game(self, size: int) -> None:
        r = self.http.post("/api/games", json={"size": size, "white": "script", "black": "script"})
        r.raise_for_status()
        self._wait_event("game_started", 10)

    def play(self, plies: list[str], *, ply_timeout: float = 15.0, correct: bool = False,
             grace: float = 3.0, progress=None) -> SoakResult:
        """Play the script. A misread board (illegal/desync with no commit within `grace` s)
        stops the game, or with `correct` the ply is typed in by hand, as a player would, and
        the game goes on (those plies are marked and not timed)."""
        result = SoakResult()
        for index, ptn in enumerate(plies, start=1):
            timing = self._play_one(index, ptn, ply_timeout, result, grace if correct else None)
            wrong = timing.recorded_as is not None and timing.recorded_as != ptn
            if wrong and correct:
                # recorded as another ply: the player takes it back and types the right one
                self.http.post("/api/game/takeback", json={"plies": 1}).raise_for_status()
                timing.event_at = None
            if timing.event_at is None and correct:
                r = self.http.post("/api/game/plies", json={"ptn": ptn})
                if r.status_code == 201:
                    timing.corrected = True
                    self._drain()
            result.plies.append(timing)
            if progress is not None:
                progress(index, len(plies), timing)
            if timing.event_at is None and not timing.corrected:
                break
        game = self.http.get("/api/game").json()
        result.final_ptn = game["ptn"]
        result.recorded = [p["ptn"] for p in game["plies"]]
        return result

    def _put_hand(self, over: bool) -> int:
        r = self.http.put("/api/sim/hand", json={"over": over})
        r.raise_for_status()
        return r.json()["version"]

    def _drain(self) -> None:
        while True:
            try:
                self.events.get_nowait()
            except queue.Empty:
                return

    def _play_one(self, number: int, ptn: str, timeout: float, result: SoakResult,
                  grace: float | None = None) -> PlyTiming:
        timing = PlyTiming(number, ptn)
        self._put_hand(True)
        self.http.post("/api/sim/ply", json={"ptn": ptn}).raise_for_status()
        version = self._put_hand(False)
        with self._lock:
            acks_before = len(self._acks)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                event, at = self.events.get(timeout=0.1)
            except queue.Empty:
                continue
            kind, data = event["type"], event.get("data", {})
            if kind == "ply_committed" and data.get("number") == number:
                timing.event_at = at
                timing.recorded_as = data.get("ptn")
                break
            if kind == "ambiguity":
                candidates = data["candidates"]
                choice = {"ambiguity_id": data["id"]}
                if ptn in candidates:
                    choice["candidate"] = candidates.index(ptn)
                else:
                    choice["ptn"] = ptn
                timing.confirmed = True
                self.http.post("/api/game/ambiguity", json=choice)
            elif kind in ("illegal_state", "desync"):
                result.problems.append({"ply": number, "ptn": ptn, "type": kind, **data})
                if grace is not None:
                    deadline = min(deadline, time.monotonic() + grace)
        # the first still frame that showed the table after the hand left
        with self._lock:
            frames = [at for v, at in self._frames if v is not None and v >= version]
            decided = [at for at in self._decisions
                       if timing.event_at is not None and at <= timing.event_at]
        timing.still_frame_at = frames[0] if frames else None
        timing.decided_at = decided[-1] if decided else None
        if timing.event_at is not None and self.board.leds is not None:
            ack_deadline = time.monotonic() + 5
            while time.monotonic() < ack_deadline:
                with self._lock:
                    acks = [at for _, at in self._acks[acks_before:]
                            if timing.still_frame_at is None or at >= timing.still_frame_at]
                if acks:
                    timing.ack_at = acks[0]
                    break
                time.sleep(0.01)
        return timing

    def _wait_event(self, kind: str, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                event, _ = self.events.get(timeout=0.1)
            except queue.Empty:
                continue
            if event["type"] == kind:
                return event
        raise TimeoutError(f"no {kind} event within {timeout} s")

"""`takboard serve --sim` as a real process, killed with -9 in the middle of a game played on the
virtual table: the emulated LED board dies with it, and the restarted service continues the game
from the journal, recording the next ply from the camera."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.web.server import free_port

TOKEN = "sim-restart-token-0123456789"
REPO = Path(__file__).resolve().parents[2]
AUTH = {"Authorization": f"Bearer {TOKEN}"}
OPENING = ["a1", "e5", "c3"]


def start_sim_service(data: Path, port: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "serve", "--sim", "--size", "5",
         "--host", "127.0.0.1", "--port", str(port), "--data", str(data), "--token", TOKEN],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_until(predicate, timeout: float, what: str, process: subprocess.Popen | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"service exited: {process.stderr.read().decode()[-2000:]}")
        try:
            value = predicate()
        except httpx.TransportError:
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def children_of(pid: int) -> list[int]:
    """Processes whose parent is `pid` (from /proc: no extra package)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split after its closing paren
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited (only its parent may still have to reap it)


def plies(url: str) -> list[str]:
    return [p["ptn"] for p in httpx.get(url + "/api/game", timeout=5).json()["plies"]]


def play_on_the_table(url: str, ptn: str) -> None:
    """A hand comes over the board, moves the pieces, leaves: only the camera can see the ply."""
    with httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
        c.put("/api/sim/hand", json={"over": True}).raise_for_status()
        c.post("/api/sim/ply", json={"ptn": ptn}).raise_for_status()
        c.put("/api/sim/hand", json={"over": False}).raise_for_status()


def ready(url: str) -> bool:
    health = httpx.get(url + "/api/health", timeout=2).json()
    return health["camera"]["state"] == "ok" and health["link"]["state"] == "ready"


@pytest.mark.slow
def test_kill_9_of_serve_sim_takes_the_emulator_along_and_the_restart_records_on(tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    first = start_sim_service(tmp_path, port)
    try:
        wait_until(lambda: ready(url), 90, "camera frames and the LED link", first)
        emulators = children_of(first.pid)
        assert emulators, "the emulated LED board is not a child of the service"
        httpx.post(url + "/api/games", json={"size": 5}, headers=AUTH).raise_for_status()
        for number, ptn in enumerate(OPENING, start=1):
            play_on_the_table(url, ptn)
            wait_until(lambda n=number: len(plies(url)) >= n, 20, f"ply {number} {ptn}", first)
        assert plies(url) == OPENING
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        first.stderr.close()
    # the firmware process goes with the service (it used to live on, holding its pty)
    wait_until(lambda: not any(alive(pid) for pid in emulators), 5, "the emulator to exit")

    second = start_sim_service(tmp_path, port)
    try:
        wait_until(lambda: ready(url), 90, "the restarted service", second)
        emulators = children_of(second.pid)
        game = httpx.get(url + "/api/game", timeout=5).json()
        assert [p["ptn"] for p in game["plies"]] == OPENING
        # the table was laid out as recorded, so the resuming tracker finds the board in sync
        table = httpx.get(url + "/api/sim/board", timeout=5).json()
        assert sorted(table["stacks"]) == sorted(OPENING)
        wait_until(lambda: httpx.get(url + "/api/health", timeout=2).json()["tracker"]
                   == "tracking", 20, "the tracker to find the board as recorded", second)
        play_on_the_table(url, "c4")
        wait_until(lambda: len(plies(url)) >= 4, 20, "the ply after the restart", second)
        assert plies(url) == [*OPENING, "c4"]
        assert httpx.get(url + "/api/game", timeout=5).json()["state"] == "recording"
    finally:
        second.terminate()
        second.wait(20)
        second.stderr.close()
    wait_until(lambda: not any(alive(pid) for pid in emulators), 5, "the emulator to stop")

"""The real app on a real loopback port. `web` gives (server, client, token) around a fresh data
dir."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
import pytest

from controller.service.board import BoardService
from controller.service.config import Settings
from controller.service.virtual_board import VirtualBoard
from controller.store import Journal
from controller.web.app import create_app
from tests.web.server import LiveServer

TOKEN = "test-token-0123456789abcdef"


@dataclass
class Web:
    server: LiveServer
    client: httpx.Client  # sends the token
    anon: httpx.Client  # sends nothing
    board: BoardService

    @property
    def url(self) -> str:
        return self.server.url


def make_web(tmp_path, *, sim: bool = True, **board_parts) -> Web:
    settings = Settings(data_dir=tmp_path, camera="none", serial="none", sim=sim, token=TOKEN)
    holder: dict = {}

    def make_app():
        board = BoardService(settings=settings, journal=Journal(tmp_path / "takboard.db"),
                             virtual_board=VirtualBoard(settings.size) if sim else None,
                             **board_parts)
        holder["board"] = board
        return create_app(board, settings, token=TOKEN)

    server = LiveServer(make_app).start()
    client = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {TOKEN}"},
                          timeout=10)
    anon = httpx.Client(base_url=server.url, timeout=10)
    return Web(server, client, anon, holder["board"])


@pytest.fixture
def web(tmp_path):
    w = make_web(tmp_path)
    try:
        yield w
    finally:
        w.client.close()
        w.anon.close()
        w.server.stop()

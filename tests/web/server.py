"""A real uvicorn server on a loopback port, in a background thread, for tests and the benchmark."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager

import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    def __init__(self, make_app: Callable, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._make_app = make_app
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.app = None

    def start(self, timeout: float = 20.0) -> LiveServer:
        def run() -> None:
            self.loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self.loop)
            self.app = self._make_app()
            config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_config=None,
                                    access_log=False, lifespan="on", ws_max_size=64 * 1024)
            self._server = uvicorn.Server(config)
            self.loop.run_until_complete(self._server.serve())

        self._thread = threading.Thread(target=run, name=f"uvicorn:{self.port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._server is not None and self._server.started:
                return self
            if not self._thread.is_alive():
                raise RuntimeError("the test server stopped while starting")
            time.sleep(0.02)
        raise TimeoutError(f"server on port {self.port} did not start in {timeout}s")

    def call(self, coro, timeout: float = 10.0):
        """Run a coroutine on the server's loop (to reach the board from a test)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=20)


@contextmanager
def live_server(make_app: Callable):
    server = LiveServer(make_app).start()
    try:
        yield server
    finally:
        server.stop()

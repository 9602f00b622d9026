"""A serial line with faults: a pty man-in-the-middle between the link and the emulated board.

The link opens `FaultyLine.path` like a port; every byte is forwarded to the board's pty and back,
after passing through a fault function per direction (drop, flip bits) chosen by the test. Nothing
of the firmware or the link is replaced: only the wire is damaged.
"""

from __future__ import annotations

import os
import select
import threading
import tty
from collections.abc import Callable

Fault = Callable[[bytes], bytes]


def no_fault(data: bytes) -> bytes:
    return data


class FaultyLine:
    def __init__(
        self, upstream: str, to_board: Fault = no_fault, to_host: Fault = no_fault
    ) -> None:
        self.to_board = to_board
        self.to_host = to_host
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # raw before anything flows, or the line discipline edits bytes
        self.path = os.ttyname(self._slave)
        self._upstream = os.open(upstream, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self._upstream)
        self._stop_r, self._stop_w = os.pipe()
        self._thread = threading.Thread(target=self._pump, daemon=True, name="faulty-line")
        self._thread.start()

    def _pump(self) -> None:
        fds = [self._master, self._upstream, self._stop_r]
        while True:
            ready, _, _ = select.select(fds, [], [])
            if self._stop_r in ready:
                return
            for fd in ready:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    continue  # the link has the port closed just now: nothing to forward
                if fd == self._master:
                    out, target = self.to_board(data), self._upstream
                else:
                    out, target = self.to_host(data), self._master
                if out:
                    os.write(target, out)

    def close(self) -> None:
        os.write(self._stop_w, b"x")
        self._thread.join(2)
        for fd in (self._master, self._slave, self._upstream, self._stop_r, self._stop_w):
            os.close(fd)

    def __enter__(self) -> FaultyLine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

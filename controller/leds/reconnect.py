"""The link's connection state and its reconnect policy: capped exponential backoff, quiet logging.

Pure bookkeeping with no clock and no I/O of its own, so it is tested step by step: the link thread
asks `next_delay()` after a failure and waits that long itself.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from enum import Enum

log = logging.getLogger("controller.leds.link")


class LinkState(Enum):
    CONNECTING = "connecting"  # opening the port
    HANDSHAKING = "handshaking"  # PING until PONG, HELLO -> INFO, configuration
    READY = "ready"  # frames flow
    DISCONNECTED = "disconnected"  # waiting out the backoff before the next try
    STOPPED = "stopped"  # stop() was called, or never started


@dataclass
class Backoff:
    """Delays 0.05, 0.1, 0.2, 0.4, 0.5, 0.5 ... s; `reset()` after a success.

    The cap is short on purpose: a re-plugged board should be lit again within two seconds, and a
    failed attempt costs only an open() on a missing path.
    """

    initial: float = 0.05
    factor: float = 2.0
    cap: float = 0.5
    _next: float = field(default=0.0, init=False)

    def next_delay(self) -> float:
        delay = self._next or self.initial
        self._next = min(delay * self.factor, self.cap)
        return min(delay, self.cap)

    def reset(self) -> None:
        self._next = 0.0


class ReconnectLog:
    """Says the first failure of a streak at WARNING and the repeats at DEBUG, so a board left
    unplugged overnight does not fill the log; a recovery is said once at INFO."""

    def __init__(self, port: str, logger: logging.Logger = log) -> None:
        self.port = port
        self.failures_in_a_row = 0
        self._log = logger

    def failed(self, error: BaseException) -> None:
        self.failures_in_a_row += 1
        level = logging.WARNING if self.failures_in_a_row == 1 else logging.DEBUG
        self._log.log(
            level,
            "LED board on %s: %s (attempt %d; retrying)",
            self.port,
            error,
            self.failures_in_a_row,
        )

    def connected(self, description: str) -> None:
        if self.failures_in_a_row:
            self._log.info(
                "LED board on %s is back after %d failed attempts: %s",
                self.port,
                self.failures_in_a_row,
                description,
            )
        else:
            self._log.info("LED board on %s: %s", self.port, description)
        self.failures_in_a_row = 0

"""The event bus: every change the board makes is one `Event`, fanned out to every subscriber.

Subscribers (WebSocket clients, tests, the benchmark) each get their own bounded queue. A
subscriber that
stops reading is dropped rather than allowed to grow memory without bound: its iterator ends, and
the
client reconnects and refetches the state (the page does exactly that).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

# Every event type the service emits; the page and the API docs list the same names.
EVENT_TYPES = (
    "game_started",
    "ply_committed",
    "ply_taken_back",
    "ply_corrected",
    "ply_marked",
    "ambiguity",
    "ambiguity_resolved",
    "ambiguity_withdrawn",
    "illegal_state",
    "desync",
    "in_sync",
    "game_ended",
    "tags_changed",
    "health",
    "leds",
    "camera",
    "sim_board",
    "hint",
    "computer_move",
)


@dataclass(frozen=True)
class Event:
    type: str
    data: dict[str, Any]
    seq: int
    time: float = field(default_factory=time.time)

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "seq": self.seq, "time": self.time, "data": self.data}


_CLOSED = object()


class Subscription:
    def __init__(self, bus: EventBus, maxsize: int) -> None:
        self._bus = bus
        self._queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=maxsize)
        self.dropped = False

    def _offer(self, event: Event) -> bool:
        try:
            self._queue.put_nowait(event)
            return True
        except asyncio.QueueFull:
            self.dropped = True
            # make room for the end marker so the reader learns it was dropped
            with contextlib.suppress(asyncio.QueueEmpty):
                self._queue.get_nowait()
            self._queue.put_nowait(_CLOSED)
            return False

    async def get(self) -> Event | None:
        """The next event, or None once this subscription was closed or dropped."""
        item = await self._queue.get()
        return None if item is _CLOSED else item

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Event]:
        while (event := await self.get()) is not None:
            yield event

    def close(self) -> None:
        self._bus._remove(self)
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(_CLOSED)


class EventBus:
    def __init__(self, *, queue_size: int = 256) -> None:
        self._subscribers: list[Subscription] = []
        self._seq = itertools.count(1)
        self._queue_size = queue_size
        self._listeners: list[Callable[[Event], None]] = []

    def subscribe(self) -> Subscription:
        sub = Subscription(self, self._queue_size)
        self._subscribers.append(sub)
        return sub

    def listen(self, callback: Callable[[Event], None]) -> None:
        """A synchronous listener called in publish order (used for logging and metrics)."""
        self._listeners.append(callback)

    def publish(self, type_: str, data: dict[str, Any] | None = None) -> Event:
        if type_ not in EVENT_TYPES:
            raise ValueError(f"unknown event type {type_!r}")
        event = Event(type=type_, data=data or {}, seq=next(self._seq))
        for callback in self._listeners:
            callback(event)
        for sub in list(self._subscribers):
            if not sub._offer(event):
                log.warning("event subscriber fell behind by %d events: dropped", self._queue_size)
                self._remove(sub)
        return event

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    def _remove(self, sub: Subscription) -> None:
        with contextlib.suppress(ValueError):
            self._subscribers.remove(sub)

"""The event bus: ordered fan-out, and a subscriber that stops reading is dropped, not hoarded."""

from __future__ import annotations

import asyncio

import pytest

from controller.service.events import EventBus


def test_every_subscriber_gets_every_event_in_order():
    async def scenario():
        bus = EventBus()
        a, b = bus.subscribe(), bus.subscribe()
        bus.publish("ply_committed", {"ptn": "a1"})
        bus.publish("ply_committed", {"ptn": "e5"})
        got_a = [(await a.get()).data["ptn"] for _ in range(2)]
        got_b = [(await b.get()).seq for _ in range(2)]
        return got_a, got_b

    got_a, got_b = asyncio.run(scenario())
    assert got_a == ["a1", "e5"]
    assert got_b == [1, 2]


def test_a_subscriber_that_falls_behind_is_dropped_and_told(caplog):
    async def scenario():
        bus = EventBus(queue_size=4)
        slow = bus.subscribe()
        for i in range(10):
            bus.publish("health", {"i": i})
        received = [event async for event in slow]
        return bus.subscriber_count, received

    count, received = asyncio.run(scenario())
    assert count == 0
    assert len(received) < 4  # the iterator ended instead of growing without bound
    assert "fell behind" in caplog.text


def test_unknown_event_type_is_refused():
    with pytest.raises(ValueError, match="unknown event type"):
        EventBus().publish("plie_commited")

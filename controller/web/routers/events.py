"""`/api/events`: a WebSocket that pushes every board event as JSON, in order.

Each message is `{"type": ..., "seq": n, "time": unix, "data": {...}}`. Reading is open
(spectators);
the socket never accepts commands. A client that falls too far behind is disconnected (code 1013)
and
should reconnect and refetch `/api/game`.
"""

from __future__ import annotations

import asyncio
import contextlib

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

router = APIRouter(tags=["events"])


@router.websocket("/api/events")
async def events(websocket: WebSocket) -> None:
    board = websocket.app.state.board
    await websocket.accept()
    sub = board.bus.subscribe()
    # The client speaks only to close; watching for that lets us drop it promptly.
    closed = asyncio.create_task(_wait_closed(websocket))
    try:
        await websocket.send_json({"type": "hello", "seq": 0, "time": 0,
                                   "data": {"health": board.health_report()}})
        while True:
            next_event = asyncio.create_task(sub.get())
            done, _ = await asyncio.wait({next_event, closed}, return_when=asyncio.FIRST_COMPLETED)
            if closed in done:
                next_event.cancel()
                break
            event = next_event.result()
            if event is None:
                await websocket.close(code=1013, reason="fell behind: reconnect and refetch")
                break
            await websocket.send_json(event.as_dict())
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        sub.close()
        closed.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await closed


async def _wait_closed(websocket: WebSocket) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return

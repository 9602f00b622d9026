"""Hints on request: the engine's best ply for the position, searched in a worker thread."""

from __future__ import annotations

import asyncio
from typing import Any

from controller.engine.hints import HintEngine
from controller.engine.limits import Limit

HINT_MOVETIME_MS = 1500


class EngineHints:
    def __init__(self, engine: HintEngine | None = None, movetime_ms: int = HINT_MOVETIME_MS):
        self.engine = engine or HintEngine()
        self.limit = Limit(movetime_ms=movetime_ms)
        self._lock = asyncio.Lock()  # one search at a time; a second ask waits for the first

    async def best_ply(self, position, limit: Limit | None = None) -> tuple[str, dict[str, Any]]:
        """The engine's ply for `position` within `limit` (default: the hint time)."""
        async with self._lock:
            hint = await asyncio.to_thread(self.engine.hint, position, limit=limit or self.limit)
        info = hint.as_json()
        info.pop("best", None)
        info["source"] = hint.source
        info["forced_in"] = hint.forced_in
        return hint.best, info

"""`GET /api/health`: camera fps, vision latency, LED link and journal status, in one JSON."""

from __future__ import annotations

from fastapi import APIRouter

from controller.web import models
from controller.web.deps import BoardDep

router = APIRouter(prefix="/api", tags=["health"])


@router.get("/health", response_model=models.Health, summary="Is every part of the board working?")
async def health(board: BoardDep) -> models.Health:
    return models.Health(**board.health_report())

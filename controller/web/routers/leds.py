"""The LED board: link status, what every square shows now, brightness."""

from __future__ import annotations

from fastapi import APIRouter

from controller.web import models
from controller.web.deps import BoardDep, ControlToken

router = APIRouter(prefix="/api/leds", tags=["leds"])


@router.get("", response_model=models.LedsPublic, summary="Link status and the LEDs as lit")
async def leds(board: BoardDep) -> models.LedsPublic:
    lit = board.leds.lit() if board.leds is not None else {}
    return models.LedsPublic(
        link=board.health.link.as_dict(),
        brightness=lit.get("brightness", 0),
        scene=lit.get("scene", "none"),
        squares=lit.get("squares", {}),
    )


@router.put("/brightness", response_model=models.LedsPublic, summary="Set LED brightness 0..255")
async def brightness(body: models.Brightness, board: BoardDep, _: ControlToken
                     ) -> models.LedsPublic:
    await board.set_brightness(body.brightness)
    return await leds(board)

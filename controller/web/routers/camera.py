"""The camera: status, the latest frame (JPEG), the detected grid and per-square readings,
calibration."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Response, status

from controller.service.errors import UnavailableError
from controller.web import models
from controller.web.deps import BoardDep, ControlToken

router = APIRouter(prefix="/api/camera", tags=["camera"])


def _camera(board):
    if board.camera is None:
        raise UnavailableError("no camera on this board (camera source = none)")
    return board.camera


@router.get("", response_model=models.CameraStatus,
            summary="Camera and vision status, with the grid and readings to draw over the frame")
async def camera_status(board: BoardDep) -> models.CameraStatus:
    report = board.health_report()
    overlay = board.camera.overlay() if board.camera is not None else {}
    return models.CameraStatus(camera=report["camera"], vision=report["vision"], overlay=overlay)


@router.get("/frame.jpg", response_class=Response, summary="The latest camera frame as JPEG",
            responses={200: {"content": {"image/jpeg": {}}}, 503: {"model": models.Problem}})
async def frame(board: BoardDep) -> Response:
    jpeg = await asyncio.to_thread(_camera(board).latest_jpeg)
    if jpeg is None:
        raise UnavailableError("the camera has not delivered a frame yet")
    return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


@router.put("/calibration", status_code=status.HTTP_204_NO_CONTENT,
            summary="Set the four grid corners by hand (image pixels) when markers are not found")
async def calibrate(body: models.Corners, board: BoardDep, _: ControlToken) -> Response:
    _camera(board).calibrate([(float(x), float(y)) for x, y in body.corners])
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete("/calibration", status_code=status.HTTP_204_NO_CONTENT,
               summary="Forget hand-set corners and find the board by its markers again")
async def reset_calibration(board: BoardDep, _: ControlToken) -> Response:
    _camera(board).calibrate([])
    return Response(status_code=status.HTTP_204_NO_CONTENT)

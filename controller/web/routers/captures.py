"""Bug reports: save the camera's last minute (readings, views, the game) in one file, list them,
download one. `takboard capture replay FILE` runs a downloaded one through the tracker again."""

from __future__ import annotations

import asyncio
import datetime
from typing import Annotated

from fastapi import APIRouter, Path, status
from fastapi.responses import FileResponse

from controller.service.capture import NAME
from controller.service.errors import NotFoundError
from controller.web import models
from controller.web.deps import BoardDep, ControlToken

router = APIRouter(prefix="/api/captures", tags=["captures"])

CaptureName = Annotated[str, Path(max_length=64, pattern=NAME.pattern,
                                  description="a name from the list")]  # fmt: skip


def _folder(board):
    return board.settings.data_path / "captures"


@router.post("", status_code=status.HTTP_201_CREATED, response_model=models.CaptureSaved,
             summary="Save a bug report: the last minute of camera readings and views, the game")
async def save(body: models.CaptureRequest, board: BoardDep,
               _: ControlToken) -> models.CaptureSaved:  # fmt: skip
    path, readings = await board.save_capture(body.note)
    return models.CaptureSaved(name=path.name, url=f"/api/captures/{path.name}",
                               bytes=path.stat().st_size, readings=readings)


@router.get("", response_model=list[models.CaptureListed],
            summary="Saved bug reports, newest first")
async def list_captures(board: BoardDep) -> list[models.CaptureListed]:
    folder = _folder(board)
    paths = await asyncio.to_thread(lambda: sorted(folder.glob("capture-*.zip")))
    out = []
    for path in reversed(paths):  # (names sort by the time they were saved)
        stat = path.stat()
        saved = datetime.datetime.fromtimestamp(stat.st_mtime).astimezone()
        out.append(models.CaptureListed(name=path.name, url=f"/api/captures/{path.name}",
                                        bytes=stat.st_size,
                                        saved=saved.isoformat(timespec="seconds")))
    return out


@router.get("/{name}", response_class=FileResponse, summary="Download a bug report (.zip)",
            responses={200: {"content": {"application/zip": {}}}, 404: {"model": models.Problem}})
async def download(name: CaptureName, board: BoardDep) -> FileResponse:
    path = _folder(board) / name  # (the name matched NAME: no separators, no "..")
    if not NAME.match(name) or not path.is_file():
        raise NotFoundError(f"no bug report named {name!r}")
    return FileResponse(path, media_type="application/zip", filename=name)

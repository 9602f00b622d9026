"""The game library: every recorded game, its PTN, and deleting one."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Path, Response, status

from controller.service.errors import GameOverError
from controller.service.marks import annotated_ptn
from controller.web import models
from controller.web.convert import ply_public, ptn_ninja_url, summary_public
from controller.web.deps import BoardDep, ControlToken

router = APIRouter(prefix="/api/library", tags=["library"])

GameIdPath = Annotated[int, Path(ge=1, le=2**53, description="game id from the library list")]


@router.get("", response_model=list[models.GameSummaryPublic], summary="Every game, newest first")
async def list_games(board: BoardDep) -> list[models.GameSummaryPublic]:
    games = await asyncio.to_thread(board.session.journal.games)
    return [summary_public(g) for g in games]


@router.get("/{game_id}", response_model=models.GameDetail, summary="One game with its plies")
async def view_game(game_id: GameIdPath, board: BoardDep) -> models.GameDetail:
    journal = board.session.journal
    record = await asyncio.to_thread(journal.game, game_id)
    ptn = await asyncio.to_thread(annotated_ptn, journal, game_id, board.marks)
    plies = [ply_public(p) for p in board.session.plies_of(record)]
    return models.GameDetail(summary=summary_public(record), tags=record.tags, plies=plies,
                             ptn=ptn, ptn_ninja_url=ptn_ninja_url(ptn))


@router.get("/{game_id}/ptn", response_class=Response, summary="Download the game as a .ptn file",
            responses={200: {"content": {"application/x-ptn": {}}}})
async def download_ptn(game_id: GameIdPath, board: BoardDep) -> Response:
    ptn = await asyncio.to_thread(annotated_ptn, board.session.journal, game_id, board.marks)
    # The file name is built from the numeric id only, never from text in the request.
    filename = f"takboard-game-{int(game_id)}.ptn"
    return Response(ptn, media_type="application/x-ptn; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@router.delete("/{game_id}", status_code=status.HTTP_204_NO_CONTENT, summary="Delete a game")
async def delete_game(game_id: GameIdPath, board: BoardDep, _: ControlToken) -> Response:
    journal = board.session.journal
    await asyncio.to_thread(journal.game, game_id)  # 404 first for an unknown id
    if board.session.game_id == game_id and board.session.result is None:
        raise GameOverError(f"game {game_id} is in progress: end it before deleting it")
    await asyncio.to_thread(journal.delete, game_id)
    board.session.forget(game_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)

"""The game in progress: read it, start one, play/confirm/correct/take back plies, end it, tag
it, hint."""

from __future__ import annotations

from fastapi import APIRouter, status

from controller.service.errors import BadRequestError
from controller.service.opponent import SIDES, Opponent
from controller.tak import Ply
from controller.web import models
from controller.web.convert import game_public
from controller.web.deps import BoardDep, ControlToken

router = APIRouter(prefix="/api", tags=["game"])


@router.get("/game", response_model=models.GamePublic, summary="The current game and position")
async def current_game(board: BoardDep) -> models.GamePublic:
    board.require_game()
    return game_public(await board.snapshot())


@router.get("/game/plies", response_model=list[models.PlyPublic], summary="Plies so far")
async def plies(board: BoardDep) -> list[models.PlyPublic]:
    board.require_game()
    return game_public(await board.snapshot()).plies


@router.post("/games", response_model=models.GamePublic, status_code=status.HTTP_201_CREATED,
             summary="Start a new game (an unfinished one is closed as aborted, 0-0)")
async def new_game(body: models.NewGame, board: BoardDep, _: ControlToken) -> models.GamePublic:
    computer = None
    if body.computer is not None:
        computer = Opponent(SIDES[body.computer], body.strength)
    view = await board.new_game(size=body.size, komi=int(body.komi * 2),
                                players=(body.white, body.black), opening=body.opening,
                                computer=computer)
    return game_public(view)


@router.post("/game/plies", response_model=models.PlyResult, status_code=status.HTTP_201_CREATED,
             summary="Record a ply typed by hand (PTN)")
async def play(body: models.PlyIn, board: BoardDep, _: ControlToken) -> models.PlyResult:
    board.require_game()
    played = await board.play(Ply.from_ptn(body.ptn.strip()), source="manual")
    return models.PlyResult(ptn=played.ptn(), game=game_public(await board.snapshot()))


@router.put("/game/plies/last", response_model=models.PlyResult,
            summary="Correct the last ply: the board shows this one (PTN), not the one recorded")
async def correct_last(body: models.PlyIn, board: BoardDep, _: ControlToken) -> models.PlyResult:
    board.require_game()
    played = await board.correct_last(Ply.from_ptn(body.ptn.strip()))
    return models.PlyResult(ptn=played.ptn(), game=game_public(await board.snapshot()))


@router.post("/game/ambiguity", response_model=models.PlyResult,
             summary="Confirm one candidate of an ambiguous ply, or correct it with another ply")
async def resolve(body: models.Resolve, board: BoardDep, _: ControlToken) -> models.PlyResult:
    board.require_game()
    if (body.candidate is None) == (body.ptn is None):
        raise BadRequestError("give exactly one of 'candidate' (an index) or 'ptn' (a ply)")
    choice = body.candidate if body.candidate is not None else Ply.from_ptn(body.ptn)
    played = await board.resolve(body.ambiguity_id, choice)
    return models.PlyResult(ptn=played.ptn(), game=game_public(await board.snapshot()))


@router.delete("/game/ambiguity", response_model=models.GamePublic,
               summary="Answer an ambiguous ply with: none of these, nothing was played")
async def decline(board: BoardDep, _: ControlToken,
                  ambiguity_id: int | None = None) -> models.GamePublic:  # fmt: skip
    """The camera asked about a board that barely changed (a hand only straightened a piece):
    nothing is recorded, and the camera carries on from the board as it is."""
    board.require_game()
    await board.decline_question(ambiguity_id)
    return game_public(await board.snapshot())


@router.post("/game/in-sync", response_model=models.GamePublic,
             summary="The board shows the game as recorded: the camera misreads it, go on")
async def board_is_right(board: BoardDep, _: ControlToken) -> models.GamePublic:
    """The camera reports the board wrong (illegal, out of sync) where it is right: a piece it
    misreads all along. It goes on from the board as it is, and the alarm ends. 409 while its
    question waits (answer that), 503 before it has seen the board since the game changed."""
    board.require_game()
    await board.board_is_right()
    return game_public(await board.snapshot())


@router.post("/game/takeback", response_model=models.TakeBackResult, summary="Take back plies")
async def take_back(body: models.TakeBack, board: BoardDep, _: ControlToken
                    ) -> models.TakeBackResult:
    board.require_game()
    undone = await board.take_back(body.plies)
    return models.TakeBackResult(undone=undone, game=game_public(await board.snapshot()))


@router.post("/game/end", response_model=models.GamePublic, summary="Resign or agree a draw")
async def end(body: models.EndGame, board: BoardDep, _: ControlToken) -> models.GamePublic:
    board.require_game()
    if body.how == "draw":
        result, reason = "1/2-1/2", "draw agreed"
    else:
        if body.player is None:
            raise BadRequestError("resign needs 'player': who resigns, white or black")
        result = "0-1" if body.player == "white" else "1-0"
        reason = f"{body.player} resigned"
    await board.finish(result, reason)
    return game_public(await board.snapshot())


@router.patch("/game/tags", response_model=models.GamePublic,
              summary="Set tags (null removes one); Size, Komi, Result and Opening are fixed")
async def set_tags(body: models.TagsIn, board: BoardDep, _: ControlToken) -> models.GamePublic:
    board.require_game()
    await board.set_tags(body.tags)
    return game_public(await board.snapshot())


@router.post("/game/hint", response_model=models.HintPublic,
             summary="Ask the hint engine for a ply (503 when no engine is available)")
async def hint(board: BoardDep, _: ControlToken) -> models.HintPublic:
    board.require_game()
    answer = await board.hint()
    ptn = answer.pop("ptn")
    return models.HintPublic(ptn=ptn, info=answer)

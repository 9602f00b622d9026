"""`--sim` only: hands on the virtual board. Place a piece, pick up and spread a stack, knock a
stack
over, hold a hand over the board. The board changes; the simulated camera films it; the real vision
and tracking code decide what happened. Nothing here touches the game record directly."""

from __future__ import annotations

from fastapi import APIRouter

from controller.service.virtual_board import CAP, FLAT, WALL, VirtualBoard
from controller.tak import Ply
from controller.web import models
from controller.web.deps import BoardDep, ControlToken

router = APIRouter(prefix="/api/sim", tags=["sim"])

STONES = {"flat": FLAT, "wall": WALL, "cap": CAP}
PLAYERS = {"white": 0, "black": 1}


def _vb(board) -> VirtualBoard:
    return board.virtual_board


def _changed(board) -> models.SimBoardPublic:
    scene = _vb(board).scene().as_dict()
    board.bus.publish("sim_board", scene)
    return models.SimBoardPublic(**scene)


@router.get("/board", response_model=models.SimBoardPublic, summary="The table as it is now")
async def table(board: BoardDep) -> models.SimBoardPublic:
    return models.SimBoardPublic(**_vb(board).scene().as_dict())


@router.post("/place", response_model=models.SimBoardPublic, summary="Put a piece on a square")
async def place(body: models.SimPlace, board: BoardDep, _: ControlToken) -> models.SimBoardPublic:
    if body.player == "to_move":  # decided here, by the game as it is now: a page that has not
        # yet heard of a new game would otherwise put down the old game's colour
        position = board.session.position
        player = position.placing_color if position is not None else PLAYERS["white"]
    else:
        player = PLAYERS[body.player]
    _vb(board).place(body.square, player, STONES[body.stone])
    return _changed(board)


@router.post("/pick-up", response_model=models.SimBoardPublic,
             summary="Lift the top pieces of a stack (the hand stays over the board)")
async def pick_up(body: models.SimPickUp, board: BoardDep, _: ControlToken
                  ) -> models.SimBoardPublic:
    _vb(board).pick_up(body.square, body.count)
    return _changed(board)


@router.post("/drop", response_model=models.SimBoardPublic,
             summary="Drop pieces from the bottom of the hand")
async def drop(body: models.SimDrop, board: BoardDep, _: ControlToken) -> models.SimBoardPublic:
    _vb(board).drop(body.square, body.count)
    return _changed(board)


@router.post("/spread", response_model=models.SimBoardPublic,
             summary="Pick up a stack and spread it in one go")
async def spread(body: models.SimSpread, board: BoardDep, _: ControlToken
                 ) -> models.SimBoardPublic:
    _vb(board).spread(body.square, body.direction, list(body.drops))
    return _changed(board)


@router.post("/knock-over", response_model=models.SimBoardPublic,
             summary="Knock a stack over: its pieces fall along a direction")
async def knock_over(body: models.SimKnock, board: BoardDep, _: ControlToken
                     ) -> models.SimBoardPublic:
    _vb(board).knock_over(body.square, body.direction)
    return _changed(board)


@router.post("/take-back-piece", response_model=models.SimBoardPublic,
             summary="Take the top piece of a square back to the reserve")
async def take_piece(body: models.SimSquare, board: BoardDep, _: ControlToken
                     ) -> models.SimBoardPublic:
    _vb(board).remove_top(body.square)
    return _changed(board)


@router.put("/hand", response_model=models.SimBoardPublic,
            summary="Hold a hand over the board (over=true) or take it away")
async def hand(body: models.SimHand, board: BoardDep, _: ControlToken) -> models.SimBoardPublic:
    _vb(board).set_hand_over(body.over)
    return _changed(board)


@router.post("/ply", response_model=models.SimBoardPublic,
             summary="Move the pieces for a PTN ply by hand (the camera still has to see it)")
async def ply(body: models.SimPly, board: BoardDep, _: ControlToken) -> models.SimBoardPublic:
    move = Ply.from_ptn(body.ptn.strip())
    vb = _vb(board)
    if move.is_placement:
        position = board.session.position
        # plies 1 and 2 place the opponent's flat (Tak's opening rule, swap variant)
        mover = position.to_move if position is not None else 0
        opening_swap = position is not None and position.ply_count < 2 and (
            board.session.journal.game(board.session.game_id).opening == "swap")
        colour = 1 - mover if opening_swap else mover
        for _i in range(move.count if move.count else 1):
            vb.place(move.square, colour, move.stone)
    else:
        vb.spread(move.square, move.direction, list(move.drops))
    return _changed(board)


@router.post("/reset", response_model=models.SimBoardPublic,
             summary="Lay the pieces out as the game says they should be (fixes a desync)")
async def reset(board: BoardDep, _: ControlToken) -> models.SimBoardPublic:
    position = board.session.position
    if position is None:
        _vb(board).reset()
    else:
        _vb(board).reset(position.size, {sq: list(st) for sq, st in position.stacks().items()})
    return _changed(board)

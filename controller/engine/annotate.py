"""Automatic `'` (tak) and `''` (tinue) marks for a recorded game.

A ply gets `'` when, after it, its player threatens a road in one (the opponent must answer), and
`''` when no answer exists: whatever the opponent plays, the road comes within `tinue_depth` of the
attacker's plies (1 = every reply leaves a road in one). A ply that ends the game gets no mark.
Exact, by the rules; a per-ply node budget keeps a pathological position from stalling the service
(over budget, the ply keeps its `'` and is not claimed as tinue).
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.engine.board import BoardError, Position, from_tps, new_position
from controller.engine.tactics import Budget, is_tinue, threatens

TAK = "'"
TINUE = "''"


def annotate_plies(
    plies: Iterable[str],
    *,
    size: int = 5,
    komi: int = 0,
    tps: str | None = None,
    flats: tuple[int, int] | None = None,
    caps: tuple[int, int] | None = None,
    opening: str = "swap",
    tinue_depth: int = 1,
    node_budget: int = 50_000,
) -> list[str]:
    """One mark per ply: "", "'" or "''". Plies are PTN; an illegal one raises BoardError."""
    if tps is None:
        board = new_position(size, komi=komi, flats=flats, caps=caps, opening=opening)
    else:
        board = from_tps(tps, komi=komi, flats=flats, caps=caps, opening=opening)
    return _annotate(board, plies, tinue_depth, node_budget)


def annotate_game(game: object, *, tinue_depth: int = 1, node_budget: int = 50_000) -> list[str]:
    """Marks for a `controller.tak.ptn.Game` (its start position, komi, reserves and opening)."""
    from controller.engine.hints import to_board

    board = to_board(game.start_position())  # type: ignore[attr-defined]
    plies = [record.ply.ptn() for record in game.moves]  # type: ignore[attr-defined]
    return _annotate(board, plies, tinue_depth, node_budget)


def _annotate(
    board: Position, plies: Iterable[str], tinue_depth: int, node_budget: int
) -> list[str]:
    marks: list[str] = []
    for number, text in enumerate(plies, start=1):
        try:
            ply = board.parse_ply(text)
        except BoardError as exc:
            raise type(exc)(f"ply {number} {text!r}: {exc}") from None
        board.push(ply)
        mover = 1 - board.to_move
        mark = ""
        if not board.is_over and threatens(board, mover):
            mark = TAK
            if is_tinue(board, mover, tinue_depth, Budget(node_budget)):
                mark = TINUE
        marks.append(mark)
    return marks

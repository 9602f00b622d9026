"""A recorded game as PTN text, through the rules engine's own writer (no second serialiser).

What the recorder adds on top of plain PTN: a ply it was unsure of carries the `?` annotation and a
comment after it naming the other plies that explained the board about as well, e.g.
`3c3+12? {unsure: also 3c3+21}`. Size and Komi tags are always written. A ply may also carry a tak
(`'`) or tinue (`''`) mark, which the caller works out (the engine does: see
`controller/service/marks.py`); the store itself knows no tactics.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from controller.tak import Ply, Position, ptn


@dataclass(frozen=True)
class PlyNote:
    ply: Ply
    uncertain: bool = False
    alternatives: tuple[Ply, ...] = ()
    reason: str = ""  # written in the comment of an unsure ply, not kept in the journal
    mark: str = ""  # "'" tak or "''" tinue, written before any "?"


def unsure_comment(alternatives: Sequence[Ply], reason: str = "") -> str:
    """The comment text written after an unsure ply."""
    text = "unsure"
    if alternatives:
        text += ": also " + ", ".join(alt.ptn() for alt in alternatives)
    if reason:
        text += f" ({reason})"
    return text


def game_ptn(
    *,
    size: int,
    komi: int = 0,
    opening: str = "swap",
    plies: Sequence[PlyNote],
    tags: Mapping[str, str] | None = None,
    result: str | None = None,
    closing_comment: str = "",
) -> str:
    """PTN of a game from its plies (replayed, so an illegal list raises `IllegalPlyError`);
    `closing_comment` is written after the last ply (what a reader of the game must know about
    how it was recorded as a whole)."""
    position = Position(size, komi=komi, opening=opening)
    for note in plies:
        position.play(note.ply)
    # from_position writes Size (and Opening, reserves); Komi always, as the recorder promises.
    all_tags: dict[str, str] = {"Komi": ptn.format_komi(komi), **(tags or {})}
    if result:
        all_tags["Result"] = result
    game = ptn.Game.from_position(position, tags=all_tags)
    moves = list(game.moves)
    for index, note in enumerate(plies):
        if note.mark:
            moves[index] = dataclasses.replace(moves[index], annotation=note.mark)
        if note.uncertain:
            record = moves[index]
            moves[index] = dataclasses.replace(
                record,
                annotation=note.mark + "?",
                comments_after=[
                    *record.comments_after, unsure_comment(note.alternatives, note.reason)
                ],
            )
    if closing_comment and moves:
        last = moves[-1]
        moves[-1] = dataclasses.replace(
            last, comments_after=[*last.comments_after, closing_comment]
        )
    game.moves = moves
    if result:
        game.result_token = result
    return ptn.write_game(game)

"""Checking recorded games: legal to the end, nothing played after the end, results that agree.

Pure logic over `Game` objects (reading files is the caller's job), so the archive checker, the
recorder and the tests share one definition of "this game is sound".

>>> from controller.tak.ptn import parse_game
>>> report = check_game(parse_game('[Size "3"]\\n\\n1. a1 c3 2. a3 R-0'))
>>> report.ok, report.plies, report.error
(False, 3, 'recorded result R-0 but the board says the game is not over')
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from controller.tak.errors import PTNError, TakError
from controller.tak.outcome import Outcome
from controller.tak.ptn import Game


@dataclass
class GameReport:
    index: int
    tags: dict[str, str] = field(default_factory=dict)
    ok: bool = True
    plies: int = 0  # plies replayed legally
    error: str | None = None  # the first problem, in words
    error_ply: int | None = None  # its ply number (1 = the first ply of the game), if any
    result_recorded: str | None = None
    result_board: str | None = None  # None while the game on the board is not over

    def as_dict(self) -> dict:
        return asdict(self)


def _where(ply_number: int, token: str) -> str:
    return f'ply {ply_number} "{token}"'


def results_agree(recorded: str, board: Outcome | None) -> bool:
    """Whether a recorded result fits the board: a road or flat win needs that end on the board;
    a resignation, time loss or agreed draw needs a winner that agrees (or an unfinished board)."""
    if recorded in ("0-0", "*"):
        return True
    claim = Outcome.from_result(recorded)
    if board is None:
        return claim.reason in ("other", "draw")
    if claim.winner != board.winner:
        return False
    return claim.reason not in ("road", "flats") or claim.reason == board.reason


def check_game(game: Game) -> GameReport:
    report = GameReport(index=game.index, tags=dict(game.tags.items()))
    report.result_recorded = game.result
    try:
        pos = game.start_position()
    except (PTNError, TakError, ValueError) as err:
        report.ok, report.error = False, getattr(err, "why", None) or str(err)
        return report
    first = pos.ply_count + 1
    for number, record in enumerate(game.moves, start=first):
        token = record.token or record.ply.ptn()
        over = pos.outcome()
        if over is not None:
            report.error = (
                f"{_where(number, token)}: played after the game was decided "
                f"({over.result()} at ply {number - 1})"
            )
            report.error_ply = number
            break
        why = pos.why_illegal(record.ply)
        if why is not None:
            report.error, report.error_ply = f"{_where(number, token)}: {why}", number
            break
        pos.push(record.ply)
        report.plies += 1
    board = pos.outcome()
    report.result_board = board.result() if board else None
    if report.error is None and game.errors:
        err = game.errors[0]
        text = f'"{err.token}": {err.why}' if err.token else err.why
        if err.ply is not None:
            text = f"ply {err.ply} {text}"
        elif err.line is not None:
            text = f"line {err.line}: {text}"
        report.error, report.error_ply = text, err.ply
    if report.error is None:
        tag = (game.tag("result") or "").strip()
        if game.result_token and tag and tag != game.result_token:
            report.error = f"the Result tag says {tag} but the moves end with {game.result_token}"
    if report.error is None and report.result_recorded:
        try:
            agree = results_agree(report.result_recorded, board)
        except TakError as err:
            report.error = str(err)
        else:
            if not agree:
                says = board.result() if board else "the game is not over"
                report.error = f"recorded result {report.result_recorded} but the board says {says}"
    report.ok = report.error is None
    return report

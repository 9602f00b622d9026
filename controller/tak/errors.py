"""The rules engine's exceptions: one type per family of bad input, all `ValueError`s.

Every message quotes the offending text and says why it is wrong, so a user reading a log line can
find the problem without a debugger.
"""

from __future__ import annotations


class TakError(ValueError):
    """Base of every error the rules engine raises on bad input."""


class InvalidPlyError(TakError):
    """Ply text or a ply value that is malformed whatever the position (`a9`, `3a1>12`)."""


class IllegalPlyError(TakError):
    """A well-formed ply that the rules forbid in the position it was played in.

    When raised while replaying a game, `game_index`, `ply_number`, `token` and `why` say where.
    """

    game_index: int | None = None
    ply_number: int | None = None
    token: str | None = None
    why: str | None = None


class TPSError(TakError):
    """A TPS string that does not describe a valid position."""


class PTNError(TakError):
    """Malformed PTN, located as precisely as the reader knows.

    >>> why = "drops sum to 3 but count is 12"
    >>> str(PTNError("games.ptn", 2, None, None, "12d4-12", why, ply=35))
    'games.ptn: game 2, ply 35 "12d4-12": drops sum to 3 but count is 12'
    """

    def __init__(
        self,
        filename: str | None,
        game_index: int | None,
        line: int | None,
        column: int | None,
        token: str | None,
        why: str,
        *,
        ply: int | None = None,
    ) -> None:
        self.filename = filename
        self.game_index = game_index
        self.line = line
        self.column = column
        self.token = token
        self.why = why
        self.ply = ply
        super().__init__(self._message())

    def _message(self) -> str:
        where: list[str] = []
        if self.game_index is not None:
            where.append(f"game {self.game_index}")
        if self.ply is not None:
            where.append(f"ply {self.ply}")
        if self.line is not None and self.ply is None:  # a ply number is the better address
            where.append(
                f"line {self.line}" + (f":{self.column}" if self.column is not None else "")
            )
        text = ", ".join(where)
        if self.token is not None:
            text = f'{text} "{self.token}"' if text else f'"{self.token}"'
        prefix = f"{self.filename}: " if self.filename else ""
        return f"{prefix}{text}: {self.why}" if text else f"{prefix}{self.why}"

    def __reduce__(self):  # keep pickling working despite the custom __init__
        return (
            _rebuild_ptn_error,
            (
                self.filename,
                self.game_index,
                self.line,
                self.column,
                self.token,
                self.why,
                self.ply,
            ),
        )


def _rebuild_ptn_error(filename, game_index, line, column, token, why, ply) -> PTNError:
    return PTNError(filename, game_index, line, column, token, why, ply=ply)

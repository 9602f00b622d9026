"""The service's own domain errors. The web layer maps each family to one HTTP status, once."""

from __future__ import annotations


class ServiceError(Exception):
    """Base: a request the board cannot honour right now; the message says why."""


class NoGameError(ServiceError):
    """There is no game in progress (start one first)."""


class GameOverError(ServiceError):
    """The game has a result already: it takes no more plies."""


class NothingPendingError(ServiceError):
    """No ambiguity is waiting to be resolved, or the one referred to was already resolved."""


class QuestionWaitingError(ServiceError):
    """The camera's question about the last ply waits for an answer, which comes first."""


class NotFoundError(ServiceError):
    """A game, candidate or resource that does not exist."""


class UnavailableError(ServiceError):
    """A part of the board is missing or down (camera, LED link, hint engine, simulator)."""


class BadRequestError(ServiceError):
    """Well-formed but unusable input (e.g. a calibration whose corners cross)."""


class WrongMoveError(ServiceError):
    """The board shows a ply other than the computer's: not recorded; the squares to fix blink."""

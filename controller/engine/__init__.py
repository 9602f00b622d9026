"""Hint search and the TEI engine protocol (client and server). See docs/engine.md."""

from controller.engine.annotate import annotate_game, annotate_plies
from controller.engine.board import BoardError
from controller.engine.hints import Hint, HintEngine, to_board
from controller.engine.limits import EngineError, EngineTerminatedError, Limit
from controller.engine.search import Searcher, SearchResult
from controller.engine.tactics import is_tinue, threatens, winning_plies
from controller.engine.tei_client import TeiEngine

__all__ = [
    "BoardError",
    "EngineError",
    "EngineTerminatedError",
    "Hint",
    "HintEngine",
    "Limit",
    "SearchResult",
    "Searcher",
    "TeiEngine",
    "annotate_game",
    "annotate_plies",
    "is_tinue",
    "threatens",
    "to_board",
    "winning_plies",
]

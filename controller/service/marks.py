"""Tak (`'`) and tinue (`''`) marks for recorded games, worked out by the engine.

A ply gets `'` when its player then threatens a road in one, `''` when no reply stops the road
(`controller/engine/annotate.py` says exactly how). The journal stores plies, not opinions, so the
marks are computed when a game is exported, and the running board keeps them per game so that each
new ply costs one position's check, not the whole game's.
"""

from __future__ import annotations

import threading

from controller.engine.annotate import annotate_plies
from controller.store import GameRecord, Journal
from controller.tak import Position

# Nodes the tinue check may search per ply: past it a ply keeps its `'` and is not called tinue.
NODE_BUDGET = 20_000


def game_marks(record: GameRecord) -> list[str]:
    """The mark of every ply of a recorded game, in order."""
    return _marks_from(record, 0)


def _marks_from(record: GameRecord, start: int) -> list[str]:
    """Marks of plies `start`.. of the game (the earlier ones are replayed, not judged)."""
    if start >= len(record.plies):
        return []
    position = Position(record.size, komi=record.komi, opening=record.opening)
    for entry in record.plies[:start]:
        position.play(entry.ply)
    rest = [entry.ply.ptn() for entry in record.plies[start:]]
    tps = position.tps() if start else None  # from the start: the game's own opening rules
    return annotate_plies(rest, size=record.size, komi=record.komi, opening=record.opening,
                          tps=tps, node_budget=NODE_BUDGET)  # fmt: skip


def annotated_ptn(journal: Journal, game_id: int, cache: MarkCache | None = None) -> str:
    """A game's PTN with its tak/tinue marks (and the recorder's `?` on unsure plies)."""
    record = journal.game(game_id)
    marks = cache.marks(record) if cache is not None else game_marks(record)
    return journal.export_ptn(record.id, marks=marks)


class MarkCache:
    """Marks per game, extended ply by ply; a takeback or another game starts over. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[int, tuple[list[str], list[str]]] = {}  # id -> (plies, marks)

    def peek(self, record: GameRecord) -> list[str]:
        """The marks already known for this game's plies (a prefix; never computes)."""
        plies = [entry.ply.ptn() for entry in record.plies]
        with self._lock:
            known_plies, marks = self._known.get(int(record.id), ([], []))
        same = 0
        while same < min(len(plies), len(known_plies)) and plies[same] == known_plies[same]:
            same += 1
        return marks[:same]

    def marks(self, record: GameRecord) -> list[str]:
        """Every ply's mark, computing only the plies not seen before."""
        known = self.peek(record)
        marks = known + _marks_from(record, len(known))
        with self._lock:
            self._known[int(record.id)] = ([entry.ply.ptn() for entry in record.plies], marks)
        return marks

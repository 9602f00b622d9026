"""What the service calls: a hint for a position, from an external TEI engine or the built-in one.

    engine = HintEngine()                                   # built-in search only
    engine = HintEngine(external=["tiltak", "tei"])         # external first, built-in on failure
    hint = engine.hint(position, limit=Limit(movetime_ms=2000))
    hint.best, hint.score, hint.pv, hint.depth, hint.nodes, hint.source

`position` may be a `controller.tak.Position` (anything with `tps()`, `komi`, `reserves(player)`),
or a TPS string; it is copied, never changed. If the external engine fails (dies, times out,
answers nonsense) the failure is logged once at WARNING with the reason, the engine is dropped,
and the built-in search answers; `hint.source` says which one did.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from dataclasses import dataclass, field

from controller.engine.board import BoardError, Position, from_tps
from controller.engine.limits import EngineError, Limit
from controller.engine.search import WIN, WIN_BOUND, Searcher
from controller.engine.tei_client import TeiEngine

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Hint:
    best: str  # the ply in PTN
    score: int  # centiflats for the player to move; +-(1_000_000 - plies) = forced road/flat win
    pv: list[str] = field(default_factory=list)
    depth: int = 0
    nodes: int = 0
    source: str = "builtin"

    @property
    def forced_in(self) -> int | None:
        """Plies to a forced game end (positive score: the mover wins), else None."""
        return WIN - abs(self.score) if abs(self.score) > WIN_BOUND else None

    def as_json(self) -> dict:
        return {
            "best": self.best,
            "score": self.score,
            "pv": list(self.pv),
            "depth": self.depth,
            "nodes": self.nodes,
        }


def to_board(position: object, *, komi: int | None = None) -> Position:
    """A `Position` for the search: a copy of a `controller.tak.Position`, or one from TPS."""
    if isinstance(position, Position):
        board = position.copy()
        if komi is not None:
            board.komi = komi
        return board
    if isinstance(position, str):
        return from_tps(position, komi=komi or 0)
    tps = getattr(position, "tps", None)
    if not callable(tps):
        raise TypeError(f"cannot make an engine board from {type(position).__name__}")
    board = from_tps(
        tps(),
        komi=getattr(position, "komi", 0) if komi is None else komi,
        opening=getattr(position, "opening", "swap"),
    )
    reserves = getattr(position, "reserves", None)
    if callable(reserves):
        flats, caps = board.reserve_lists()
        for player in (0, 1):
            flats[player], caps[player] = reserves(player)
    return board


class HintEngine:
    def __init__(self, external: list[str] | None = None, *, searcher: Searcher | None = None):
        self.external_command = external
        self.searcher = searcher or Searcher()
        self._external: TeiEngine | None = None
        self._external_failed = False
        self._lock = threading.Lock()  # one search at a time: the searcher is not re-entrant

    def stop(self) -> None:
        """Stop a running search early (thread-safe); it returns its best so far."""
        self.searcher.stop()
        external = self._external
        if external is not None:
            with contextlib.suppress(EngineError):
                external.send("stop")

    def hint(self, position: object, *, limit: Limit | None = None) -> Hint:
        limit = limit or Limit(movetime_ms=2000)
        board = to_board(position)
        with self._lock:
            return self._hint(board, limit)

    def _hint(self, board: Position, limit: Limit) -> Hint:
        if board.is_over:
            raise BoardError(f"no hint: the game is over in {board.tps()}")
        if self.external_command and not self._external_failed:
            try:
                return self._external_hint(board, limit)
            except EngineError as exc:
                log.warning("external TEI engine failed, using the built-in search: %s", exc)
                self._external_failed = True
                self._drop_external()
        result = self.searcher.search(board, limit)
        return Hint(result.best_ptn, result.score, result.pv, result.depth, result.nodes)

    def _external_hint(self, board: Position, limit: Limit) -> Hint:
        engine = self._external
        if engine is None or not engine.is_alive():
            assert self.external_command is not None
            engine = self._external = TeiEngine(self.external_command)
            engine.start()
        engine.new_game(board.size, board.komi)
        reply = engine.go(board.tps(), [], limit, board=board)
        info = reply.info
        score = 0
        if info is not None:
            if info.mate is not None:
                plies = max(1, 2 * abs(info.mate) - 1)
                score = (WIN - plies) if info.mate > 0 else -(WIN - plies)
            elif info.score_cp is not None:
                score = info.score_cp
        name = engine.id.name or self.external_command[0]  # type: ignore[index]
        return Hint(
            reply.best,
            score,
            list(info.pv) if info else [reply.best],
            info.depth or 0 if info else 0,
            info.nodes or 0 if info else 0,
            source=f"external: {name}",
        )

    def _drop_external(self) -> None:
        if self._external is not None:
            self._external.quit()
            self._external = None

    def close(self) -> None:
        self._drop_external()

"""takboard's engine behind TEI: reads commands from a text stream, answers on another.

The search runs on a worker thread so that `stop`, `isready` and `quit` are answered while it
thinks; every write goes through one lock so lines never interleave.
"""

from __future__ import annotations

import sys
import threading
from typing import TextIO

from controller import __version__
from controller.engine import tei
from controller.engine.board import BoardError, Position, from_tps, new_position
from controller.engine.limits import Limit
from controller.engine.search import WIN_BOUND, Searcher, SearchInfo

ENGINE_NAME = f"takboard {__version__}"
SUPPORTED_SIZES = range(3, 9)
ANNOUNCED_HALFKOMI = range(-4, 9)  # any komi works; these are the ones worth listing


def score_fields(score: int, plies_to_end: int | None) -> tuple[int | None, int | None]:
    """(cp, mate) for an info line; mate counts the mover's own moves, negative when losing."""
    if plies_to_end is None or abs(score) <= WIN_BOUND:
        return score, None
    moves = (plies_to_end + 1) // 2
    return None, moves if score > 0 else -moves


class TeiServer:
    def __init__(self, inp: TextIO, out: TextIO, *, searcher: Searcher | None = None) -> None:
        self.inp = inp
        self.out = out
        self.searcher = searcher or Searcher()
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self.size = 6
        self.halfkomi = 0
        self.board: Position | None = new_position(self.size)
        self.board_error: str | None = None

    def send(self, text: str) -> None:
        with self._lock:
            self.out.write(text + "\n")
            self.out.flush()

    def warn(self, text: str) -> None:
        self.send(f"info string error: {text}")
        print(f"takboard tei: {text}", file=sys.stderr, flush=True)

    def run(self) -> int:
        for raw in self.inp:
            line = tei.parse_line(raw)
            if line is None:
                continue
            try:
                if not self.handle(line):
                    break
            except tei.TeiProtocolError as exc:
                self.warn(str(exc))
        self._stop_search()
        return 0

    def handle(self, line: tei.TeiLine) -> bool:
        """Act on one command; False means quit."""
        cmd = line.command
        if cmd == "tei":
            self.send(f"id name {ENGINE_NAME}")
            self.send("id author the takboard authors")
            self.send("option name HalfKomi type spin default 0 min -20 max 20")
            for size in SUPPORTED_SIZES:
                self.send(f"size {size}")
            for k in ANNOUNCED_HALFKOMI:
                self.send(f"halfkomi {k}")
            self.send("teiok")
        elif cmd == "isready":
            self.send("readyok")
        elif cmd == "teinewgame":
            self._stop_search()
            new = tei.read_teinewgame(line)
            self.size = new.size
            if new.halfkomi is not None:
                self.halfkomi = new.halfkomi
            self.board = new_position(self.size, komi=self.halfkomi)
            self.board_error = None
            self.searcher.new_game()
        elif cmd == "setoption":
            name, value = tei.read_setoption(line)
            if name.lower() == "halfkomi":
                try:
                    self.halfkomi = int(value)
                except ValueError:
                    raise line.fail(f"HalfKomi must be an integer, got {value!r}") from None
            else:
                raise line.fail(f"unknown option {name!r} (known: HalfKomi)")
        elif cmd == "position":
            self._stop_search()
            self._set_position(tei.read_position(line))
        elif cmd == "go":
            go = tei.read_go(line)
            self._start_search(go)
        elif cmd == "stop":
            self._stop_search()
        elif cmd == "quit":
            return False
        else:
            raise line.fail("unknown command")
        return True

    def _set_position(self, pos: tei.PositionCommand) -> None:
        self.board = None
        try:
            if pos.tps is None:
                board = new_position(self.size, komi=self.halfkomi)
            else:
                board = from_tps(pos.tps, komi=self.halfkomi)
            for text in pos.moves:
                board.push(board.parse_ply(text))
        except BoardError as exc:
            self.board_error = str(exc)
            self.warn(str(exc))
            return
        self.board = board
        self.board_error = None

    def _start_search(self, go: tei.GoCommand) -> None:
        self._stop_search()
        if self.board is None:
            self.warn(f"no valid position to search ({self.board_error or 'none given'})")
            return
        if self.board.is_over:
            self.warn("the game in this position is already over")
            return
        board = self.board.copy()
        limit = go.limit
        if go.infinite:
            limit = Limit(nodes=limit.nodes, depth=limit.depth)
        elif limit == Limit():
            limit = Limit(movetime_ms=2000)

        def on_iteration(info: SearchInfo) -> None:
            plies = None if abs(info.score) <= WIN_BOUND else 1_000_000 - abs(info.score)
            cp, mate = score_fields(info.score, plies)
            nps = int(info.nodes * 1000 / info.elapsed_ms) if info.elapsed_ms > 0 else None
            self.send(
                tei.format_info(
                    tei.Info(
                        depth=info.depth,
                        score_cp=cp,
                        mate=mate,
                        nodes=info.nodes,
                        time_ms=int(info.elapsed_ms),
                        nps=nps,
                        pv=tuple(info.pv),
                    )
                )
            )

        def work() -> None:
            result = self.searcher.search(board, limit, on_iteration)
            self.send(f"bestmove {result.best_ptn}")

        self._worker = threading.Thread(target=work, name="tei-search", daemon=True)
        self._worker.start()

    def _stop_search(self) -> None:
        worker = self._worker
        if worker is not None and worker.is_alive():
            self.searcher.stop()
            worker.join()
        self._worker = None


def serve(inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    return TeiServer(inp, out).run()

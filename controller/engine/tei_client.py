"""Drive any external TEI engine (a subprocess) with timeouts, and check what it answers.

    engine = TeiEngine(["tiltak", "tei"])          # or ["takboard", "tei"]
    engine.start()                                  # handshake: tei ... teiok
    engine.new_game(6, halfkomi=4)                  # v1 negotiation when the engine offers it
    reply = engine.go("x6/x6/x6/x6/x6/x6 1 1", [], Limit(movetime_ms=1000))
    reply.best, reply.info                          # PTN ply (checked legal), last info line
    engine.quit()

Every failure is an `EngineError`: a timeout, a malformed line, an illegal or missing bestmove, an
unsupported size or komi. A process that dies or closes its pipes is an `EngineTerminatedError`.
The reader thread only queues lines; all decisions happen in the caller's thread.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from controller.engine import tei
from controller.engine.board import BoardError, Position, from_tps, new_position
from controller.engine.limits import EngineError, EngineTerminatedError, Limit

log = logging.getLogger(__name__)

_EOF = object()


@dataclass
class TeiReply:
    best: str
    info: tei.Info | None  # the last info line with a score, if any
    infos: list[tei.Info] = field(default_factory=list)


@dataclass
class EngineId:
    name: str = ""
    author: str = ""
    options: dict[str, dict[str, str]] = field(default_factory=dict)
    sizes: set[int] = field(default_factory=set)  # v1: empty = not announced
    halfkomis: set[int] = field(default_factory=set)


class TeiEngine:
    def __init__(
        self,
        command: list[str],
        *,
        handshake_timeout_s: float = 10.0,
        grace_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not command:
            raise ValueError("TeiEngine needs a command to run")
        self.command = list(command)
        self.handshake_timeout_s = handshake_timeout_s
        self.grace_s = grace_s
        self.clock = clock
        self.id = EngineId()
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr_tail: list[str] = []
        self.size: int | None = None
        self.halfkomi = 0

    # ----------------------------------------------------------------- process
    def start(self) -> EngineId:
        try:
            self._proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
        except OSError as exc:
            raise EngineTerminatedError(f"cannot start TEI engine {self.command!r}: {exc}") from exc
        threading.Thread(target=self._read_stdout, name="tei-stdout", daemon=True).start()
        threading.Thread(target=self._read_stderr, name="tei-stderr", daemon=True).start()
        self.send("tei")
        deadline = self.clock() + self.handshake_timeout_s
        while True:
            line = self._next(deadline, "teiok")
            if line.command == "teiok":
                return self.id
            self._read_id_line(line)

    def _read_id_line(self, line: tei.TeiLine) -> None:
        if line.command == "id" and line.args:
            value = " ".join(line.args[1:])
            if line.args[0] == "name":
                self.id.name = value
            elif line.args[0] == "author":
                self.id.author = value
        elif line.command == "option":
            name, spec = tei.read_option(line)
            self.id.options[name.lower()] = spec
        elif line.command == "size":
            self.id.sizes.add(_one_int(line))
        elif line.command == "halfkomi":
            self.id.halfkomis.add(_one_int(line))
        else:
            log.debug("TEI engine %s: ignoring %r during handshake", self.command[0], line.text)

    def _read_stdout(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        for raw in proc.stdout:
            self._lines.put(raw)
        self._lines.put(_EOF)

    def _read_stderr(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stderr is not None
        for raw in proc.stderr:
            self._stderr_tail = [*self._stderr_tail[-9:], raw.rstrip()]
            log.debug("TEI engine stderr: %s", raw.rstrip())

    def send(self, text: str) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise EngineTerminatedError("TEI engine is not running")
        try:
            proc.stdin.write(text + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise self._terminated(f"while sending {text!r}") from exc

    def _terminated(self, when: str) -> EngineTerminatedError:
        proc = self._proc
        code = None
        if proc is not None:
            try:  # its pipes closed: the exit status follows within moments
                code = proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                code = None
        tail = "; ".join(self._stderr_tail[-3:])
        return EngineTerminatedError(
            f"TEI engine {self.command[0]!r} exited (code {code}) {when}"
            + (f"; stderr: {tail}" if tail else "")
        )

    def _next(self, deadline: float, waiting_for: str) -> tei.TeiLine:
        """The next non-blank line before `deadline`, else EngineError naming what was awaited."""
        while True:
            left = deadline - self.clock()
            if left <= 0:
                raise EngineError(
                    f"TEI engine {self.command[0]!r} did not answer {waiting_for!r} in time"
                )
            try:
                item = self._lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if item is _EOF:
                raise self._terminated(f"while waiting for {waiting_for!r}")
            line = tei.parse_line(str(item))
            if line is not None:
                return line

    def is_alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def quit(self) -> None:
        proc = self._proc
        if proc is None:
            return
        with contextlib.suppress(EngineTerminatedError):
            self.send("quit")
        try:
            proc.wait(timeout=self.grace_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        self._proc = None

    def __enter__(self) -> TeiEngine:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()

    # ----------------------------------------------------------------- game
    def new_game(self, size: int, halfkomi: int = 0) -> None:
        ident = self.id
        if ident.sizes and size not in ident.sizes:
            raise EngineError(
                f"TEI engine {ident.name or self.command[0]!r} does not play size {size} "
                f"(it offers {sorted(ident.sizes)})"
            )
        if ident.halfkomis and halfkomi not in ident.halfkomis:
            raise EngineError(
                f"TEI engine {ident.name or self.command[0]!r} does not play halfkomi {halfkomi} "
                f"(it offers {sorted(ident.halfkomis)})"
            )
        v1 = bool(ident.sizes or ident.halfkomis)
        if not v1:
            if "halfkomi" in ident.options:
                self.send(tei.format_setoption("HalfKomi", halfkomi))
            elif halfkomi:
                raise EngineError(
                    f"TEI engine {ident.name or self.command[0]!r} has no HalfKomi option; "
                    f"cannot play komi {halfkomi / 2:g}"
                )
        self.send(tei.format_teinewgame(size, halfkomi, v1=v1))
        self.ready()
        self.size = size
        self.halfkomi = halfkomi

    def ready(self, timeout_s: float | None = None) -> None:
        self.send("isready")
        deadline = self.clock() + (timeout_s or self.handshake_timeout_s)
        while self._next(deadline, "readyok").command != "readyok":
            pass

    def go(
        self,
        tps: str | None,
        moves: list[str] | tuple[str, ...],
        limit: Limit,
        *,
        board: Position | None = None,
    ) -> TeiReply:
        """Search a position; the answer is checked to be a legal ply of it.

        `board` (optional) is the position the TEI command describes, used for the legality check;
        without it the check rebuilds it from `tps` + `moves` at the current size and komi.
        """
        if self.size is None:
            raise EngineError("call new_game() before go()")
        if board is None:
            try:
                board = (
                    new_position(self.size, komi=self.halfkomi)
                    if tps is None
                    else from_tps(tps, komi=self.halfkomi)
                )
                for text in moves:
                    board.push(board.parse_ply(text))
            except BoardError as exc:
                raise EngineError(f"cannot send this position to the engine: {exc}") from exc
        self.send(tei.format_position(tps, list(moves)))
        self.send(tei.format_go(limit))
        budget = limit.budget_ms(board.to_move)
        wait_s = (budget / 1000.0 if budget is not None else 60.0) + self.grace_s
        deadline = self.clock() + wait_s
        infos: list[tei.Info] = []
        stop_sent = False
        while True:
            try:
                line = self._next(deadline, "bestmove")
            except EngineTerminatedError:
                raise
            except EngineError:
                if stop_sent:
                    raise
                # over time: ask it to stop, give it a last grace period, then give up
                self.send("stop")
                stop_sent = True
                deadline = self.clock() + self.grace_s
                continue
            if line.command == "info":
                info = tei.read_info(line)
                if info.string is None:
                    infos.append(info)
            elif line.command == "bestmove":
                best = tei.read_bestmove(line)
                try:
                    board.parse_ply(best)
                except BoardError as exc:
                    raise EngineError(
                        f"TEI engine {self.id.name or self.command[0]!r} answered an illegal "
                        f"ply: {exc}"
                    ) from exc
                scored = [i for i in infos if i.score_cp is not None or i.mate is not None]
                return TeiReply(best, scored[-1] if scored else None, infos)
            else:
                raise line.fail("expected info or bestmove")


def _one_int(line: tei.TeiLine) -> int:
    if len(line.args) != 1:
        raise line.fail(f"expected '{line.command} N'")
    try:
        return int(line.args[0])
    except ValueError:
        raise line.fail(f"{line.command} must be an integer") from None

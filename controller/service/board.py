"""`BoardService`: the running board. One object, one asyncio loop, everything passed in.

    frame source -> vision -> tracking -> journal -> LEDs -> events

The camera side (`CameraPipeline`), the LED link (`LedPort`) and the hint engine (`HintPort`) are
optional collaborators handed to the constructor, each with a simulated twin for `--sim` and tests.
The
board itself owns the game (through `GameSession`), serialises every change with one lock, and turns
each change into an `Event` on the bus and a new LED scene.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from controller.service.clock import Clock, SystemClock
from controller.service.config import Settings
from controller.service.errors import (
    GameOverError,
    NoGameError,
    QuestionWaitingError,
    UnavailableError,
    WrongMoveError,
)
from controller.service.events import EventBus
from controller.service.game import Ambiguity, GameSession, RecordedPly
from controller.service.health import Health
from controller.service.marks import MarkCache, annotated_ptn
from controller.service.opponent import TAG as COMPUTER_TAG
from controller.service.opponent import Opponent, squares_to_fix
from controller.service.virtual_board import VirtualBoard
from controller.store import Journal
from controller.tak import Ply

log = logging.getLogger(__name__)

HEALTH_PERIOD_S = 2.0


class LedPort(Protocol):
    """What the board needs from the LED side (see `controller/service/leds_port.py`)."""

    async def start(self) -> None: ...
    async def stop(self) -> None: ...
    async def show(self, scene: str, **kwargs: Any) -> None: ...
    async def set_brightness(self, brightness: int) -> None: ...
    def lit(self) -> dict[str, Any]: ...


class HintPort(Protocol):
    async def best_ply(self, position: Any, limit: Any = None) -> tuple[str, dict[str, Any]]: ...


class CameraPort(Protocol):
    async def start(self, board: BoardService) -> None: ...
    async def stop(self) -> None: ...
    def latest_jpeg(self) -> bytes | None: ...
    def overlay(self) -> dict[str, Any]: ...
    def calibrate(self, corners: list[tuple[float, float]]) -> None: ...
    def resync(self, *, new_game: bool = False, resumed: bool = False) -> None: ...
    async def save_capture(self, *, note: str, game_ptn: str,
                           plies: list[str]) -> tuple[Path, int]: ...  # fmt: skip


@dataclass(frozen=True)
class GameView:
    """Everything the page shows about the current game (a plain value; web models copy it)."""

    id: int
    size: int
    komi: int
    opening: str
    tags: dict[str, str]
    plies: list[RecordedPly]
    tps: str
    to_move: int
    result: str | None
    stacks: dict[str, tuple[tuple[int, int], ...]]
    reserves: tuple[tuple[int, int], tuple[int, int]]
    flat_count: tuple[int, int]
    ptn: str
    ambiguity: Ambiguity | None
    state: str  # recording | paused | desync | illegal | ambiguous | over
    problem: dict[str, Any] = field(default_factory=dict)
    computer: dict[str, Any] | None = None  # side, strength, move (to make on the board), thinking


class BoardService:
    def __init__(
        self,
        *,
        settings: Settings,
        journal: Journal,
        bus: EventBus | None = None,
        clock: Clock | None = None,
        camera: CameraPort | None = None,
        leds: LedPort | None = None,
        hinter: HintPort | None = None,
        virtual_board: VirtualBoard | None = None,
    ) -> None:
        self.settings = settings
        self.bus = bus or EventBus()
        self.clock = clock or SystemClock()
        self.session = GameSession(journal)
        self.camera = camera
        self.leds = leds
        self.hinter = hinter
        self.virtual_board = virtual_board
        self.health = Health()
        self.health.journal.path = journal.path
        self.lock = asyncio.Lock()
        if leds is not None and hasattr(leds, "attach"):
            self.health.link.state = "connecting"
            leds.attach(self.health.link, lambda: self.bus.publish("leds", leds.lit()))
        if leds is not None and hasattr(leds, "on_button"):
            leds.on_button = self.button_pressed  # the button on the board's edge asks for a hint
        self._button_hint: asyncio.Task | None = None
        # What the camera side last reported about the board vs the game (desync / illegal).
        self.problem: dict[str, Any] = {}
        self._tasks: list[asyncio.Task] = []
        # Playing against the computer: who it is, and its ply waiting to be made on the board.
        self.marks = MarkCache()  # tak/tinue marks of the games' plies, for their PTN
        self.opponent: Opponent | None = None
        self.computer_move: Ply | None = None
        self._thinking: asyncio.Task | None = None

    # --- lifecycle -----------------------------------------------------------------------------
    async def start(self) -> None:
        resumed = await asyncio.to_thread(self.session.resume)
        if resumed:
            view = self.view()
            log.info("resumed game %s at ply %d from the journal", view.id, len(view.plies))
            if self.virtual_board is not None:
                # the table in the simulator is gone with the old process: lay the pieces back out
                stacks = {sq: list(st) for sq, st in view.stacks.items()}
                self.virtual_board.reset(view.size, stacks)
            self.opponent = Opponent.from_tags(view.tags)
            if self.camera is not None and view.result is None:
                self.camera.resync(resumed=True)
        self._refresh_journal_health()
        if self.leds is not None:
            await self.leds.start()
            await self._show_leds()
        if self.camera is not None:
            await self.camera.start(self)
        self._tasks.append(asyncio.create_task(self._health_loop(), name="health"))
        self._computer_turn()

    async def stop(self) -> None:
        self._cancel_thinking()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        if self.camera is not None:
            await self.camera.stop()
        if self.leds is not None:
            await self.leds.stop()

    async def _health_loop(self) -> None:
        while True:
            await asyncio.sleep(HEALTH_PERIOD_S)
            self.bus.publish("health", self.health_report())

    # --- reading -------------------------------------------------------------------------------
    def health_report(self) -> dict[str, Any]:
        if self.leds is not None and hasattr(self.leds, "refresh_health"):
            self.leds.refresh_health()
        report = self.health.as_dict(self.clock.monotonic())
        report["sim"] = self.settings.sim
        report["events"] = {"subscribers": self.bus.subscriber_count}
        report["hints"] = self.hinter is not None
        return report

    async def snapshot(self) -> GameView:
        """`view()` taken under the board's lock, so a ply being written (in a worker thread)
        is never seen half applied."""
        async with self.lock:
            return self.view()

    def view(self) -> GameView:
        """The current game; callers outside the board use `snapshot()`."""
        s = self.session
        position = s._position()
        record = s.journal.game(s.game_id)
        state = self._state(record.result)
        return GameView(
            id=int(s.game_id),
            size=position.size,
            komi=record.komi,
            opening=record.opening,
            tags=dict(record.tags),
            plies=s.plies(),
            tps=position.tps(),
            to_move=position.to_move,
            result=record.result,
            stacks=position.stacks(),
            reserves=(position.reserves(0), position.reserves(1)),
            flat_count=position.flat_count(),
            ptn=s.journal.export_ptn(s.game_id, marks=self.marks.peek(record)),
            ambiguity=s.ambiguity,
            state=state,
            problem=dict(self.problem),
            computer=(self.opponent.as_dict(self.computer_move, self._is_thinking())
                      if self.opponent is not None else None),
        )

    def _state(self, result: str | None) -> str:
        if result is not None:
            return "over"
        if self.session.ambiguity is not None:
            return "ambiguous"
        if self.problem:
            return self.problem["kind"]
        if self.health.recording == "paused":
            return "paused"
        return "recording"

    # --- commands (each one: journal, position, LEDs, event) -----------------------------------
    async def new_game(
        self, *, size: int, komi: int, players: tuple[str, str], opening: str,
        tags: dict[str, str] | None = None, computer: Opponent | None = None,
    ) -> GameView:
        if computer is not None:
            if self.hinter is None:
                raise UnavailableError("no engine is configured on this board to play against")
            tags = {**(tags or {}), COMPUTER_TAG: computer.tag()}
            names = list(players)
            names[computer.side] = names[computer.side] or computer.player_name
            players = (names[0], names[1])
        async with self.lock:
            self._cancel_thinking()
            self.opponent = computer
            game_id = await asyncio.to_thread(
                self.session.new_game, size=size, komi=komi, players=players, opening=opening,
                tags=tags,
            )
            self.problem = {}
            if self.virtual_board is not None:
                self.virtual_board.reset(size)
                self.bus.publish("sim_board", self.virtual_board.scene().as_dict())
            if self.camera is not None:
                self.camera.resync(new_game=True)
            self._refresh_journal_health()
            log.info("game %s started: %dx%d komi %s", game_id, size, size, komi / 2)
            self.bus.publish("game_started", {"game_id": int(game_id), "size": size,
                                              "komi": komi, "players": list(players),
                                              "opening": opening,
                                              "computer": computer.tag() if computer else None})
            await self._show_leds()
            self._computer_turn()
            return self.view()

    async def play(
        self, ply: Ply, *, source: str, uncertain: bool = False,
        alternatives: tuple[Ply, ...] = (), margin: float | None = None,
    ) -> Ply:
        """Record one ply (from the camera, a candidate pick or typed by hand)."""
        async with self.lock:
            return await self._play_locked(ply, source=source, uncertain=uncertain,
                                           alternatives=alternatives, margin=margin)

    async def _play_locked(self, ply, *, source, uncertain=False, alternatives=(), margin=None):
        wanted = self.computer_move
        if wanted is not None and source == "camera" and ply != wanted:
            await self._wrong_move(wanted, ply)
        played = await asyncio.to_thread(self.session.play, ply, uncertain=uncertain,
                                         alternatives=alternatives)
        self.problem = {}
        if source != "camera" and self.camera is not None:
            self.camera.resync()
        await self._after_ply(played, source=source, uncertain=uncertain, margin=margin)
        return played

    async def _after_ply(self, played: Ply, *, source: str, uncertain: bool,
                         margin: float | None) -> None:
        position = self.session.position
        number = position.ply_count
        self.computer_move = None  # made (or overruled by a ply typed on the page)
        log.info("ply %d %s (%s)", number, played.ptn(), source)
        self.bus.publish("ply_committed", {
            "game_id": int(self.session.game_id), "number": number, "ptn": played.ptn(),
            "player": (number - 1) % 2, "source": source, "uncertain": uncertain,
            "margin": margin, "tps": position.tps(),
        })
        await self._show_leds()
        await self._after_change()

    async def _after_change(self) -> None:
        """After a ply was recorded or corrected: its tak/tinue mark for the PTN (after the
        LEDs: it never delays what players see), the ending if it ended the game, and the
        computer's turn."""
        position = self.session.position
        record = self.session.journal.game(self.session.game_id)
        await asyncio.to_thread(self.marks.marks, record)
        if record.result is not None:
            outcome = position.outcome()
            road = None
            if outcome is not None and outcome.reason == "road" and outcome.winner is not None:
                road = position.road(outcome.winner)
            self.bus.publish("game_ended", {"game_id": int(self.session.game_id),
                                            "result": record.result, "road": road})
        self._computer_turn()

    async def ask(
        self, candidates: list[Ply], scores: list[float], reason: str = "",
        then: list[Ply | None] | None = None, more: list[tuple[Ply, ...]] | None = None,
    ) -> Ambiguity | None:
        """The camera saw a change several plies explain: hold it and ask the players (None: one
        of them was the computer's own ply, which is then recorded without asking). `then`,
        `more`: per candidate, the plies the board shows played after it (`Ambiguity`)."""
        async with self.lock:
            if self.computer_move is not None and self.computer_move in candidates:
                # the board looks like several plies, one of them the computer's own: that is the
                # one the player was making for it, nothing to ask
                await self._play_locked(self.computer_move, source="camera")
                return None
            pending = self.session.ambiguity
            replies = list(then or [None] * len(candidates))
            after = [tuple(m) for m in more or [()] * len(candidates)]
            if (pending is not None and pending.candidates == list(candidates)
                    and pending.then == replies  # (pairs and catch-ups differ in what follows)
                    and pending.more == after):
                return pending  # the same question, still on the board: do not ask twice
            amb = self.session.ask(candidates, scores, reason, replies, after)
            self.bus.publish("ambiguity", {"id": amb.id,
                                           "candidates": [c.ptn() for c in candidates],
                                           "scores": [round(s, 4) for s in scores],
                                           "reason": reason,
                                           "then": [None if t is None else t.ptn()
                                                    for t in amb.then],
                                           "more": [[p.ptn() for p in m] for m in amb.more]})
            await self._show_leds()
            return amb

    async def resolve(self, ambiguity_id: int | None, choice: int | Ply) -> Ply:
        async with self.lock:
            played, pending = await asyncio.to_thread(self.session.resolve, ambiguity_id, choice)
            self.problem = {}
            follows = []
            if self.camera is not None:  # (a candidate picked: its reply, if it has one)
                picked = isinstance(choice, int)
                then = pending.then[choice] if picked and pending.then else None
                more = pending.more[choice] if picked and pending.more else None
                follows = self.camera.answered(played, self.session.position, then=then,
                                               more=more, typed=not picked)  # fmt: skip
            self.bus.publish("ambiguity_resolved", {"id": pending.id, "ptn": played.ptn()})
            await self._after_ply(played, source="confirmed", uncertain=False, margin=None)
            for reply in follows:  # two plies seen at once: the reply, confirmed with the first
                try:
                    await self._play_locked(reply, source="camera")
                except WrongMoveError:  # not the computer's ply: reported; judge the board anew
                    self.camera.resync()  # type: ignore[union-attr]
                    break
            return played

    async def decline_question(self, ambiguity_id: int | None) -> None:
        """A player says none of the plies asked about was played (a hand that only straightened
        a piece): the question goes, nothing is recorded, and the camera carries on from the
        board as it is."""
        async with self.lock:
            pending = self.session.decline(ambiguity_id)
            self.problem = {}
            if self.camera is not None:
                self.camera.declined(self.session.position)
            self.bus.publish("ambiguity_withdrawn", {"id": pending.id, "by": "player"})
            await self._show_leds()

    async def board_is_right(self) -> None:
        """A person says the board shows the game as recorded, though the camera reports it wrong
        (a piece it misreads): the camera goes on from the board as it is, and the alarm ends.
        Raises UnavailableError when there is no camera, or it has not seen the board since the
        game changed (try again in a moment), and QuestionWaitingError while a question waits
        (answer it instead)."""
        async with self.lock:
            self.require_game()
            if self.camera is None:
                raise UnavailableError("no camera watches this board: nothing to put in sync")
            if self.session.ambiguity is not None:
                raise QuestionWaitingError("a question about the last ply waits: answer it first")
            if not self.camera.board_is_right(self.session.position):
                raise UnavailableError("the camera has not seen the board since the game "
                                       "changed: try again in a moment")  # fmt: skip
            log.info("board said to be right at ply %d: the camera goes on from it",
                     self.session.position.ply_count)
            self.problem = {}
            self.bus.publish("in_sync", {"tps": self.session.position.tps(), "by": "player"})
            await self._show_leds()

    async def withdraw_question(self) -> None:
        """The camera saw the ply it asked about taken back before anyone answered: the question
        goes (from the page and the LEDs)."""
        async with self.lock:
            pending = self.session.withdraw()
            if pending is None:
                return
            self.bus.publish("ambiguity_withdrawn", {"id": pending.id})
            await self._show_leds()

    async def take_back(self, n: int = 1, *, source: str = "manual") -> list[str]:
        async with self.lock:
            undone = await asyncio.to_thread(self.session.take_back, n)
            self.problem = {}
            self._cancel_thinking()
            position = self.session.position
            self.bus.publish("ply_taken_back", {"game_id": int(self.session.game_id),
                                                "plies": undone, "ply_count": position.ply_count,
                                                "tps": position.tps(), "source": source})
            if self.camera is not None:
                if source == "camera":  # the camera's tracker took it back itself
                    self.camera.took_back(position)
                else:
                    self.camera.resync()
            await self._show_leds()
            self._computer_turn()
            return undone

    async def correct_last(self, ply: Ply) -> Ply:
        """A person says the board shows another last ply than the one recorded (a wall taken
        for a flat, a spread's drops): replace it in one step. A takeback and a typed ply in two
        requests would race the camera, which sees the ply on the board again in between and
        records it again, as it saw it."""
        async with self.lock:
            old, played = await asyncio.to_thread(self.session.correct_last, ply)
            self.problem = {}
            self._cancel_thinking()
            self.computer_move = None
            position = self.session.position
            number = position.ply_count
            log.info("ply %d corrected: %s -> %s", number, old.ptn(), played.ptn())
            self.bus.publish("ply_corrected", {
                "game_id": int(self.session.game_id), "number": number, "was": old.ptn(),
                "ptn": played.ptn(), "tps": position.tps(),
            })
            if self.camera is not None:
                self.camera.corrected(played, position)
            await self._show_leds()
            await self._after_change()
            return played

    async def mark_unsure(self, number: int, ply: Ply, alternatives: tuple[Ply, ...],
                          reason: str) -> bool:  # fmt: skip
        """A later board puts ply `number`, recorded as `ply`, in doubt: one of `alternatives`
        may have been played instead. Marked in the journal (durably, first) and on the page.
        False, marking nothing, when the game no longer has `ply` there (taken back or
        corrected meanwhile)."""
        async with self.lock:
            session = self.session
            if session.game_id is None:
                return False
            record = await asyncio.to_thread(session.journal.game, session.game_id)
            if not 1 <= number <= len(record.plies) or record.plies[number - 1].ply != ply:
                return False
            await asyncio.to_thread(session.journal.mark_uncertain, session.game_id, number,
                                    alternatives)  # fmt: skip
            log.info("ply %d %s marked unsure after the fact: %s", number, ply.ptn(), reason)
            self.bus.publish("ply_marked", {
                "game_id": int(session.game_id), "number": number, "ptn": ply.ptn(),
                "alternatives": [alt.ptn() for alt in alternatives], "reason": reason,
            })
            return True

    async def finish(self, result: str, reason: str) -> str:
        async with self.lock:
            await asyncio.to_thread(self.session.finish, result)
            self.problem = {}
            self._cancel_thinking()
            self.bus.publish("game_ended", {"game_id": int(self.session.game_id),
                                            "result": result, "reason": reason, "road": None})
            await self._show_leds()
            return result

    async def set_tags(self, tags: dict[str, str | None]) -> dict[str, str]:
        async with self.lock:
            await asyncio.to_thread(self.session.set_tags, tags)
            record = self.session.journal.game(self.session.game_id)
            self.bus.publish("tags_changed", {"game_id": int(record.id), "tags": record.tags})
            return dict(record.tags)

    async def hint(self) -> dict[str, Any]:
        if self.hinter is None:
            raise UnavailableError("no hint engine is configured on this board")
        async with self.lock:
            position = self.session._open_position().copy()
        ptn, info = await self.hinter.best_ply(position)
        self.bus.publish("hint", {"ptn": ptn, **info})
        if self.leds is not None:
            await self.leds.show("hint", ply=Ply.from_ptn(ptn))
        return {"ptn": ptn, **info}

    async def button_pressed(self) -> None:
        """The button on the board's edge: a hint while a game is in progress, else nothing.
        Presses while that hint is still being searched are the same request, not new ones."""
        if self.hinter is None or (self._button_hint is not None and not self._button_hint.done()):
            return
        self._button_hint = asyncio.current_task()
        try:
            await self.hint()
        except (NoGameError, GameOverError) as error:
            log.info("button pressed, no hint: %s", error)

    async def set_brightness(self, brightness: int) -> None:
        if self.leds is None:
            raise UnavailableError("no LED board on this service (serial = none)")
        await self.leds.set_brightness(brightness)
        self.bus.publish("leds", self.leds.lit())

    # --- reports from the camera side ----------------------------------------------------------
    async def save_capture(self, note: str = "") -> tuple[Path, int]:
        """A bug report: the camera's last minute of readings and views, the game's position
        through it and the game's PTN, in one file (`capture.py`) -> (its path, readings in it)."""
        if self.camera is None:
            raise UnavailableError("no camera on this board: there is nothing to capture")
        async with self.lock:
            game_id = self.session.game_id
            plies = [p.ptn for p in self.session.plies()]
            ptn = (annotated_ptn(self.session.journal, game_id, self.marks)
                   if game_id is not None else "")  # fmt: skip
        try:
            path, readings = await self.camera.save_capture(note=note, game_ptn=ptn, plies=plies)
        except ValueError as why:
            raise UnavailableError(str(why)) from None
        except OSError as why:  # a full disk, a read-only data dir: say where, lose nothing
            where = why.filename or self.settings.data_path / "captures"
            raise UnavailableError(f"cannot write the bug report in {where}: "
                                   f"{why.strerror or why}") from None  # fmt: skip
        log.info("bug report saved: %s (%d readings)", path, readings)
        return path, readings

    async def report_problem(self, kind: str, squares: list[str], why: str) -> None:
        """`kind` is "desync" (board matches nothing reachable) or "illegal" (a change no legal
        ply explains). Recording waits until the board matches again."""
        async with self.lock:
            problem = {"kind": kind, "squares": sorted(squares), "why": why}
            if problem == self.problem:
                return
            self.problem = problem
            event = "desync" if kind == "desync" else "illegal_state"
            self.bus.publish(event, {**problem, "expected_tps": self.session.position.tps()})
            log.warning("%s: %s (squares %s)", kind, why, ", ".join(sorted(squares)) or "-")
            await self._show_leds()

    async def report_in_sync(self) -> None:
        async with self.lock:
            if not self.problem:
                return
            self.problem = {}
            self.bus.publish("in_sync", {"tps": self.session.position.tps()})
            await self._show_leds()

    # --- the computer opponent -----------------------------------------------------------------
    def _is_thinking(self) -> bool:
        return self._thinking is not None and not self._thinking.done()

    def _cancel_thinking(self) -> None:
        if self._is_thinking():
            self._thinking.cancel()  # type: ignore[union-attr]
        self._thinking = None
        self.computer_move = None

    def _computer_turn(self) -> None:
        """If it is the computer's turn and it has not thought yet, think (in the background)."""
        position = self.session.position
        if (self.opponent is None or position is None or self.session.result is not None
                or self.computer_move is not None or self._is_thinking()
                or not self.opponent.to_move(position) or self.hinter is None):
            return
        self._thinking = asyncio.create_task(self._think(int(self.session.game_id),
                                                         position.ply_count), name="computer")

    async def _think(self, game_id: int, ply_count: int) -> None:
        assert self.opponent is not None and self.hinter is not None
        opponent = self.opponent
        async with self.lock:
            position = self.session._open_position().copy()
        try:
            ptn, info = await self.hinter.best_ply(position, limit=opponent.limit)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # an engine failure must not take the board down with it
            log.warning("the computer could not find a ply (%s); it will try after the next one",
                        exc)
            return
        async with self.lock:
            now = self.session.position
            if (self.session.game_id != game_id or now is None or now.ply_count != ply_count
                    or self.opponent is not opponent):
                return  # the game moved on while the engine thought
            self.computer_move = Ply.from_ptn(ptn)
            log.info("the computer (%s) plays %s", opponent.tag(), ptn)
            self.bus.publish("computer_move", {"game_id": game_id, "ptn": ptn,
                                               "number": ply_count + 1, **info})
            await self._show_leds()

    async def _wrong_move(self, wanted: Ply, shown: Ply) -> None:
        """The board shows `shown` where the computer played `wanted`: say which squares to fix,
        blink them, record nothing (raises WrongMoveError)."""
        position = self.session._open_position()
        squares = squares_to_fix(position, wanted, shown)
        why = f"the computer plays {wanted.ptn()}, the board shows {shown.ptn()}"
        problem = {"kind": "illegal", "squares": squares, "why": why}
        if problem != self.problem:
            self.problem = problem
            self.bus.publish("illegal_state", {**problem, "expected_tps": position.tps()})
            log.warning("%s: fix %s", why, ", ".join(squares))
            await self._show_leds()
        raise WrongMoveError(why)

    # --- LEDs ----------------------------------------------------------------------------------
    async def _show_leds(self) -> None:
        if self.leds is None or self.session.position is None:
            return
        position = self.session.position
        if self.problem:
            await self.leds.show(self.problem["kind"], squares=self.problem["squares"],
                                 position=position)
        elif self.session.ambiguity is not None:
            # (what follows a candidate too, a pair's reply or a catch-up's plies: asked about)
            plies = self.session.ambiguity.plies_named()
            squares = sorted({sq for ply in plies for sq in ply.squares(position.size)})
            await self.leds.show("ambiguity", squares=squares, position=position)
        elif self.computer_move is not None:
            await self.leds.show("hint", ply=self.computer_move, position=position)
        elif (outcome := position.outcome()) is not None and outcome.reason == "road":
            await self.leds.show("road", road=position.road(outcome.winner) or [],
                                 winner=outcome.winner, position=position)
        elif position.last_ply is not None:
            await self.leds.show("last_move", ply=position.last_ply, position=position)
        else:
            await self.leds.show("idle", position=position)
        self.bus.publish("leds", self.leds.lit())

    def _refresh_journal_health(self) -> None:
        try:
            self.health.journal.games = len(self.session.journal.games())
            self.health.journal.state, self.health.journal.error = "ok", ""
        except Exception as exc:  # a broken disk is reported on /api/health, not raised here
            self.health.journal.state, self.health.journal.error = "error", str(exc)

    def require_game(self) -> None:
        if self.session.game_id is None:
            raise NoGameError("no game in progress: start one with POST /api/games")

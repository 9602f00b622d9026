"""The camera side of the board: frames in, decisions out.

    frame source --read()--> BoardReader (vision) --BoardReading--> Tracker (tracking) -->
    BoardService

`CameraPipeline` runs as one asyncio task. Frame grabs and the heavy per-frame work (reading the
board,
scoring plies) run in a worker thread so the web page stays responsive. The tracker works on its own
copy of the position; whenever the game changes by any other way (a ply typed on the page, a
takeback,
a new game) the board calls `resync()` and the tracker is rebuilt from the game before the next
frame.

A camera that stops delivering frames is reported (health + a `camera` event), recording pauses, the
source is reopened with a capped backoff, and recording resumes by itself when frames come back.

`VirtualTableSource` is the simulated twin of a camera for `--sim`: the vision package's simulated
camera filming the virtual board (pieces, the hand, the LEDs as lit).
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from controller import __version__
from controller.service.capture import CaptureRing, write_capture
from controller.service.config import Settings
from controller.service.errors import WrongMoveError
from controller.service.virtual_board import VirtualBoard
from controller.tak import FLAT, WHITE, Ply, Position, TakError
from controller.tracking import (
    Ask,
    Commit,
    Desync,
    GameOver,
    Illegal,
    Resynced,
    Takeback,
    Tracker,
    TrackerConfig,
    Withdrawn,
)
from controller.tracking.second_look import Doubt, emptied_yet_seen, rival_of_sure

if TYPE_CHECKING:
    from controller.service.board import BoardService

log = logging.getLogger(__name__)

FAILURES_BEFORE_REOPEN = 3
BACKOFF_S = (0.5, 1.0, 2.0, 4.0, 8.0)
JPEG_MAX_WIDTH = 960
COLOURS = ("light", "dark")
KINDS = ("flat", "wall", "cap")


def gate_hold_s(fps: float, hold_s: float = 0.6) -> float:
    """The stability gate's hold for a camera at `fps`: the same whole number of frame intervals
    as `hold_s`, with half a frame of slack.

    The gate wants the board still for `hold_s` (0.6 s: at 5 fps the first still frame and three
    more that agree). Frames never arrive exactly one period apart (scheduling on a busy machine,
    a slow read), and with the hold at exactly three periods, three intervals summing to 0.59 s
    cost a whole further frame (0.2 s, a fifth of the latency budget). Half a frame of slack
    (0.5 s at 5 fps) still takes three intervals when frames come on time, and no longer pays a
    frame for being a few milliseconds late."""
    frames = max(1, math.ceil(hold_s * fps - 1e-6))  # frame intervals the hold spans
    return (frames - 0.5) / fps


class CameraUnavailable(RuntimeError):
    """The camera cannot be opened now (unplugged, busy, no permission); the message says which."""


# --------------------------------------------------------------------------------------------------
# the simulated camera over the virtual table
class VirtualTableSource:
    """`read() -> (ok, frame)` like a real camera, rendering the virtual board as it is now.

    `lit()` gives the LEDs as lit (square -> "#rrggbb"), so the glow under the squares is filmed
    too.
    `unplug()` / `plug()` simulate pulling the USB cable: reads fail and reopening is refused.
    """

    def __init__(self, table: VirtualBoard, *, seed: int = 11, tilt_deg: float = 30.0,
                 width: int | None = 960, height: int | None = 540,
                 lit: Callable[[], dict[str, str]] | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.table = table
        self.seed, self.tilt_deg = seed, tilt_deg
        self.width, self.height = width, height
        self.lit = lit or dict
        self.films_leds = lit is not None
        self.clock = clock
        self.error: str | None = None
        self.description = f"sim:seed={seed}:tilt={tilt_deg}"
        self.plugged = True
        self.last_version = -1  # the table version the last frame showed
        self.last_hand = False
        self._source = None
        self._size = None

    def _open(self, size: int):
        from vision.sim import Scene, SimCameraSource, random_setup

        # a seeded installation: room, lamp light and a camera pose tilted `tilt_deg` from vertical
        camera, look = random_setup(self.seed, size, tilt_deg=self.tilt_deg)
        if self.width and self.height:
            camera = camera.with_resolution(self.width, self.height)
        self._source = SimCameraSource(Scene(size), camera, look, seed=self.seed, clock=self.clock)
        self._size = size

    def scene(self):
        from vision.sim import Hand, Scene

        table = self.table.scene()
        stacks = {sq: [(COLOURS[p], KINDS[s]) for p, s in st] for sq, st in table.stacks.items()}
        hands = []
        if table.hand_over:
            tallest = max((len(st) for st in table.stacks.values()), default=0)
            centre = table.size / 2
            hands.append(Hand(tip=(centre, centre * 0.9), from_side="south",
                              height=1.0 + 0.15 * tallest))
        leds = {}
        for square, colour in self.lit().items():
            r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
            leds[square] = (b, g, r)
        return Scene(table.size, stacks, hands, leds)

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not self.plugged:
            self.error = "simulated camera unplugged"
            return False, None
        version = self.table.version
        scene = self.scene()
        if self._source is None or scene.size != self._size:
            self._open(scene.size)
        self._source.scene = scene
        ok, frame = self._source.read()
        self.error = self._source.error
        self.last_version, self.last_hand = version, bool(scene.hands)
        return ok, frame

    def release(self) -> None:
        pass

    def empty_frame(self) -> np.ndarray | None:
        """The same camera over the same table with nothing on the board: the reader's reference
        for the bare board (on real hardware it is taken when a game starts on an empty board)."""
        from vision.sim import Scene

        size = self.table.size
        if self._source is None or size != self._size:
            self._open(size)
        saved = self._source.scene
        self._source.scene = Scene(size)
        try:
            ok, frame = self._source.read()
        finally:
            self._source.scene = saved
        return frame if ok else None

    def unplug(self) -> None:
        self.plugged = False

    def plug(self) -> None:
        self.plugged = True


def open_frame_source(settings: Settings, table: VirtualBoard | None,
                      lit: Callable[[], dict[str, str]] | None = None) -> Callable[[], Any]:
    """A factory that opens the configured camera (called again to reopen after a failure)."""
    if settings.camera == "sim":
        if table is None:
            raise ValueError("camera = sim needs the virtual board (run with --sim)")
        source = VirtualTableSource(table, lit=lit)

        def open_sim():
            if not source.plugged:
                raise CameraUnavailable("simulated camera unplugged")
            return source

        open_sim.sim_source = source  # type: ignore[attr-defined]
        return open_sim

    def open_real():
        from vision.sources import FrameSourceError, open_source

        try:
            return open_source(settings.camera)
        except FrameSourceError as exc:
            raise CameraUnavailable(str(exc)) from exc

    return open_real


def light_piece_contrast(frame: np.ndarray, empty: np.ndarray, pose, position):
    """How far the light pieces stand out from the board, measured on the first lone light flat
    of `position` that `frame` shows (`vision.contrast`, against `empty`, the bare board, same
    camera) -> a `ContrastCheck`, or None when there is no such flat or it is out of view. The
    service and the offline recorder both say it (`CameraPipeline`, `record.SetupReport`)."""
    from vision.contrast import contrast_advice, light_flat_contrast

    lone = [sq for sq, stack in position.stacks().items()
            if len(stack) == 1 and stack[0] == (WHITE, FLAT)]  # fmt: skip
    if not lone:
        return None
    try:
        return contrast_advice(lone[0], light_flat_contrast(frame, empty, pose, lone[0]))
    except ValueError:
        return None


# --------------------------------------------------------------------------------------------------
class CameraPipeline:
    def __init__(self, open_source: Callable[[], Any], *, settings: Settings, clock,
                 reader_factory: Callable[..., Any] | None = None,
                 tracker_config: TrackerConfig | None = None) -> None:
        self._open_source = open_source
        self.settings = settings
        self.clock = clock
        self.period = 1.0 / settings.fps
        self._reader_factory = reader_factory
        self.tracker_config = tracker_config or TrackerConfig(
            hold_s=gate_hold_s(settings.fps, TrackerConfig().hold_s))
        self.board: BoardService | None = None
        self.source = None
        self.reader = None
        self.tracker: Tracker | None = None
        self._corners: np.ndarray | None = None
        # A frame of the bare board for the reader (lighting and wood without pieces). Kept in the
        # data dir so a restart mid-game still has it.
        self.reference_path = settings.data_path / "empty-board.png"
        self.reference: np.ndarray | None = None
        if self.reference_path.exists():
            self.reference = cv2.imread(str(self.reference_path))
        self._resync = True
        # After a restart with a game in progress: the board may no longer show the journal's
        # position (pieces moved while the service was down). The tracker then starts out of sync
        # and records nothing until the board shows the journal's position again.
        self._resuming = False
        self._want_reference = False
        # bumped by every `resync`: a frame taken or read across one shows the board from before
        # (the last game's pieces, on a busy machine), and is not judged against the game now
        self._generation = 0
        self._jpeg_scale = 1.0  # served JPEG pixels per frame pixel
        self._task: asyncio.Task | None = None
        self._frame_lock = threading.Lock()
        # The tracker judges frames in a worker thread, outside the board's lock; an answer or a
        # correction from the page changes it from the event loop. One at a time: a position
        # popped under a judge that is pushing and popping plies on it is no position at all.
        self._tracker_lock = threading.Lock()
        self._latest: np.ndarray | None = None
        self._latest_index = 0
        self._jpeg: tuple[int, bytes] | None = None
        self._last_reading = None
        self._overlay: dict[str, Any] = {}
        self._mount: tuple[Any, dict[str, Any]] | None = None  # (pose, its check), `_mount_check`
        self.capture = CaptureRing()  # the last minute of readings, for a bug report
        self._contrast: dict[str, Any] | None = None  # `_contrast_check`, once a game
        # the plies this game's camera committed surely and that are still unmarked, by number:
        # the only ones a later board may put in doubt (`_second_looks`); a ply a person answered
        # or typed is theirs
        self._sure: dict[int, Ply] = {}
        # (pose, reference frame, its checks), `_bare_board_checks`
        self._bare_board: tuple[Any, Any, dict[str, Any]] | None = None
        self.frames_read = 0
        # observers (the benchmark): called with (event_name, monotonic_time, detail)
        self.observers: list[Callable[[str, float, Any], None]] = []

    @property
    def sim_source(self) -> VirtualTableSource | None:
        return getattr(self._open_source, "sim_source", None)

    # --- control from the board ----------------------------------------------------------------
    async def start(self, board: BoardService) -> None:
        self.attach(board)
        self._task = asyncio.create_task(self._run(), name="camera")

    def attach(self, board: BoardService) -> None:
        """Work for `board`, with no frame loop of its own: frames come through `process`
        (a replay of stored readings, `bench/live.py`); `start` attaches and runs the loop."""
        self.board = board

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self.source is not None:
            self.source.release()

    def answered(self, ply, position, *, then=None, more=None, typed: bool = False) -> list:
        """The camera's own question was answered with `ply` (now played in `position`). The
        board has not changed since the tracker asked, so it keeps its picture of the board (what
        each square looked like) and plays the answer; a fresh tracker would have to judge the
        whole board again from the reader's absolute answers, where a half-hidden piece can
        stall the game. Anything unexpected: rebuild it (`resync`).

        -> the plies the board shows played after the answer, to be recorded next: the reply of
        two plies seen at once (the question was about the pair; `then`: the reply of the
        candidate picked, `Candidate.then`), and after a catch-up the plies after it (`more`:
        the candidate's `Candidate.more`).

        `typed`: the players typed the answer rather than picking a candidate. The first ply of
        a pair typed alone says the reply was not the one seen (fresh bench seed 3865: "b3>
        then c4<" asked, `b3>` typed, and `c4<` recorded after it for `b2-`); a ply no
        candidate names that does not explain the board asked about by itself
        (`Tracker.fits_alone`) leaves more on it (seed 5040: `b4`, never seen, typed for "c4-
        then c2>", and both plies lost). Then the tracker is rebuilt on the game with the
        answer, and judges the board afresh; a ply that explains it (seed 6106: `2b2>11`
        typed for "b2> then b2>") is played in the same tracker."""
        tracker = self.tracker
        if tracker is None or self._resync or tracker.pending is None:
            self._resync = True
            return []
        if typed:
            named = [c for c in tracker.pending.candidates if c.ply == ply]
            alone = any(c.then is None for c in named) or (not named and tracker.fits_alone(ply))
            if not alone:
                self._resync = True
                return []
        with self._tracker_lock:
            try:
                accepted = tracker.accept(ply, then=then, more=more)
            except TakError:  # not legal in the tracked position: they disagree
                self._resync = True
                return []
            follows = [d.ply for d in accepted[1:] if isinstance(d, Commit)]
            expected = position.copy()
            try:
                for later in follows:
                    expected.play(later)
            except TakError:
                follows = []
            if tracker.position.tps() != expected.tps():
                self._resync = True
                return []
        return follows

    def corrected(self, ply, position) -> None:
        """A person corrected the last ply to `ply`: the game is now `position`, the board as it was
        (it showed the corrected ply all along). The tracker swaps its last ply and keeps its
        picture of the board; a fresh tracker would judge the whole board again from the
        reader's absolute answers, which may misread the very piece that was corrected (that
        is how the wrong ply came about). Anything unexpected: `resync`."""
        tracker = self.tracker
        if tracker is None or self._resync:
            self._resync = True
            return
        with self._tracker_lock:
            try:
                tracker.correct_last(ply)
            except TakError:
                self._resync = True
                return
            if tracker.position.tps() != position.tps():
                self._resync = True

    def board_is_right(self, position) -> bool:
        """A person says the board shows the game `position` though the camera reads it
        otherwise (`Tracker.board_is_right`): the camera goes on from the board as it is. False
        when it cannot yet: no board seen since the game changed, or a question waiting."""
        tracker = self.tracker
        if tracker is None or self._resync or tracker.pending is not None:
            return False
        with self._tracker_lock:
            if tracker.position.tps() != position.tps():
                self._resync = True
                return False
            tracker.board_is_right()
            self._resuming = False
            return tracker.state == "tracking"

    def declined(self, position) -> None:
        """A person answered the camera's question with "nothing was played": the game stays
        `position`. The tracker drops the question and keeps the board it asked about as the
        one to compare the next to (`Tracker.decline`); a question it cannot drop so (a revised
        ply, a ply missed before) or anything unexpected: `resync`."""
        tracker = self.tracker
        if tracker is None or self._resync:
            self._resync = True
            return
        with self._tracker_lock:
            if not tracker.decline() or tracker.position.tps() != position.tps():
                self._resync = True

    def took_back(self, position) -> None:
        """The camera's own takeback (the board went back to an earlier position) was recorded:
        the game is now `position`. The tracker made it and already stands there, with its
        picture of the board as it is now; as with `answered`, a fresh tracker would judge the
        whole board again from the reader's absolute answers. Anything unexpected: `resync`."""
        tracker = self.tracker
        if tracker is None or self._resync:
            self._resync = True
            return
        with self._tracker_lock:
            if tracker.position.tps() != position.tps():
                self._resync = True

    def resync(self, *, new_game: bool = False, resumed: bool = False) -> None:
        """The game changed by another way than the camera: rebuild the tracker before next
        frame. A new game (an empty board) also renews the reader's picture of the bare board.
        `resumed`: the game was picked up from the journal after a restart, so the tracker starts
        out of sync until the board shows the journal's position (until then no ply is recorded
        from the camera)."""
        self._resync = True
        self._generation += 1
        if new_game:
            self._want_reference = True
            self._resuming = False
            self._contrast = None  # measured again on the new game's first light flat
            self._sure = {}
            self.capture = CaptureRing()  # a bug report holds one game
        if resumed:
            self._resuming = True

    def calibrate(self, corners: list[tuple[float, float]]) -> None:
        """Four grid corners in pixels of the served JPEG (a1, last file rank 1, far, a last rank),
        or [] for markers again. The reader is rebuilt with them at the next frame."""
        if corners:
            # the page taps on /api/camera/frame.jpg, which may be scaled down from the frame
            pts = np.asarray(corners, dtype=np.float64) / self._jpeg_scale
            a, b, c, d = pts
            (x1, y1), (x2, y2) = c - a, d - b
            area = 0.5 * abs(x1 * y2 - y1 * x2)
            if area < 100:
                from controller.service.errors import BadRequestError

                raise BadRequestError(f"corners {corners} enclose almost no area ({area:.0f} px²): "
                                      "tap the four grid corners in order")
            self._corners = pts
        else:
            self._corners = None
        self.reader = None

    # --- reading for the web -------------------------------------------------------------------
    def latest_jpeg(self) -> bytes | None:
        with self._frame_lock:
            frame, index = self._latest, self._latest_index
        if frame is None:
            return None
        cached = self._jpeg
        if cached is not None and cached[0] == index:
            return cached[1]
        scale = min(1.0, JPEG_MAX_WIDTH / frame.shape[1])
        if scale < 1.0:
            frame = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:
            return None
        self._jpeg = (index, buf.tobytes())
        return self._jpeg[1]

    def overlay(self) -> dict[str, Any]:
        return self._overlay

    async def save_capture(self, *, note: str, game_ptn: str,
                           plies: list[str]) -> tuple[Path, int]:  # fmt: skip
        """The last minute of readings and views as a bug report (`capture.write_capture`), in
        `<data dir>/captures/` -> (its path, readings in it). ValueError when nothing was read
        yet."""
        ring = self.capture.snapshot()  # (here, on the loop that adds to it)
        moments = list(ring.moments)
        first = Position.from_tps(moments[0].tps).ply_count if moments else 0
        about = {"note": note, "saved": time.strftime("%Y-%m-%d %H:%M:%S %z"),
                 "takboard": __version__, "camera": self.board.health.camera.source,
                 "fps": self.settings.fps, "tracker": self.board.health.tracker,
                 "mount": self._mount[1] if self._mount else None,
                 "ply_at_start": first, "plies_in_game": len(plies)}  # fmt: skip
        path = await asyncio.to_thread(
            write_capture, self.settings.data_path / "captures", ring, game_ptn=game_ptn,
            recorded=plies[first:], about=about, hold_s=self.tracker_config.hold_s,
            now=time.time())  # fmt: skip
        return path, len(moments)

    # --- the loop ------------------------------------------------------------------------------
    def _notify(self, name: str, detail: Any = None) -> None:
        for observer in self.observers:
            observer(name, time.monotonic(), detail)

    async def _run(self) -> None:
        board = self.board
        health = board.health.camera
        failures, attempt = 0, 0
        due: float | None = None  # when the next frame is due (a fixed grid, see the end)
        while True:
            if self.source is None:
                try:
                    self.source = await asyncio.to_thread(self._open_source)
                    health.state = "starting"
                    attempt = 0
                except Exception as exc:
                    await self._camera_down("retrying", str(exc))
                    await asyncio.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
                    attempt, due = attempt + 1, None
                    continue
            generation = self._generation
            ok, frame = await asyncio.to_thread(self.source.read)
            if not ok or frame is None:
                failures += 1
                why = getattr(self.source, "error", None) or "no frame"
                await self._camera_down("no_frames", why)
                if failures >= FAILURES_BEFORE_REOPEN:
                    self.source.release()
                    self.source, failures = None, 0
                await asyncio.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
                attempt, due = attempt + 1, None
                continue
            failures = 0
            now = self.clock.monotonic()
            if health.state != "ok":
                was = health.state
                health.frame(now)
                if was != "starting":
                    log.info("camera delivers frames again: recording resumes")
                    self._resync = True
                board.health.recording = "recording"
                board.bus.publish("camera", health.as_dict(now))
            else:
                health.frame(now)
            self.frames_read += 1
            with self._frame_lock:
                self._latest, self._latest_index = frame, self._latest_index + 1
            self._notify("frame", getattr(self.source, "last_version", None))
            try:
                await self.process(frame, now, generation)
            except Exception:
                log.exception("camera frame %d could not be processed", self.frames_read)
            # Frames on a fixed grid: a frame taken late (a slow read, a busy machine) is followed
            # by a shorter wait, so frames stay `period` apart on average instead of drifting
            # later; more than a frame behind, the grid restarts from now (no burst of catch-up).
            after = self.clock.monotonic()
            due = now + self.period if due is None else due + self.period
            if due < after - self.period:
                due = after
            await asyncio.sleep(max(0.0, due - after))

    async def _camera_down(self, state: str, why: str) -> None:
        board = self.board
        health = board.health.camera
        if health.state != state or health.error != why:
            first = health.state in ("ok", "starting", "absent")
            health.state, health.error = state, why
            board.health.recording = "paused"
            (log.warning if first else log.debug)("camera %s: %s; recording paused", state, why)
            board.bus.publish("camera", health.as_dict(self.clock.monotonic()))

    async def process(self, frame: np.ndarray, now: float, generation: int | None = None) -> None:
        """Read `frame`, taken at `now` (the service's clock), and judge the reading: what the
        frame loop does with every frame; `generation`: `_generation` when the frame was taken (a
        frame from before the last `resync` is read but not judged)."""
        board = self.board
        session = board.session
        async with board.lock:  # the game is only read between two complete changes
            size = session.position.size if session.position is not None else self.settings.size
            empty_game = session.position is not None and not session.position.stacks()
        if self.reader is not None and self.reader.size != size:
            self.reader = None
        if self.reader is None or (empty_game and self._want_reference):
            self._take_reference(frame, size, empty_game)
            self.reader = self._make_reader(size, frame.shape[:2])
        lit = self._lit_bgr()
        t0 = time.perf_counter()
        reading = await asyncio.to_thread(self.reader.read, frame, lit)
        latency_ms = (time.perf_counter() - t0) * 1000
        board.health.vision.reading(latency_ms, reading.board_found, reading.occluded,
                                    reading.reason)
        self._last_reading = reading
        self._overlay = self._make_overlay(frame, reading)
        async with board.lock:
            if session.position is None or session.result is not None:
                return
            if generation is not None and generation != self._generation:
                return  # the game changed while the frame was taken or read: it shows the old one
            self.capture.add(now, reading, session.position.tps())
            if self.capture.wants_jpeg(now):
                self.capture.add_jpeg(now, frame)
            if self._resync or self.tracker is None:
                self.tracker = Tracker(session.position.copy(stack=True), self.tracker_config,
                                       resume=self._resuming)
                self._resync = False
        tracker = self.tracker
        decisions, doubts = await asyncio.to_thread(self._step, tracker, reading, now)
        board.health.tracker = tracker.state
        if decisions:
            self._notify("decisions", decisions)
        for decision in decisions:
            if self._resync or tracker is not self.tracker:
                break  # the game changed while the frame was being judged: judge the next one
            await self._apply(decision, doubts)
        if self._contrast is None and any(isinstance(d, Commit) for d in decisions):
            # (on the board a ply was committed on: one that shows the game's position; a clean
            # frame before the tracker has caught up shows the next ply already)
            async with board.lock:
                if session.position is not None:
                    self._contrast = self._contrast_check(frame, session.position)

    def _step(self, tracker: Tracker, reading, now: float) -> tuple[list, dict[int, list[Doubt]]]:
        """The tracker's decisions on `reading`, and the second looks at each ply it committed
        (`_second_looks`), taken at once: they need the board the ply was judged on."""
        with self._tracker_lock:
            decisions = tracker.step(reading, now)
            commits = [d for d in decisions if isinstance(d, Commit)]
            return decisions, {c.number: self._second_looks(tracker, c) for c in commits}

    @staticmethod
    def _second_looks(tracker: Tracker, commit: Commit) -> list[Doubt]:
        """What the board `commit` was judged on says against plies the game may have wrong
        (`controller.tracking.second_look`): the commit itself, when a rival explains what
        changed better and lost only on what the reader read; and earlier spreads that emptied
        a square where this board shows a piece a smaller count would have left. Which of
        those earlier plies this camera committed surely, and so may mark, `_apply` knows."""
        doubt = rival_of_sure(tracker, commit)
        earlier = emptied_yet_seen(tracker, commit, tracker.position.history)
        return ([] if doubt is None else [doubt]) + earlier

    def _take_reference(self, frame: np.ndarray, size: int, empty_game: bool) -> None:
        """Remember the bare board: from the simulator directly, else the first frame of a game
        that has no pieces yet (a new game starts on an empty board)."""
        sim = self.sim_source
        reference = None
        if sim is not None:
            reference = sim.empty_frame()
        elif empty_game:
            reference = frame
        if reference is not None:
            self.reference = reference
            cv2.imwrite(str(self.reference_path), reference)
        self._want_reference = False

    def _make_reader(self, size: int, frame_shape: tuple[int, ...]):
        reference = self.reference
        if reference is not None and reference.shape[:2] != frame_shape:
            reference = None  # another camera or resolution: useless
        if self._reader_factory is not None:
            return self._reader_factory(size, corners=self._corners, reference=reference)
        from vision.reader import BoardReader

        return BoardReader(size, corners=self._corners, reference=reference)

    def _lit_bgr(self) -> dict[str, tuple[int, int, int]] | None:
        leds = self.board.leds
        if leds is None:
            return None
        out = {}
        for square, light in leds.lit().get("squares", {}).items():
            colour = light.get("colour", "#000000")
            if light.get("effect") == "off" or colour == "#000000":
                continue
            r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
            out[square] = (b, g, r)
        return out

    async def _apply(self, decision, doubts: dict[int, list[Doubt]]) -> None:
        """Hand one decision to the board; `doubts`: the second looks of the plies committed
        (`_step`), by number."""
        board = self.board
        match decision:
            case Commit(ply=ply, margin=margin, number=number):
                looks = doubts.get(number, [])
                mine = next((d for d in looks if d.number == number), None)
                try:
                    await board.play(ply, source="camera", margin=margin,
                                     uncertain=mine is not None,
                                     alternatives=() if mine is None else mine.others)  # fmt: skip
                    if mine is None:
                        self._sure[number] = ply
                    else:
                        log.info("ply %d %s marked unsure: %s", number, ply.ptn(), mine.reason)
                    for doubt in looks:
                        if doubt is not mine and self._sure.get(doubt.number) is not None:
                            await board.mark_unsure(doubt.number, self._sure.pop(doubt.number),
                                                    doubt.others, doubt.reason)  # fmt: skip
                except WrongMoveError:
                    # not the computer's ply: forget it, keep watching; the board reports and
                    # blinks the squares to fix, and the computer's ply commits once it is there
                    self.tracker.retract()
                except Exception as exc:
                    log.warning("camera ply %s not recorded (%s): re-reading the board",
                                ply.ptn(), exc)
                    self._resync = True
            case Ask(candidates=candidates, reason=reason):
                await board.ask([c.ply for c in candidates], [c.cost for c in candidates], reason,
                                [c.then for c in candidates], [c.more for c in candidates])
            case Takeback(n=n):
                await board.take_back(n, source="camera")
            case Illegal() | Desync() if self.tracker.state == "tracking":
                pass  # judged before a person said the board is right: the tracker has gone on
            case Illegal(squares=squares):
                await board.report_problem("illegal", list(squares),
                                           "no legal ply explains the board")
            case Desync(expected=expected, squares=squares):
                await board.report_problem("desync", list(squares),
                                           f"the board should show {expected}")
            case Resynced():
                self._resuming = False
                await board.report_in_sync()
            case Withdrawn():
                await board.withdraw_question()
            case GameOver():
                pass  # the journal closed the game when the ending ply was recorded

    def _mount_check(self, pose) -> dict[str, Any]:
        """What the board found says about the camera mount (`vision.mount`), judged again only
        when the board is found anew; a mount to change is logged once per localisation."""
        from vision.mount import check_mount

        if self._mount is None or self._mount[0] is not pose:
            check = check_mount(pose)
            if check.advice:
                log.warning("camera mount: %s", check.summary())
            self._mount = (pose, check.as_dict())
        return self._mount[1]

    def _bare_board_checks(self, pose) -> dict[str, Any]:
        """What the bare board (the reference frame) says of the light: is it overexposed where
        the grid is (`vision.exposure`), does a lamp glare on some squares (`vision.glare`)?
        Judged again when the board is found anew or the reference changes; what to change is
        logged once each time. {} without a reference."""
        from vision.exposure import check_exposure
        from vision.glare import check_glare

        reference = self.reference
        if reference is None:
            return {}
        seen = self._bare_board
        if seen is None or seen[0] is not pose or seen[1] is not reference:
            exposure, glare = check_exposure(reference, pose), check_glare(reference, pose)
            if exposure.advice:
                log.warning("camera exposure: %s", exposure.summary())
            if glare.advice:
                log.warning("glare: %s", glare.summary())
            checks = {"exposure": exposure.as_dict(), "glare": glare.as_dict()}
            self._bare_board = (pose, reference, checks)
        return self._bare_board[2]

    def _contrast_check(self, frame: np.ndarray, position) -> dict[str, Any] | None:
        """How far the game's first lone light flat stands out from the bare board under it
        (`light_piece_contrast`), once per game; what to do about a low contrast is logged once.
        None until there is such a flat, a picture of the bare board and a board found."""
        pose = getattr(self.reader, "pose", None)
        if pose is None or self.reference is None or self.reference.shape != frame.shape:
            return None
        check = light_piece_contrast(frame, self.reference, pose, position)
        if check is None:
            return None
        if check.advice:
            log.warning("piece contrast: %s", check.advice[0])
        return check.as_dict()

    def _make_overlay(self, frame: np.ndarray, reading) -> dict[str, Any]:
        h, w = frame.shape[:2]
        scale = min(1.0, JPEG_MAX_WIDTH / w)
        self._jpeg_scale = scale
        out: dict[str, Any] = {"width": round(w * scale), "height": round(h * scale),
                               "board_found": reading.board_found, "occluded": reading.occluded,
                               "reason": reading.reason,
                               "manual_corners": self._corners is not None}
        pose = getattr(self.reader, "pose", None)
        if not reading.board_found or pose is None:
            return out
        out["mount"] = self._mount_check(pose)
        out.update(self._bare_board_checks(pose))
        if self._contrast is not None:
            out["contrast"] = self._contrast
        n = reading.size
        corners = np.asarray(pose.grid_corners_img(), dtype=float) * scale
        out["grid"] = [[round(x, 1), round(y, 1)] for x, y in corners]
        lines = []
        for i in range(1, n):
            for a, b in (((i, 0), (i, n)), ((0, i), (n, i))):
                ends = np.array([[*a, 0.0], [*b, 0.0]])
                pts = np.asarray(pose.project(ends), dtype=float) * scale
                lines.append([[round(pts[0][0], 1), round(pts[0][1], 1)],
                              [round(pts[1][0], 1), round(pts[1][1], 1)]])
        out["lines"] = lines
        squares = {}
        for name, sq in reading.squares.items():
            f, r = "abcdefgh".index(name[0]), int(name[1:]) - 1
            centre = np.asarray(pose.project(np.array([[f + 0.5, r + 0.5, 0.0]])), dtype=float)
            centre = centre.reshape(-1)[:2] * scale
            squares[name] = {"center": [round(centre[0], 1), round(centre[1], 1)],
                             "label": sq.label(), "confidence": round(sq.confidence, 3)}
        out["squares"] = squares
        return out

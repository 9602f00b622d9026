"""Benchmark: stored games through the running board, every question answered as the players
answer it: what a player at a live board gets. (`bench/replay.py` gives the same readings to
the offline recorder, which has nobody to ask and guesses.)

    python bench/record.py --seed 6001 --games 50 --save-readings runs/6001   # read once
    python bench/live.py runs/6001 --jobs 2 --json runs/6001-live.json
    takboard bench live tests/record/games/seed5430-start.npz

Each game's readings (`bench/record.py --save-readings`) go frame by frame, at the 5 fps they
were read at, through the service's own camera pipeline (`CameraPipeline`: the tracker and its
second looks), the board service and its SQLite journal, as a camera's readings do under
`takboard serve`. A question the board asks is answered with the ply played: its candidate (of
a pair and its first ply alone, "3a1> then b2" or "3a1>", the one naming every ply made when
the question came up); when no candidate is, the ply typed ("another..." on the page); "none:
nothing was played" when the board is still and shows no new ply. Players answer once the board
is still (a question asked while a hand is still making the ply waits for the hand to finish
it). A board reported wrong for 3 s is set right as players set it right on the page: the plies
the game misses typed in, or "The board is right" pressed when the game is the game played and
the camera misreads the board. When a ply was played is known for the benchmark's own games
(the seed in the file name replays the game's timeline without rendering it); for others each
question is answered at once, as about the next ply.

Figures: plies recorded exactly, silent errors (a wrong ply recorded unmarked: the one error a
player cannot see), plies marked unsure (and of them, marked later by a board that showed more),
questions asked (and answered by typing, or with "none"), illegal-board and desync reports and
how they were set right.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import json
import logging
import multiprocessing
import re
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.record import game_plan  # noqa: E402
from bench.replay import readings_files  # noqa: E402
from controller.service.board import BoardService  # noqa: E402
from controller.service.camera import CameraPipeline  # noqa: E402
from controller.service.config import Settings  # noqa: E402
from controller.service.errors import ServiceError  # noqa: E402
from controller.service.events import Event  # noqa: E402
from controller.store import Journal  # noqa: E402
from controller.tak import Ply  # noqa: E402
from vision.readings_file import StoredReader, load_readings  # noqa: E402

FPS = 5.0
# After the last frame the board stays as it is and the camera goes on seeing it: its last
# reading is given for this much longer (the offline recorder decides on the last board when
# the frames end, `Recorder.finish`; a running board has no end of frames, only more of them).
AFTER_S = 3.0
# ... and longer while a question waits for its answer, up to this: players who answer late
# answer each question that long after it came up, and the last may come up only once those
# before it are answered (fresh seed 6148 answered 6 s late: its last ply asked 0.6 s after
# the question before was answered, 6 s before the players would answer, and never recorded)
LAST_QUESTION_S = 60.0
# A ply is expected recorded once its still board has stood this long (the stability gate, then a
# close call judged on more frames): a stored game cut short just after a ply is not scored on it.
SETTLE_S = 2.0
# A board reported wrong (illegal, out of sync) this long, still, is set right by the players
# typing the plies it is missing on the page (the banner shows the game and a field to type in).
FIX_AFTER_S = 3.0
FRAME = np.zeros((8, 8, 3), np.uint8)  # never looked at: the readings were read off the real ones


@dataclass
class LiveResult:
    size: int
    plies: int
    recorded: int = 0
    exact: int = 0
    silent_errors: int = 0
    unsure: int = 0
    marked_later: int = 0
    questions: int = 0
    typed: int = 0  # answers typed: no candidate was the ply played
    typed_in: int = 0  # plies typed on the page to put a board reported wrong right
    said_right: int = 0  # "The board is right" pressed: the board was right, read wrong
    declined: int = 0  # answered "none: nothing was played"
    illegal_reports: int = 0
    desyncs: int = 0
    timed: bool = False  # when each ply was played is known (the benchmark's own games)
    first_error: str = ""

    @property
    def perfect(self) -> bool:
        return self.exact == self.plies == self.recorded


class Stopped:
    """The service's clock, standing still: the frames carry their own times."""

    def monotonic(self) -> float:
        return 0.0

    def wall(self) -> float:
        return time.time()


@dataclass(frozen=True)
class Played:
    """One of the benchmark's games as it was played: all its plies, and per frame how many
    were complete on a still board (None while a hand is over it or the board is not yet as
    it will stay)."""

    plies: list[Ply]
    done: list[int | None]

    def settled(self, frames: int) -> int:
        """The plies whose still board stood SETTLE_S before frame `frames`: those a board
        given the first `frames` frames (the last one repeated past the file's end) must have
        recorded."""
        last = frames - round(SETTLE_S * FPS)
        return max((d for d in self.done[:last] if d is not None), default=0)


def as_played(path: Path, plies: list[Ply], frames: int) -> Played | None:
    """The game `path` holds the readings of, as played, when it is one of the benchmark's
    games (`seedN.npz`, or the start of one: `seedN-start.npz`) and its timeline, replayed from
    the seed without rendering, plays the plies stored with it; else None."""
    found = re.match(r"seed(\d+)", path.name)
    if found is None:
        return None
    _, _, game, shots = game_plan(int(found.group(1)), FPS)
    if game[: len(plies)] != plies:
        return None
    done = [shot.done if shot.still else None for shot in shots]
    return Played(game, done[:frames]) if len(done) >= frames else None


async def _answer(board: BoardService, truth: list[Ply], played: int, result: LiveResult,
                  played_when_asked: int | None = None) -> None:  # fmt: skip
    """Answer the board's question as the players would; `played`: the plies complete on the
    board now; `played_when_asked`: when the question came up (None: the same)."""
    amb = board.session.ambiguity
    recorded = board.session.position.ply_count
    if recorded >= played:
        result.declined += 1
        await board.decline_question(amb.id)
        return
    # the plies each candidate records after those recorded, where they are the plies played
    fitting = {i: len(sequence) for i in range(len(amb.candidates))
               if (sequence := amb.sequence(i)) == truth[recorded:recorded + len(sequence)]
               and recorded + len(sequence) <= played}  # fmt: skip
    if fitting:
        # The players name the plies they had made when the question came up: "3a1> then b2"
        # rather than "3a1> alone" when b2 was on the board too (picking the pair's first ply
        # alone says b2 was not played). Plies made after the question are not its business.
        made = played if played_when_asked is None else min(played, played_when_asked)
        named = [i for i, n in fitting.items() if recorded + n <= made]
        choice = max(named, key=fitting.__getitem__) if named else next(iter(fitting))
        await board.resolve(amb.id, choice)
        return
    typed = truth[recorded] if recorded < len(truth) else None
    if typed is None or typed not in board.session.position.legal_plies:
        # the game as recorded has gone another way (a ply recorded wrong, marked): the ply
        # played cannot be typed in it, and the players would set the record right by hand
        result.declined += 1
        await board.decline_question(amb.id)
        return
    result.typed += 1
    await board.resolve(amb.id, typed)


async def _type_missing(board: BoardService, truth: list[Ply], done: int) -> int:
    """The players type, on the page, every ply played that the game is missing, in order: how
    many (0 when none is missing or the first cannot be played in the game as recorded, gone
    another way). (One ply at a time, each after the board had been reported wrong for
    `FIX_AFTER_S`, players who play on while they answer never caught up: fresh seeds 6150 and
    6161, answered 3 s late, were out of sync for their last 7 and 16 plies.)"""
    position, typed = board.session.position, 0
    while (recorded := position.ply_count) < min(done, len(truth)) and (
            truth[recorded] in position.legal_plies):  # fmt: skip
        await board.play(truth[recorded], source="manual")
        position, typed = board.session.position, typed + 1
    return typed


async def _say_right(board: BoardService, truth: list[Ply], done: int) -> bool:
    """The players press "The board is right" when it is: the game as recorded is the game
    played so far, every ply of it (the camera misreads the board). False when it is not, or
    the board cannot take it now."""
    recorded = [entry.ply for entry in board.session.journal.game(board.session.game_id).plies]
    if recorded != truth[:done]:
        return False
    try:
        await board.board_is_right()
    except ServiceError:
        return False
    return True


def replay_live(path: Path, data_dir: Path | None = None,
                listen: Callable[[Event], None] | None = None,
                answer_after: float = 0.0) -> LiveResult:  # fmt: skip
    """Game `path`'s readings through a camera pipeline and a board service, every question
    answered; its journal in `data_dir` (a temporary folder when None); `listen`: called with
    every event the board publishes, as the page hears them; `answer_after`: the players
    answer a question only once it has been on the page this long (seconds of the game's
    clock; the game goes on meanwhile, as the frames were recorded)."""
    size, readings, names = load_readings(path)
    stored = [Ply.from_ptn(p) for p in names]
    if not stored:
        raise ValueError(f"{path}: holds no true plies to score against")
    played = as_played(path, stored, len(readings))
    done = None if played is None else played.done
    truth = stored if played is None else played.plies
    # the camera's next frames of the board left as it is: its last reading, without the motion
    # of a hand just gone (a game cut short mid-ply, as some stored tests are, or one whose
    # timeline is unknown, stops there)
    last = readings[-1]
    stays = done is not None and done[-1] is not None and last.board_found and not last.occluded
    # (players who answer late answer the last question too before they put the board away,
    # and one that came up behind another: the board stays while one waits, up to a minute)
    still_last = dataclasses.replace(last, moving=False, reason="")
    given = [*readings, *[still_last] * round((AFTER_S + answer_after) * FPS * stays)]
    waits = round(LAST_QUESTION_S * FPS * stays)
    expected = len(stored) if played is None else played.settled(len(given))
    result = LiveResult(size, expected, timed=played is not None)
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch) if data_dir is None else data_dir
        settings = Settings(data_dir=data, size=size, fps=FPS)
        reader = StoredReader(itertools.chain(given, itertools.repeat(still_last)), size)
        camera = CameraPipeline(lambda: None, settings=settings, clock=Stopped(),
                                reader_factory=lambda *_, **__: reader)  # fmt: skip
        board = BoardService(settings=settings, journal=Journal(data / "games.db"), camera=camera,
                             clock=Stopped())  # fmt: skip
        events: list[str] = []
        board.bus.listen(lambda event: events.append(event.type))
        if listen is not None:
            board.bus.listen(listen)

        async def play() -> None:
            await board.new_game(size=size, komi=0, players=("", ""), opening="swap")
            camera.attach(board)  # (no frame loop: the frames come here)
            wrong_since = None  # when the board began reporting the board wrong (illegal, desync)
            asked: tuple[int, int] | None = None  # (the question's id, the frame it came on)
            for k in itertools.count():
                if k >= len(given) and (k >= len(given) + waits
                                        or board.session.ambiguity is None):  # fmt: skip
                    break
                await camera.process(FRAME, k / FPS)
                # (when the plies were played is unknown: each question answered at once)
                still = len(truth) if done is None else done[min(k, len(done) - 1)]
                question = board.session.ambiguity
                if question is not None and (asked is None or asked[0] != question.id):
                    asked = (question.id, k)
                if (question is not None and still is not None
                        and k - asked[1] >= answer_after * FPS):  # fmt: skip
                    made = None if done is None else done[min(asked[1], len(done) - 1)]
                    await _answer(board, truth, still, result, made)
                if not board.problem:
                    wrong_since = None
                elif wrong_since is None:
                    wrong_since = k
                if (wrong_since is not None and still is not None
                        and k - wrong_since >= FIX_AFTER_S * FPS):  # fmt: skip
                    # the page says the board is wrong and shows the game: the players type
                    # the plies the game is missing, or say the board is right when it is
                    wrong_since = None
                    if typed := await _type_missing(board, truth, still):
                        result.typed_in += typed
                    elif await _say_right(board, truth, still):
                        result.said_right += 1

        asyncio.run(play())
        record = board.session.journal.game(board.session.game_id)
        board.session.journal.close()
    result.recorded = min(len(record.plies), expected)
    result.questions = events.count("ambiguity")
    result.marked_later = events.count("ply_marked")
    result.illegal_reports = events.count("illegal_state")
    result.desyncs = events.count("desync")
    # (a ply recorded right past the plies expected, made in the last seconds, is neither)
    for entry in record.plies:
        was = truth[entry.number - 1] if entry.number <= len(truth) else None
        result.unsure += entry.uncertain and entry.number <= expected
        if entry.ply == was:
            result.exact += entry.number <= expected
            continue
        result.silent_errors += not entry.uncertain
        if not result.first_error:
            result.first_error = (f"ply {entry.number}: recorded {entry.ply.ptn()}"
                                  f"{'?' if entry.uncertain else ''}, played "
                                  f"{was.ptn() if was else 'nothing'}")  # fmt: skip
    if not result.first_error and result.recorded < expected:
        result.first_error = (f"ply {result.recorded + 1} ({truth[result.recorded].ptn()}) "
                              "never recorded")  # fmt: skip
    return result


def _replay(job: tuple[Path, float]) -> tuple[str, LiveResult]:
    logging.disable(logging.WARNING)  # the board's own log of each report: the figures count them
    path, answer_after = job
    return str(path), replay_live(path, answer_after=answer_after)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/live.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                        help="readings files (.npz) or folders of them")  # fmt: skip
    parser.add_argument("--jobs", type=int, default=1, help="games replayed in parallel (1)")
    parser.add_argument("--json", type=Path, help="write the figures and per-game results here")
    parser.add_argument("--all", action="store_true",
                        help="a line for every game, not only the imperfect ones")  # fmt: skip
    parser.add_argument("--answer-after", type=float, default=0.0, metavar="S",
                        help="players answer a question once it has been asked S seconds "
                             "(0: as soon as the board is still)")  # fmt: skip
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    files = readings_files(args.paths)
    started = time.perf_counter()
    results: dict[str, LiveResult] = {}
    try:
        with multiprocessing.get_context("spawn").Pool(max(1, args.jobs)) as pool:
            for name, r in pool.imap(_replay, [(f, args.answer_after) for f in files]):
                results[name] = r
                if not args.quiet:
                    n = len(results)
                    bar = "#" * (30 * n // len(files)) + "." * (30 - 30 * n // len(files))
                    print(f"\r[{bar}] {n}/{len(files)} games", file=sys.stderr,
                          end="" if n < len(files) else "\n")  # fmt: skip
    except ValueError as error:  # not a readings file, or one without its true plies: says which
        print(f"bench/live.py: {error}", file=sys.stderr)
        return 2

    for name, r in results.items():
        if args.all or not r.perfect or r.silent_errors:
            status = "perfect" if r.perfect else r.first_error
            print(f"{Path(name).name:<24} {r.size}x{r.size} {r.exact:>3}/{r.plies:<3} "
                  f"questions {r.questions:<2} unsure {r.unsure:<2} silent {r.silent_errors}  "
                  f"{status}")  # fmt: skip
    total = list(results.values())
    plies = sum(r.plies for r in total)
    exact = sum(r.exact for r in total)
    summary = {
        "games": len(total),
        "plies": plies,
        "plies_exact": exact,
        "plies_exact_pct": round(100.0 * exact / plies, 2) if plies else 0.0,
        "games_perfect": sum(r.perfect for r in total),
        "silent_errors": sum(r.silent_errors for r in total),
        "plies_unsure": sum(r.unsure for r in total),
        "marked_later": sum(r.marked_later for r in total),
        "questions": sum(r.questions for r in total),
        "questions_per_game": round(sum(r.questions for r in total) / len(total), 2),
        "answers_typed": sum(r.typed for r in total),
        "plies_typed_in": sum(r.typed_in for r in total),
        "said_right": sum(r.said_right for r in total),
        "answers_none": sum(r.declined for r in total),
        "illegal_reports": sum(r.illegal_reports for r in total),
        "desyncs": sum(r.desyncs for r in total),
        "games_timed": sum(r.timed for r in total),
        "answer_after_s": args.answer_after,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    s = summary
    print(f"live board, every question answered: {s['games']} games, {plies} plies")
    print(f"  plies recorded exactly   {s['plies_exact_pct']:.2f} %   ({exact} of {plies})")
    print(f"  games recorded perfectly {s['games_perfect']} of {s['games']}")
    print(f"  silent errors            {s['silent_errors']}")
    print(f"  plies marked unsure (?)  {s['plies_unsure']} ({s['marked_later']} by a later board)")
    print(f"  questions                {s['questions']} ({s['questions_per_game']} a game; "
          f"answered by typing {s['answers_typed']}, with none {s['answers_none']})")
    print(f"  illegal reports / desyncs {s['illegal_reports']} / {s['desyncs']}; set right by "
          f"typing plies {s['plies_typed_in']}, by \"the board is right\" {s['said_right']}")
    print(f"  games timed from their seed {s['games_timed']} of {s['games']}; "
          f"{s['wall_s']:.0f} s")  # fmt: skip
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        games = {name: {**asdict(r), "perfect": r.perfect} for name, r in results.items()}
        args.json.write_text(json.dumps({"summary": summary, "games": games}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

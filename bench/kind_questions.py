"""How often a kind question puts the stone played first: the questions that ask which stone
was placed on one square (a flat, a wall or a capstone), on stored games recorded right up to
them, and how their order would come out with the stones' prior counted (`by_change.STONE_PRIOR`)
or not (the tracker's order since session 48).

    python bench/kind_questions.py runs/4751 runs/5801 --jobs 2

PATHS are readings files or folders of them (`bench/record.py --save-readings`,
`tests/record/games`). Each game is replayed through the recorder as `bench/replay.py` does;
at each such question the placements on its square are taken with the scores they were asked
with (the prior in them) and put in order both ways. The right one is the ply played (stored
with the readings). Prints how many questions put it first each way, and lists the questions
that one of the two orders gets wrong.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.commands.record import Recorder  # noqa: E402
from controller.tak import Ply  # noqa: E402
from controller.tracking import Ask  # noqa: E402
from controller.tracking.by_change import stone_prior  # noqa: E402
from vision.readings_file import StoredReader, load_readings  # noqa: E402

FPS = 5.0


def _count_questions():
    """bench/count_questions.py, for its replaying of many games (bench/ is not put on the
    path: its `vision.py` would hide the `vision` package)."""
    if "bench_count_questions" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_count_questions",
                                                      BENCH / "count_questions.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_count_questions"] = module
        spec.loader.exec_module(module)
    return sys.modules["bench_count_questions"]


def questions(path: Path) -> list[dict]:
    """Each kind question of the game at `path` asked while the game was right so far: its ply
    number, the ply played, and the placements on the square with their scores as asked."""
    size, readings, plies = load_readings(path)
    truth = [Ply.from_ptn(p) for p in plies]
    recorder = Recorder(size, StoredReader(readings))
    seen: list[dict] = []
    for k in range(len(readings)):
        right_so_far = [n.ply for n in recorder.notes] == truth[: len(recorder.notes)]
        number = recorder.tracker.position.ply_count + 1
        for event in recorder.feed(None, k / FPS):
            ask = event.decision
            if not isinstance(ask, Ask) or not right_so_far or number > len(truth):
                continue
            if "revised" in ask.reason:  # (asked again at no cost: its board was judged before)
                continue
            first = ask.candidates[0].ply
            stones = [c for c in ask.candidates if c.then is None and c.ply.is_placement
                      and c.ply.square == first.square]  # fmt: skip
            if not first.is_placement or len(stones) < 2:
                continue
            seen.append({
                "game": path.name,
                "number": number,
                "played": truth[number - 1],
                "candidates": [(c.ply, c.cost) for c in stones],
            })  # fmt: skip
    recorder.finish()
    return seen


def first(question: dict, *, prior: bool) -> Ply:
    """The placement put first, its score with the stone prior (`prior`) or without it."""
    def key(scored: tuple[Ply, float]) -> float:
        ply, score = scored
        return score - (0.0 if prior else stone_prior(ply))

    return min(question["candidates"], key=key)[0]  # (min keeps the order asked among ties)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    files, found = _count_questions().gather(parser, args.paths, args.jobs, questions)
    among = [q for q in found if q["played"] in {ply for ply, _ in q["candidates"]}]
    with_prior = sum(first(q, prior=True) == q["played"] for q in among)
    without = sum(first(q, prior=False) == q["played"] for q in among)
    print(f"{len(files)} games, {len(found)} kind questions, the stone played among the "
          f"candidates in {len(among)}")  # fmt: skip
    print(f"right first, ordered with the stone prior:    {with_prior:5d} / {len(among)}")
    print(f"right first, ordered without it (the tracker): {without:4d} / {len(among)}")
    for q in among:
        prior, plain = first(q, prior=True), first(q, prior=False)
        if q["played"] not in (prior, plain) or prior != plain:
            print(f"  {q['game']} ply {q['number']}: played {q['played'].ptn()}, first "
                  f"{prior.ptn()} with the prior, {plain.ptn()} without")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

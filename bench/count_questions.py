"""How often a count question puts the spread played first: the questions that ask only about
one spread's counts or drops, on stored games recorded right up to them, and how their order
would come out with another share of the heights' surprise (`tracker.COUNT_SURPRISE`).

    python bench/count_questions.py runs/4751 runs/4801 --jobs 2

PATHS are readings files or folders of them (`bench/record.py --save-readings`,
`tests/record/games`). Each game is replayed through the recorder as `bench/replay.py` does;
at each such question the candidates' costs are taken as asked, the surprise term the tracker
added is taken off again, and the candidates are re-ordered with each share given by `--shares`.
The right one is the ply played (stored with the readings). Prints, per share, how many
questions put it first, overall, between counts, and between drops of one count.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controller.commands.record import Recorder  # noqa: E402
from controller.tak import Ply  # noqa: E402
from controller.tracking import Ask  # noqa: E402
from controller.tracking import tracker as tracking  # noqa: E402
from controller.tracking.by_change import other_drops  # noqa: E402
from vision.readings_file import StoredReader, load_readings  # noqa: E402

FPS = 5.0


def questions(path: Path) -> list[dict]:
    """Each count question of the game at `path` asked while the game was right so far: the
    played ply's index among the candidates (None: not among them), the candidates' costs
    without the surprise term, their surprise, and whether they share one count."""
    size, readings, plies = load_readings(path)
    truth = [Ply.from_ptn(p) for p in plies]
    recorder = Recorder(size, StoredReader(readings))
    tracker = recorder.tracker
    seen: list[dict] = []
    asked_about: dict = {}
    number = 0
    original = tracker._count_surprise

    def count_surprise(plies_, best, evidence):  # the surprise each candidate was given
        out = original(plies_, best, evidence)
        asked_about.update(out)
        return out

    tracker._count_surprise = count_surprise  # type: ignore[method-assign]
    for k in range(len(readings)):
        right_so_far = [n.ply for n in recorder.notes] == truth[: len(recorder.notes)]
        if tracker.position.ply_count + 1 != number:  # (a question may come frames after
            asked_about.clear()  # its board was judged: kept while the position stands)
        number = tracker.position.ply_count + 1
        for event in recorder.feed(None, k / FPS):
            ask = event.decision
            if not isinstance(ask, Ask) or not right_so_far or number > len(truth):
                continue
            candidates = ask.candidates
            first = candidates[0].ply
            if len(candidates) < 2 or any(c.then is not None for c in candidates):
                continue
            if not all(other_drops(c.ply, first) for c in candidates):
                continue
            # only a question judged on this board (a revision asks again at no cost, with no
            # surprise of its own; its board was judged when first asked)
            if "revised" in ask.reason or not all(c.ply in asked_about for c in candidates):
                continue
            surprise = [asked_about.get(c.ply, 0.0) for c in candidates]
            played = truth[number - 1]
            seen.append({
                "right": next((i for i, c in enumerate(candidates) if c.ply == played), None),
                "cost": [c.cost - tracking.COUNT_SURPRISE * s
                         for c, s in zip(candidates, surprise, strict=True)],
                "surprise": surprise,
                "one_count": len({c.ply.count for c in candidates}) == 1,
            })  # fmt: skip
    recorder.finish()
    return seen


def right_first(found: list[dict], share: float) -> int:
    return sum(
        min(range(len(q["cost"])), key=lambda i: q["cost"][i] + share * q["surprise"][i])
        == q["right"]
        for q in found
    )


def gather(parser: argparse.ArgumentParser, paths: list[Path], jobs: int,
           questions) -> tuple[list[Path], list[dict]]:  # fmt: skip
    """The readings files in `paths` (files, or folders of them) and the questions that
    `questions(file)` finds in each, `jobs` games replayed at a time. A missing path, no
    readings file, or a file that is not one, is said by `parser` and ends the run."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        parser.error(f"no such file or folder: {', '.join(missing)}")
    files = sorted(f for p in paths for f in (p.glob("*.npz") if p.is_dir() else [p]))
    if not files:
        parser.error("no readings files (*.npz) in " + ", ".join(map(str, paths)))
    try:
        with multiprocessing.Pool(jobs) as pool:
            return files, [q for game in pool.imap(questions, files) for q in game]
    except ValueError as error:  # (a file that is not a readings file says which)
        parser.exit(2, f"{parser.prog}: {error}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--shares", type=float, nargs="+", default=[0.0, 0.1, 0.25, 0.5, 1.0])
    args = parser.parse_args(argv)
    files, found = gather(parser, args.paths, args.jobs, questions)
    among = [q for q in found if q["right"] is not None]
    counts = [q for q in among if not q["one_count"]]
    drops = [q for q in among if q["one_count"]]
    print(f"{len(files)} games, {len(found)} count questions, the ply played among the "
          f"candidates in {len(among)}")  # fmt: skip
    print("share    right first    between counts    between drops of one count")
    for share in args.shares:
        print(f"{share:5.2f}    {right_first(among, share):5d} / {len(among):<5d}"
              f"  {right_first(counts, share):5d} / {len(counts):<5d}"
              f"     {right_first(drops, share):5d} / {len(drops)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Strength: the engine against a random mover, a 1-ply greedy bot, or itself at a lower depth.

    python bench/match.py --opponent greedy --games 200 --time-ms 1000      # the issue's target
    python bench/match.py --opponent random --games 100 --depth 2
    python bench/match.py --opponent self --opp-depth 1 --depth 3 --games 100
    takboard bench match --opponent greedy --games 20 --time-ms 300

Openings are balanced: each opening (the two swap plies plus `--opening-plies` more, all random)
is played twice with colours swapped. The score counts a win 1, a draw 1/2; the error bar is the
95 % interval (normal approximation of the per-game score; Wilson for a perfect or zero score).
Engine time is CPU time of this process, so a busy shared machine does not weaken it. Games that
reach `--max-plies` are adjudicated on the flat count with komi. A progress bar goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

from controller.engine.board import Ply, Position, new_position
from controller.engine.bots import greedy_ply, random_ply
from controller.engine.limits import Limit
from controller.engine.search import Searcher

Player = Callable[[Position], Ply]


def engine_player(limit: Limit) -> tuple[Player, Searcher]:
    searcher = Searcher(clock=time.process_time)

    def play(board: Position) -> Ply:
        result = searcher.search(board, limit)
        assert result.best is not None
        return result.best

    return play, searcher


def _play_task(task: tuple) -> tuple:
    """One game in a worker: (game, engine colour, winner, reason, plies, CPU seconds)."""
    game, opening, limit, komi, size, opponent_kind, opp_depth, max_plies, seed = task
    cpu = time.process_time()
    engine, _ = engine_player(limit)
    bot_rng = random.Random(seed * 100_003 + game)
    if opponent_kind == "random":
        opponent: Player = lambda b: random_ply(b, bot_rng)  # noqa: E731
    elif opponent_kind == "greedy":
        opponent = lambda b: greedy_ply(b, bot_rng)  # noqa: E731
    else:
        opponent, _ = engine_player(Limit(depth=opp_depth))
    engine_colour = game % 2
    white, black = (engine, opponent) if engine_colour == 0 else (opponent, engine)
    start = new_position(size, komi=komi)
    plies = [start.play(text) for text in opening]
    winner, reason, played = play_game(size, komi, plies, white, black, max_plies)
    return game, engine_colour, winner, reason, played, time.process_time() - cpu


def play_game(
    size: int, komi: int, opening: list[Ply], white: Player, black: Player, max_plies: int
) -> tuple[int | None, str, list[str]]:
    """(winner 0/1/None, reason, plies in PTN) of one game from a given opening."""
    board = new_position(size, komi=komi)
    played: list[str] = []
    for ply in opening:
        played.append(board.push(ply).ptn())
    while True:
        end = board.outcome()
        if end is not None:
            return end.winner, end.reason, played
        if board.ply_count >= max_plies:
            white_flats, black_flats = board.flat_count()
            diff = 2 * (white_flats - black_flats) - komi
            return (0 if diff > 0 else 1 if diff < 0 else None), "adjudicated", played
        mover = white if board.to_move == 0 else black
        ply = mover(board)
        played.append(board.push(ply).ptn())


def save_game(path: Path, size: int, komi: int, plies: list[str], white: str, black: str) -> None:
    """Write a game as PTN through the rules engine's own writer (for looking at losses)."""
    from controller.tak import Position, ptn

    position = Position(size, komi=komi)
    for text in plies:
        position.play(text)
    game = ptn.Game.from_position(position, tags={"Player1": white, "Player2": black})
    path.write_text(ptn.write_game(game), encoding="utf-8")


def random_opening(size: int, komi: int, plies: int, rng: random.Random) -> list[Ply]:
    board = new_position(size, komi=komi)
    out = []
    while len(out) < plies:
        ply = rng.choice(board.generate())
        board.push(ply)
        if board.is_over:  # impossible this early, but never start a dead game
            board.pop()
            continue
        out.append(ply)
    return out


def interval(scores: list[float]) -> tuple[float, float, float]:
    """(mean, low, high) 95 % interval of the mean score."""
    n = len(scores)
    mean = sum(scores) / n
    if mean in (0.0, 1.0):
        z = 1.96
        centre = (mean + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return mean, max(0.0, centre - half), min(1.0, centre + half)
    var = sum((s - mean) ** 2 for s in scores) / (n - 1)
    half = 1.96 * math.sqrt(var / n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def progress(done: int, total: int, w: int, d: int, losses: int, started: float) -> None:
    width = 30
    filled = int(width * done / total)
    elapsed = time.monotonic() - started
    eta = elapsed / done * (total - done) if done else 0
    sys.stderr.write(
        f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games  "
        f"W{w} D{d} L{losses}  {elapsed / 60:.1f} min, eta {eta / 60:.1f} min "
    )
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--komi", type=float, default=0.0, help="komi in flats")
    parser.add_argument("--games", type=int, default=200, help="even: openings are played twice")
    parser.add_argument("--opponent", choices=("random", "greedy", "self"), default="greedy")
    parser.add_argument("--time-ms", type=int, default=1000, help="engine CPU time per ply")
    parser.add_argument("--depth", type=int, default=None, help="engine fixed depth instead")
    parser.add_argument("--opp-depth", type=int, default=1, help="depth of the 'self' opponent")
    parser.add_argument("--opening-plies", type=int, default=4, help="random plies to start")
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    parser.add_argument("--jobs", type=int, default=1, help="games played in parallel processes")
    parser.add_argument("--save-losses", metavar="DIR", type=Path, help="write lost games as PTN")
    args = parser.parse_args(argv)
    komi = round(args.komi * 2)
    rng = random.Random(args.seed)
    limit = Limit(depth=args.depth) if args.depth else Limit(movetime_ms=args.time_ms)
    scores: list[float] = []
    wins = draws = losses = 0
    reasons: dict[str, int] = {}
    started = time.monotonic()
    games = args.games + (args.games % 2)
    tasks = []
    opening: list[str] = []
    for game in range(games):
        if game % 2 == 0:
            opening = [p.ptn() for p in random_opening(args.size, komi, args.opening_plies, rng)]
        tasks.append((game, opening, limit, komi, args.size, args.opponent, args.opp_depth,
                      args.max_plies, args.seed))
    cpu_children = 0.0
    if args.jobs > 1:
        import multiprocessing

        pool = multiprocessing.Pool(args.jobs)
        results = pool.imap_unordered(_play_task, tasks)
    else:
        pool = None
        results = map(_play_task, tasks)
    for game, engine_colour, winner, reason, plies, cpu in results:
        cpu_children += cpu
        if winner is None:
            draws += 1
            scores.append(0.5)
        elif winner == engine_colour:
            wins += 1
            scores.append(1.0)
        else:
            losses += 1
            scores.append(0.0)
            if args.save_losses:
                args.save_losses.mkdir(parents=True, exist_ok=True)
                names = ["engine", args.opponent][:: 1 if engine_colour == 0 else -1]
                save_game(args.save_losses / f"loss-{game + 1}.ptn", args.size, komi, plies, *names)
        reasons[reason] = reasons.get(reason, 0) + 1
        progress(len(scores), games, wins, draws, losses, started)
    if pool is not None:
        pool.close()
        pool.join()
    sys.stderr.write("\n")
    mean, low, high = interval(scores)
    engine_desc = f"depth {args.depth}" if args.depth else f"{args.time_ms} ms/ply"
    opp_desc = f"self at depth {args.opp_depth}" if args.opponent == "self" else args.opponent
    print(
        f"{args.size}x{args.size} komi {args.komi:g}: engine ({engine_desc}) vs {opp_desc}, "
        f"{games} games: +{wins} ={draws} -{losses}, score {100 * mean:.1f} % "
        f"(95 % CI {100 * low:.1f}-{100 * high:.1f} %); endings {reasons}; "
        f"CPU {cpu_children:.0f} s, wall {(time.monotonic() - started) / 60:.1f} min"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(
                {
                    "size": args.size,
                    "komi": args.komi,
                    "engine": engine_desc,
                    "opponent": opp_desc,
                    "games": games,
                    "wins": wins,
                    "draws": draws,
                    "losses": losses,
                    "score": mean,
                    "ci95": [low, high],
                    "endings": reasons,
                },
                handle,
                indent=2,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

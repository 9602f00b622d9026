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

from controller.engine.board import Board
from controller.engine.bots import greedy_ply, random_ply
from controller.engine.limits import Limit
from controller.engine.search import Searcher

Player = Callable[[Board], tuple]


def engine_player(limit: Limit) -> tuple[Player, Searcher]:
    searcher = Searcher(clock=time.process_time)

    def play(board: Board) -> tuple:
        result = searcher.search(board, limit)
        assert result.best is not None
        return result.best

    return play, searcher


def play_game(
    size: int, komi: int, opening: list[tuple], white: Player, black: Player, max_plies: int
) -> tuple[int | None, str, list[str]]:
    """(winner 0/1/None, reason, plies in PTN) of one game from a given opening."""
    board = Board(size, komi=komi)
    played: list[str] = []
    for ply in opening:
        played.append(board.ptn(ply))
        board.make(ply)
    while True:
        end = board.game_end()
        if end is not None:
            return end.winner, end.reason, played
        if board.ply_count >= max_plies:
            end = board.flat_result()
            return end.winner, "adjudicated", played
        mover = white if board.to_move == 0 else black
        ply = mover(board)
        played.append(board.ptn(ply))
        board.make(ply)


def save_game(path: Path, size: int, komi: int, plies: list[str], white: str, black: str) -> None:
    """Write a game as PTN through the rules engine's own writer (for looking at losses)."""
    from controller.tak import Position, ptn

    position = Position(size, komi=komi)
    for text in plies:
        position.play(text)
    game = ptn.Game.from_position(position, tags={"Player1": white, "Player2": black})
    path.write_text(ptn.write_game(game), encoding="utf-8")


def random_opening(size: int, komi: int, plies: int, rng: random.Random) -> list[tuple]:
    board = Board(size, komi=komi)
    out = []
    while len(out) < plies:
        ply = rng.choice(board.plies())
        board.make(ply)
        if board.game_end() is not None:  # impossible this early, but never start a dead game
            board.unmake()
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
    parser.add_argument("--save-losses", metavar="DIR", type=Path, help="write lost games as PTN")
    args = parser.parse_args(argv)
    komi = round(args.komi * 2)
    rng = random.Random(args.seed)
    bot_rng = random.Random(args.seed + 1)
    limit = Limit(depth=args.depth) if args.depth else Limit(movetime_ms=args.time_ms)
    engine, engine_search = engine_player(limit)
    if args.opponent == "random":
        opponent: Player = lambda b: random_ply(b, bot_rng)  # noqa: E731
        opp_search = None
    elif args.opponent == "greedy":
        opponent = lambda b: greedy_ply(b, bot_rng)  # noqa: E731
        opp_search = None
    else:
        opponent, opp_search = engine_player(Limit(depth=args.opp_depth))

    scores: list[float] = []
    wins = draws = losses = 0
    reasons: dict[str, int] = {}
    started = time.monotonic()
    cpu_start = time.process_time()
    games = args.games + (args.games % 2)
    opening: list[tuple] = []
    for game in range(games):
        if game % 2 == 0:
            opening = random_opening(args.size, komi, args.opening_plies, rng)
        engine_colour = game % 2
        engine_search.new_game()
        if opp_search is not None:
            opp_search.new_game()
        white, black = (engine, opponent) if engine_colour == 0 else (opponent, engine)
        winner, reason, plies = play_game(args.size, komi, opening, white, black, args.max_plies)
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
        progress(game + 1, games, wins, draws, losses, started)
    sys.stderr.write("\n")
    mean, low, high = interval(scores)
    engine_desc = f"depth {args.depth}" if args.depth else f"{args.time_ms} ms/ply"
    opp_desc = f"self at depth {args.opp_depth}" if args.opponent == "self" else args.opponent
    print(
        f"{args.size}x{args.size} komi {args.komi:g}: engine ({engine_desc}) vs {opp_desc}, "
        f"{games} games: +{wins} ={draws} -{losses}, score {100 * mean:.1f} % "
        f"(95 % CI {100 * low:.1f}-{100 * high:.1f} %); endings {reasons}; "
        f"CPU {time.process_time() - cpu_start:.0f} s"
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

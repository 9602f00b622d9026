"""Weak reference players for strength matches: a random mover and a 1-ply greedy bot.

They exist so that the engine's strength has a floor to be measured against (`bench/match.py`), and
so tests can produce realistic positions. Both take a seeded `random.Random`.
"""

from __future__ import annotations

import random

from controller.engine.board import Ply, Position
from controller.engine.evaluate import evaluate


def random_ply(board: Position, rng: random.Random) -> Ply:
    """Any legal ply, uniformly."""
    return rng.choice(board.generate())


def greedy_ply(board: Position, rng: random.Random) -> Ply:
    """The ply whose resulting position the static evaluation likes best; a win if there is one.

    One ply deep: it takes an immediate road or flat win, but it does not see the opponent's
    reply (so it walks into roads in one). Ties are broken at random.
    """
    me = board.to_move
    best: list[Ply] = []
    best_score = None
    for ply in board.generate():
        board.push(ply)
        end = board.outcome()
        if end is not None:
            score = 10**9 if end.winner == me else -(10**9) if end.winner is not None else 0
        else:
            score = -evaluate(board)
        board.pop()
        if best_score is None or score > best_score:
            best, best_score = [ply], score
        elif score == best_score:
            best.append(ply)
    return rng.choice(best)

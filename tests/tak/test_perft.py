"""Perft: the legal-ply tree against the reference table and against a naive second engine."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from controller.tak import Position, perft

from .naive_rules import NaiveBoard, naive_perft

DATA = Path(__file__).resolve().parents[1] / "data" / "tak"


def start_table() -> list[tuple[int, int, int]]:
    rows = []
    for line in (DATA / "perft-start.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            size, depth, nodes = map(int, line.split())
            rows.append((size, depth, nodes))
    return rows


@pytest.mark.parametrize(("size", "depth", "nodes"), start_table())
def test_perft_from_the_start_matches_the_reference_table(size, depth, nodes):
    assert perft(Position(size), depth) == nodes


def test_perft_without_the_transposition_table_gives_the_same_counts():
    assert perft(Position(4), 4, table=False) == 216464
    assert perft(Position(3), 5, table=False) == 271812


def test_perft_leaves_the_position_unchanged():
    pos = Position.from_tps("x5/x,2,1C,x2/x,12S,21,x2/1,x4/x5 1 6")
    before = (pos.tps(), pos.hash)
    perft(pos, 3)
    assert (pos.tps(), pos.hash) == before


def test_perft_of_a_decided_position_is_zero_below_it():
    road = Position.from_tps("x3/1,1,1/2,2,x 2 3")  # white road on rank 2
    assert road.is_over
    assert perft(road, 1) == 0
    assert perft(road, 0) == 1


def random_positions(seed: int, count: int):
    """Positions from random legal games: every size, odd reserves and all three openings."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        size = rng.randint(3, 8)
        flats = rng.choice([None, rng.randint(3, 12), (rng.randint(3, 9), rng.randint(3, 9))])
        caps = rng.choice([None, 1, 2, (0, 1)])
        opening = rng.choice(["swap", "swap", "no-swap", "double black stack"])
        pos = Position(size, flats=flats, caps=caps, opening=opening)
        for _ in range(rng.randint(0, 40)):
            plies = list(pos.legal_plies)
            if not plies:
                break
            pos.push(rng.choice(plies))
        out.append(pos)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_legal_plies_agree_with_a_naive_engine_in_random_positions(seed):
    for pos in random_positions(seed, 25):
        flats, caps = pos.starting_reserves()
        naive = NaiveBoard.from_tps(pos.tps(), flats=flats, caps=caps, opening=pos.opening)
        assert naive.over() == pos.is_over, pos
        if pos.is_over:
            continue
        mine = sorted(p.ptn().rstrip("*") for p in pos.legal_plies)
        theirs = sorted(text for text, _ in naive.plies())
        assert mine == theirs, pos
        assert pos.legal_plies.count() == len(theirs)


@pytest.mark.parametrize("seed", range(3))
def test_perft_agrees_with_a_naive_engine_in_random_positions(seed):
    for pos in random_positions(100 + seed, 8):
        flats, caps = pos.starting_reserves()
        naive = NaiveBoard.from_tps(pos.tps(), flats=flats, caps=caps, opening=pos.opening)
        assert perft(pos, 2) == naive_perft(naive, 2), pos

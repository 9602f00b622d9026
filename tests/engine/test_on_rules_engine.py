"""The engine plays on `controller.tak.Position`: the accessors it added there, and the search-only
answers it computes from them (spread wins without playing, placement wins from bitboards), checked
against the rules engine by brute force on seeded random games."""

from __future__ import annotations

import random

import pytest

from controller.engine.board import Geometry, Position, from_tps, new_position
from controller.engine.bots import greedy_ply
from controller.engine.limits import Limit
from controller.engine.search import IN_EXTENSIONS, OFF, Searcher
from controller.engine.tactics import Budget, has_winning_ply, is_tinue, placement_wins, spread_wins
from controller.tak import Ply


def random_positions(size: int, seed: int, games: int = 12):
    """Positions from seeded games that favour spreads (tall stacks, walls, caps); a third of the
    plies greedy, so that roads get built and road-in-one positions come up on every size."""
    rng = random.Random(seed)
    for _ in range(games):
        position = Position(size)
        for _ in range(rng.randint(6, 14 * size)):
            plies = position.generate()
            spreads = [p for p in plies if p.direction]
            roll = rng.random()
            if roll < 0.33 and position.ply_count >= 2:
                position.push(greedy_ply(position, rng))
            elif spreads and roll < 0.75:
                position.push(rng.choice(spreads))
            else:
                position.push(rng.choice(plies))
            if position.is_over:
                break
            yield position


def road_after(position: Position, ply: Ply, player: int) -> bool:
    position.push(ply)
    white, black, walls, _caps = position.bitboards()
    won = position.has_road_bits((black if player else white) & ~walls)
    position.pop()
    return won


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7])
def test_spread_wins_computed_without_playing_equal_playing_every_spread(size):
    checked = found = 0
    for position in random_positions(size, seed=size, games=15 if size < 7 else 8):
        me = position.to_move
        truth = {p for p in position.generate() if p.direction and road_after(position, p, me)}
        got = spread_wins(position)
        assert set(got) == truth, position.tps()
        assert len(got) == len(set(got))
        # the PTN given out is the one the rules engine writes (with `*` for a flattened wall)
        for ply in got:
            as_played = position.push(ply).ptn()
            position.pop()
            assert ply.ptn() == as_played
        checked += 1
        found += bool(truth)
    assert checked > 50 and found > 0  # the seeded games do reach spread roads


def test_spread_wins_on_8x8_include_a_seven_square_spread():
    position = from_tps("x8/x8/x8/x8/11111111,x7/x8/x8/2,2,2,x5 1 10")
    truth = {p for p in position.generate() if p.direction and road_after(position, p, 0)}
    assert {p.ptn() for p in spread_wins(position)} == {p.ptn() for p in truth} == {"7a4>1111111"}


@pytest.mark.parametrize("size", [4, 6])
def test_placement_wins_are_exactly_the_empty_squares_that_finish_a_road(size):
    names = Geometry.of(size).names
    for position in random_positions(size, seed=100 + size):
        for player in (0, 1):
            bits = placement_wins(position, player)
            flats, caps = position.reserves(player)
            if not (flats or caps):
                assert bits == 0
                continue
            stone = 0 if flats else 2
            toggled = position.to_move != player
            if toggled:
                position.toggle_turn()  # play as `player` to ask the rules engine
            expected = 0
            for sq, name in enumerate(names):
                if position.height(name) == 0 and road_after(position, Ply(name, stone), player):
                    expected |= 1 << sq
            if toggled:
                position.toggle_turn()
            assert bits == expected, (position.tps(), player)


def test_toggle_turn_switches_player_and_hash_and_back():
    position = from_tps("x5/x5/x2,2,2,x/2,1,1,1,22121/2,x4 1 9")
    before = (position.to_move, position.hash, position.tps())
    position.toggle_turn()
    assert position.to_move == 1 and position.hash != before[1]
    position.toggle_turn()
    assert (position.to_move, position.hash, position.tps()) == before


def test_generate_lists_the_legal_plies_and_accessors_show_the_live_state():
    position = from_tps("x5/x5/x2,2,2,x/2,1,1,1,22121/2,x4 1 9")
    assert position.generate() == list(position.legal_plies)
    white, black, walls, caps = position.bitboards()
    heights, owners, _tops = position.columns()
    names = Geometry.of(5).names
    e2 = names.index("e2")
    assert heights[e2] == 5 and owners[e2] == 0b01011  # 2,2,1,2,1 bottom->top: bit set = black
    assert (white >> e2) & 1 and not (black >> e2) & 1 and walls == caps == 0
    flats, capsleft = position.reserve_lists()
    assert (flats[0], capsleft[0]) == position.reserves(0)


def test_ply_codes_are_equal_exactly_when_plies_are_equal():
    plies = {}
    for size in (5, 8):
        for position in random_positions(size, seed=7, games=4):
            for ply in position.generate():
                plies[ply.ptn().rstrip("*")] = ply
    plies["2a1"] = Ply.place("a1", count=2)
    codes = {}
    for text, ply in plies.items():
        assert codes.setdefault(ply.code, text) == text, (
            f"{text} and {codes[ply.code]} share a code"
        )
        assert Ply.from_ptn(text) == ply and hash(Ply.from_ptn(text)) == hash(ply)
    assert Ply.from_ptn("c3<*") == Ply.from_ptn("c3<")  # `flattens` is derived, not compared
    assert Ply.from_ptn("a1") != Ply.from_ptn("Sa1") and Ply.from_ptn("a1") != "a1"


def test_a_searcher_reused_across_board_sizes_plays_legal_plies():
    # the position hash does not include the size: tables must not leak from a 4x4 game into 5x5
    searcher = Searcher()
    small = new_position(4)
    for text in ("a1", "d4", "b2", "b3", "b2+", "c3"):
        small.play(text)
    searcher.search(small, Limit(depth=3))
    big = new_position(5)
    for text in ("a1", "e5", "a2", "b3", "a2+", "c3"):
        big.play(text)
    result = searcher.search(big, Limit(depth=3))
    assert result.best in big.legal_plies


def loses_to_tinue(position: Position, ply: Ply) -> bool:
    """After `ply`, the opponent has a road in one, or a reply that leaves us in tinue."""
    me = position.to_move
    position.push(ply)
    try:
        if has_winning_ply(position):
            return True
        for reply in position.generate():
            position.push(reply)
            try:
                if not position.is_over and is_tinue(position, 1 - me, 1, Budget(200_000)):
                    return True
            finally:
                position.pop()
        return False
    finally:
        position.pop()


@pytest.mark.parametrize(
    ("tps", "trap"),
    [
        # white e2-e6 with the capstone on e2: a flat on e1 blocks the placement, then White
        # makes threats the flat cannot hold (only the capstone block survives)
        ("2,x3,1,x/2,x3,1,x/2,x3,1,x/2,x3,1,x/x4,1C,x/x6 2 5", "e1"),
        ("2,2,2,x2/2S,x2,1,x/x,1C,1,1,1/x5/x2,1,x,2C 2 6", "a3"),
    ],
)
def test_threats_met_by_spreads_below_a_threat_extension_are_seen_at_depth_3(tps, trap):
    # found by comparing the horizon modes on seeded games: without spread checks below the
    # extension, depth 3 plays `trap`, which the rules prove lost
    position = from_tps(tps)
    assert loses_to_tinue(position, Ply.from_ptn(trap))
    old = Searcher(spread_threats=OFF).search(from_tps(tps), Limit(depth=3))
    new = Searcher(spread_threats=IN_EXTENSIONS).search(from_tps(tps), Limit(depth=3))
    assert old.best_ptn == trap  # what the engine played before this check existed
    assert new.best_ptn != trap
    assert not loses_to_tinue(position, new.best)

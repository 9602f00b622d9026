"""The search: limits, the stop signal, and the tactical promises it makes."""

from __future__ import annotations

import threading

import pytest

from controller.engine.board import from_tps, new_position
from controller.engine.limits import Limit
from controller.engine.search import WIN_BOUND, Searcher

MIDGAME_5 = "x,2,x2,1/x,221,x2,2/x,1,x2,2/1,1,x2,2/1,x3,2 1 9"


class StepClock:
    """A clock that advances a fixed step each time it is read: time passes only as work is done."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_limit_refuses_negative_or_non_integer_values():
    with pytest.raises(ValueError, match="movetime_ms"):
        Limit(movetime_ms=-1)
    with pytest.raises(ValueError, match="nodes"):
        Limit(nodes=1.5)  # type: ignore[arg-type]


def test_clock_budget_uses_increment_and_never_more_than_a_third_of_the_time_left():
    assert Limit(wtime=60_000, winc=1000).budget_ms(0) == pytest.approx(60_000 / 25 + 800)
    assert Limit(btime=900, binc=2000).budget_ms(1) == pytest.approx(300)
    assert Limit(movetime_ms=500, wtime=60_000).budget_ms(0) == 500
    assert Limit(depth=3).budget_ms(0) is None


def test_depth_limit_is_reached_exactly():
    result = Searcher().search(from_tps(MIDGAME_5, komi=0), Limit(depth=3))
    assert result.depth == 3
    assert [i.depth for i in result.iterations] == [1, 2, 3]
    assert result.pv[0] == result.best_ptn


def test_node_limit_stops_the_search_soon_after_the_budget():
    result = Searcher().search(from_tps(MIDGAME_5, komi=0), Limit(nodes=3000))
    assert 3000 <= result.nodes <= 3000 + 600
    assert result.best is not None


def test_movetime_is_respected_on_an_injected_clock():
    # every clock read costs 1 ms of fake time; a 300 ms budget must end the search early
    clock = StepClock(0.001)
    searcher = Searcher(clock=clock)
    result = searcher.search(from_tps(MIDGAME_5, komi=0), Limit(movetime_ms=300))
    assert result.depth >= 2  # depth 2 always completes
    assert result.elapsed_ms < 2000


def test_stop_from_another_thread_returns_the_best_so_far():
    searcher = Searcher()
    board = from_tps(MIDGAME_5, komi=0)
    started = threading.Event()
    out = {}

    def iteration(info):
        if info.depth >= 2:
            started.set()

    def work():
        out["result"] = searcher.search(board, Limit(), iteration)

    thread = threading.Thread(target=work)
    thread.start()
    assert started.wait(30)
    searcher.stop()
    thread.join(30)
    assert not thread.is_alive()
    assert out["result"].best is not None
    assert board.tps() == MIDGAME_5  # the board is given back untouched


def test_search_leaves_the_board_as_it_was_after_a_node_stop():
    board = from_tps(MIDGAME_5, komi=0)
    before = (board.tps(), board.hash)
    Searcher().search(board, Limit(nodes=777))
    assert (board.tps(), board.hash) == before


def test_immediate_win_is_played_without_search_and_scored_as_forced():
    board = from_tps("x4,1/x2,1,x2/221,x,1,x2/x2,1,x,2C/x,22,2221C,12,2 1 16", komi=0)
    result = Searcher().search(board, Limit(depth=5))
    assert result.best_ptn == "c5"
    assert result.score > WIN_BOUND and result.plies_to_end() == 1


def test_a_lost_position_is_scored_as_forced_loss():
    # white to move cannot stop all black threats: a5 finishes rank 5, e3 rank 3, b4 or d4 both
    board = from_tps("x,2,2,2,2/1,x,1,x,1/2,2,2,2,x/x,1,x,1,x/1,x,1,x2 1 9")
    result = Searcher().search(board, Limit(depth=2))
    assert result.score < -WIN_BOUND


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7, 8])
def test_every_size_plays_a_legal_ply_with_komi(size):
    board = new_position(size, komi=3)
    for _ in range(4):
        result = Searcher().search(board, Limit(depth=2))
        assert result.best in board.generate()
        board.push(result.best)

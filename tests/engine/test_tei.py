"""TEI both ways: the shared line parser, our server as a real subprocess, client fallbacks."""

from __future__ import annotations

import logging
import sys

import pytest

from controller.engine import tei
from controller.engine.board import from_tps, new_position
from controller.engine.hints import HintEngine
from controller.engine.limits import EngineError, EngineTerminatedError, Limit
from controller.engine.tei_client import TeiEngine

OUR_ENGINE = [sys.executable, "-m", "controller.cli", "tei"]


def line(text: str) -> tei.TeiLine:
    parsed = tei.parse_line(text)
    assert parsed is not None
    return parsed


# ----------------------------------------------------------------------------- parser
def test_blank_lines_are_ignored():
    assert tei.parse_line("   \n") is None


@pytest.mark.parametrize(
    ("text", "size", "halfkomi"),
    [
        ("teinewgame 6", 6, None),
        ("teinewgame size 5 halfkomi 4", 5, 4),
        ("teinewgame size 7", 7, None),
    ],
)
def test_teinewgame_v0_and_v1_forms(text, size, halfkomi):
    assert tei.read_teinewgame(line(text)) == tei.NewGame(size, halfkomi)


def test_go_round_trips_through_writer_and_reader():
    limit = Limit(movetime_ms=1500, wtime=60000, btime=50000, winc=1000, binc=1000)
    assert tei.read_go(line(tei.format_go(limit))).limit == limit
    assert tei.read_go(line("go infinite")).infinite


def test_position_round_trips_with_tps_and_moves():
    cmd = tei.read_position(line(tei.format_position("x5/x5/x5/x5/x5 1 1", ["a1", "e5"])))
    assert cmd == tei.PositionCommand("x5/x5/x5/x5/x5 1 1", ("a1", "e5"))
    assert tei.read_position(line("position startpos")) == tei.PositionCommand(None, ())


def test_info_round_trips_score_nodes_and_pv():
    info = tei.Info(depth=4, score_cp=-35, nodes=1234, time_ms=56, nps=22000, pv=("a1", "b2+"))
    assert tei.read_info(line(tei.format_info(info))) == info
    assert tei.read_info(line("info depth 3 score mate 2 pv c3")).mate == 2


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("teinewgame 11", "board size 11 is not 3..8"),
        ("teinewgame size six", "size must be an integer"),
        ("go movetime", "go movetime needs a value"),
        ("go movetime -5", "must not be negative"),
        ("go sideways 3", "unknown go parameter 'sideways'"),
        ("position fen xyz", "unknown position kind 'fen'"),
        ("position tps x5/x5 1", "three fields"),
        ("position startpos a1 b1", "expected 'moves'"),
        ("info depth x", "depth must be an integer"),
        ("info score 12", "score cp N"),
        ("setoption HalfKomi 4", "setoption name NAME value VALUE"),
    ],
)
def test_malformed_lines_are_refused_with_the_line_and_the_reason(text, why):
    readers = {
        "teinewgame": tei.read_teinewgame,
        "go": tei.read_go,
        "position": tei.read_position,
        "info": tei.read_info,
        "setoption": tei.read_setoption,
    }
    parsed = line(text)
    with pytest.raises(tei.TeiProtocolError, match=why) as err:
        readers[parsed.command](parsed)
    assert repr(text) in str(err.value)


# ----------------------------------------------------------------------------- our server
@pytest.fixture
def our_engine():
    engine = TeiEngine(OUR_ENGINE, handshake_timeout_s=30)
    engine.start()
    yield engine
    engine.quit()


def test_handshake_announces_name_sizes_and_halfkomi(our_engine):
    assert our_engine.id.name.startswith("takboard")
    assert our_engine.id.sizes == {3, 4, 5, 6, 7, 8}
    assert 4 in our_engine.id.halfkomis
    assert "halfkomi" in our_engine.id.options


def test_server_plays_a_legal_ply_and_reports_info(our_engine):
    our_engine.new_game(5, halfkomi=4)
    reply = our_engine.go(None, ["a1", "e5", "c3"], Limit(depth=2))
    board = new_position(5, komi=4)
    for text in ["a1", "e5", "c3"]:
        board.push(board.parse_ply(text))
    assert board.parse_ply(reply.best) in board.generate()
    assert reply.info is not None and reply.info.depth == 2 and reply.info.pv


def test_server_takes_a_road_in_one_from_tps(our_engine):
    tps = "x4,1/x2,1,x2/221,x,1,x2/x2,1,x,2C/x,22,2221C,12,2 1 16"
    our_engine.new_game(5, halfkomi=2)
    reply = our_engine.go(tps, [], Limit(movetime_ms=2000))
    assert reply.best == "c5"
    assert reply.info is not None and reply.info.mate == 1


def test_server_stops_an_infinite_search_on_stop(our_engine):
    our_engine.new_game(6)
    our_engine.send(tei.format_position(None, ["a1", "f6"]))
    our_engine.send("go infinite")
    our_engine.ready(timeout_s=30)  # isready is answered while it searches
    our_engine.send("stop")
    deadline = our_engine.clock() + 30
    while (reply := our_engine._next(deadline, "bestmove")).command != "bestmove":
        pass
    board = new_position(6)
    for text in ["a1", "f6"]:
        board.push(board.parse_ply(text))
    assert board.parse_ply(tei.read_bestmove(reply)) in board.generate()


def test_two_games_in_a_row_with_different_sizes(our_engine):
    for size in (4, 7):
        our_engine.new_game(size)
        reply = our_engine.go(None, [], Limit(depth=1))
        assert new_position(size).parse_ply(reply.best)


# ----------------------------------------------------------------------------- client failures
def test_client_reports_an_engine_that_exits_at_once():
    engine = TeiEngine([sys.executable, "-c", "import sys; sys.exit(3)"], handshake_timeout_s=10)
    with pytest.raises(EngineTerminatedError, match="code 3"):
        engine.start()
    engine.quit()


def test_client_refuses_a_size_the_engine_does_not_offer():
    script = (
        "import sys\nfor l in sys.stdin:\n"
        "  print('size 6\\nteiok' if l.strip()=='tei' else '', flush=True)"
    )
    engine = TeiEngine([sys.executable, "-c", script], handshake_timeout_s=10)
    engine.start()
    with pytest.raises(EngineError, match="does not play size 5"):
        engine.new_game(5)
    engine.quit()


# a scripted peer that answers an illegal ply: something a real engine should never send
ILLEGAL_BESTMOVE = """
import sys
for l in sys.stdin:
    c = l.split()[0] if l.split() else ''
    if c == 'tei': print('id name liar\\nteiok', flush=True)
    elif c == 'isready': print('readyok', flush=True)
    elif c == 'go': print('bestmove 3z9>', flush=True)
    elif c == 'quit': break
"""

SILENT_AFTER_GO = """
import sys, time
for l in sys.stdin:
    c = l.split()[0] if l.split() else ''
    if c == 'tei': print('teiok', flush=True)
    elif c == 'isready': print('readyok', flush=True)
    elif c == 'quit': break
"""


def test_client_refuses_an_illegal_bestmove():
    engine = TeiEngine([sys.executable, "-c", ILLEGAL_BESTMOVE], handshake_timeout_s=10)
    engine.start()
    engine.new_game(5)
    with pytest.raises(EngineError, match="illegal ply"):
        engine.go(None, [], Limit(movetime_ms=100))
    engine.quit()


def test_client_times_out_an_engine_that_never_answers():
    engine = TeiEngine([sys.executable, "-c", SILENT_AFTER_GO], handshake_timeout_s=10, grace_s=0.3)
    engine.start()
    engine.new_game(5)
    with pytest.raises(EngineError, match="did not answer 'bestmove' in time"):
        engine.go(None, [], Limit(movetime_ms=100))
    engine.quit()


def test_hint_engine_falls_back_to_the_builtin_search_and_says_why(caplog):
    engine = HintEngine([sys.executable, "-c", ILLEGAL_BESTMOVE])
    caplog.set_level(logging.WARNING)
    board = from_tps("x4,1/x2,1,x2/221,x,1,x2/x2,1,x,2C/x,22,2221C,12,2 1 16")
    hint = engine.hint(board, limit=Limit(movetime_ms=200))
    engine.close()
    assert hint.source == "builtin"
    assert hint.best == "c5"
    assert any("illegal ply" in r.getMessage() for r in caplog.records)


def test_hint_engine_uses_an_external_engine_when_it_works():
    engine = HintEngine(OUR_ENGINE)
    hint = engine.hint("x5/x5/x2,1,x2/x5/2,x4 2 2", limit=Limit(depth=2))
    engine.close()
    assert hint.source.startswith("external: takboard")
    assert hint.depth == 2


def test_hint_engine_falls_back_when_the_engine_cannot_play_the_komi(caplog):
    engine = HintEngine([sys.executable, "-c", ILLEGAL_BESTMOVE])
    caplog.set_level(logging.WARNING)
    hint = engine.hint(new_position(5, komi=3), limit=Limit(depth=1))
    engine.close()
    assert hint.source == "builtin"
    assert any("no HalfKomi option" in r.getMessage() for r in caplog.records)

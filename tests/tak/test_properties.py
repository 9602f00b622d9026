"""Property tests: random legal games and random text, with derandomized (repeatable) hypothesis."""

from __future__ import annotations

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.tak import (
    InvalidPlyError,
    Ply,
    Position,
    PTNError,
    TakError,
    TPSError,
    playtak,
    ptn,
)
from controller.tak.ptn import Game

REPEATABLE = settings(derandomize=True, deadline=None, max_examples=60)


@st.composite
def games(draw, max_plies: int = 60) -> Position:
    """A position reached by a random legal game (any size, reserves, komi and opening)."""
    size = draw(st.integers(3, 8))
    flats = draw(
        st.one_of(st.none(), st.integers(2, 30), st.tuples(st.integers(2, 30), st.integers(2, 30)))
    )
    caps = draw(st.one_of(st.none(), st.integers(0, 2)))
    opening = draw(st.sampled_from(["swap", "no-swap", "double black stack"]))
    pos = Position(size, komi=draw(st.integers(-4, 8)), flats=flats, caps=caps, opening=opening)
    for _ in range(draw(st.integers(0, max_plies))):
        plies = list(pos.legal_plies)
        if not plies:
            break
        pos.push(plies[draw(st.integers(0, len(plies) - 1))])
    return pos


def snapshot(pos: Position) -> tuple:
    return (
        pos.tps(),
        pos.hash,
        pos.reserves(0),
        pos.reserves(1),
        pos.ply_count,
        pos.to_move,
        pos.stacks(),
    )


@REPEATABLE
@given(games())
def test_push_then_pop_restores_the_identical_position_and_hash(pos):
    before = snapshot(pos)
    for ply in list(pos.legal_plies)[:80]:
        played = pos.push(ply)
        assert played == ply
        # the incremental hash equals the hash of the same position built from scratch
        assert (
            pos.hash
            == Position.from_tps(
                pos.tps(), flats=pos.starting_reserves()[0], caps=pos.starting_reserves()[1]
            ).hash
        )
        assert pos.pop() == ply
        assert snapshot(pos) == before


@REPEATABLE
@given(games())
def test_undoing_a_whole_game_returns_to_the_start(pos):
    history = pos.history
    while pos.last_ply is not None:
        pos.pop()
    assert pos.ply_count == 0 and pos.stacks() == {}
    for ply in history:
        assert ply in pos.legal_plies
        pos.play(ply)


@REPEATABLE
@given(games())
def test_counting_equals_listing_and_every_listed_ply_is_legal(pos):
    listed = list(pos.legal_plies)
    assert pos.legal_plies.count() == len(listed) == len(set(listed))
    for ply in listed[:40]:
        assert pos.why_illegal(ply) is None
        assert Ply.from_ptn(ply.ptn()) == ply


@REPEATABLE
@given(games())
def test_tps_round_trips(pos):
    flats, caps = pos.starting_reserves()
    again = Position.from_tps(pos.tps(), flats=flats, caps=caps, opening=pos.opening)
    assert again.tps() == pos.tps() and again.hash == pos.hash
    assert again.reserves(0) == pos.reserves(0) and again.reserves(1) == pos.reserves(1)


@REPEATABLE
@given(games(), st.lists(st.text(alphabet="abc xyz!?.", max_size=12), max_size=4))
def test_ptn_round_trips_through_text(pos, comments):
    game = Game.from_position(pos, tags={"Player1": 'quote " and \\ back', "Event": "prop"})
    for i, comment in enumerate(comments):
        if game.moves:
            game.moves[i % len(game.moves)].comments_after.append(comment)
    text = ptn.write_game(game)
    back = ptn.parse_game(text)
    assert back.errors == []
    assert back.replay().tps() == pos.tps()
    assert list(back.tags.items()) == list(game.tags.items())
    assert ptn.write_game(back) == text


PTN_ALPHABET = "abcdefghi12345678 9-+<>*'!?\"{}[]\n.FSCx/,R0F1"


@settings(derandomize=True, deadline=None, max_examples=300)
@given(st.text(alphabet=PTN_ALPHABET, max_size=60) | st.text(max_size=40))
def test_parsers_raise_only_their_own_errors_on_random_text(text):
    with contextlib.suppress(InvalidPlyError):
        Ply.from_ptn(text)
    with contextlib.suppress(TPSError):
        Position.from_tps(text)
    with contextlib.suppress(InvalidPlyError):
        playtak.to_ptn(text)
    for game in ptn.read_games(text):  # lenient: never raises
        with contextlib.suppress(TakError):
            game.replay()
    with contextlib.suppress(PTNError):
        ptn.read_games(text, strict=True)


@settings(derandomize=True, deadline=None, max_examples=200)
@given(
    st.lists(
        st.sampled_from(
            [
                '[Size "5"]',
                "1.",
                "2.",
                "a1",
                "e5",
                "3c3+12",
                "{x}",
                "R-0",
                "12d4-12",
                "Cc3",
                "a1>",
                "2...",
                '[TPS "x5/x5/x5/x5/x5 2 3"]',
                '[Komi "1.5"]',
                "\n",
            ]
        ),
        max_size=20,
    )
)
def test_ptn_made_of_real_tokens_never_crashes(tokens):
    text = " ".join(tokens)
    for game in ptn.read_games(text):
        with contextlib.suppress(TakError):
            game.replay()
        ptn.write_game(game)

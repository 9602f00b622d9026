"""Ply: PTN ply text in (lenient) and out (canonical), and bad text rejected with the reason."""

from __future__ import annotations

import pytest

from controller.tak import CAP, FLAT, WALL, InvalidPlyError, Ply
from controller.tak.ply import parse_ptn_ply


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("a1", "a1"),
        ("Fa1", "a1"),
        ("Sb2", "Sb2"),
        ("Cc3", "Cc3"),
        ("a1>", "a1>"),
        ("1a1>1", "a1>"),
        ("3c3+", "3c3+"),
        ("3c3+3", "3c3+"),
        ("3c3+12", "3c3+12"),
        ("c3+12", "3c3+12"),  # count omitted, drops given
        ("c2<*", "c2<*"),
        ("5e5-221", "5e5-221"),
        ("2a1", "2a1"),
        ("8a1>1111112", "8a1>1111112"),
    ],
)
def test_lenient_input_canonical_output(text, canonical):
    assert Ply.from_ptn(text).ptn() == canonical


@pytest.mark.parametrize("note", ["'", "''", "!", "?", "!?", "?!", "!!", "??", "'!", "''?"])
def test_annotations_are_read_and_returned(note):
    ply, got = parse_ptn_ply("Cc3" + note)
    assert ply == Ply.place("c3", CAP)
    assert got == note


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("12d4-12", "drops sum to 3 but count is 12"),
        ("3a1>12", "drops sum to 3"),  # fine: count 3, drops 1+2
        ("4a1>12", "drops sum to 3 but count is 4"),
        ("a9", "'a9' is not a square"),
        ("i1", "'i1' is not a square"),
        ("a1^", "is not a PTN ply"),
        ("Sa1>", "a spread has no stone letter"),
        ("a1>0", "every drop must be at least 1"),
        ("9a1>", "count 9 is more than any board's carry limit"),
        ("Sa1*", "is not a PTN ply"),
        ("a1>!x", "is not a PTN ply"),
        ("", "is not a PTN ply"),
        ("a1!!!", "is not an annotation"),
    ],
)
def test_bad_ply_text_is_rejected_with_the_reason(text, why):
    if text == "3a1>12":
        assert Ply.from_ptn(text).drops == (1, 2)
        return
    with pytest.raises(InvalidPlyError, match=why) as err:
        Ply.from_ptn(text)
    assert f'"{text}"' in str(err.value)


def test_equality_ignores_flattens_and_values_are_hashable():
    assert Ply.from_ptn("c3<*") == Ply.from_ptn("c3<")
    assert len({Ply.from_ptn("c3<*"), Ply.from_ptn("c3<"), Ply.from_ptn("1c3<1")}) == 1
    assert Ply.from_ptn("Sa1") != Ply.from_ptn("a1")


def test_constructors_and_properties():
    place = Ply.place("b2", WALL)
    spread = Ply.spread("b2", "+", (2, 1))
    assert place.is_placement and not place.is_spread and place.count == 1
    assert spread.is_spread and spread.count == 3 and spread.drops == (2, 1)
    assert Ply.spread("b2", "+", 1).ptn() == "b2+"
    assert Ply.place("a1", FLAT, count=2).ptn() == "2a1"
    assert spread.squares(5) == ["b2", "b3", "b4"]
    with pytest.raises(InvalidPlyError, match="runs off a 3x3 board"):
        spread.squares(3)
    with pytest.raises(InvalidPlyError, match="2 flats only"):
        Ply.place("a1", WALL, count=2)
    with pytest.raises(InvalidPlyError, match="direction"):
        Ply.spread("a1", "^", (1,))
    assert repr(spread) == "Ply.from_ptn('3b2+21')"
    assert str(place) == "Sb2"

"""Big Two plays: classification, comparison under every rule variant, bombs, evaluate."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.banting.plays import (
    Combination,
    NotAPlay,
    Play,
    beats,
    candidate_plays,
    card_value,
    classify,
    evaluate_play,
    why_not_beats,
)
from service.domain.banting.rules import BantingParams
from service.domain.cards import DECK, Card
from service.domain.errors import InvalidCard
from service.domain.rules import resolve_rules


def params(**overrides: Any) -> BantingParams:
    rules = resolve_rules({"preset": "capsa-banting-id", "params": overrides}, "banting")
    assert isinstance(rules.params, BantingParams)
    return rules.params


def cards(text: str) -> list[Card]:
    return [Card.from_str(t) for t in text.split()]


def play(text: str, p: BantingParams | None = None) -> Play:
    result = classify(cards(text), p or params())
    assert isinstance(result, Play), result
    return result


DEFAULT = params()


# -- card order -----------------------------------------------------------------------------


def test_the_three_of_diamonds_is_the_lowest_card_and_the_two_of_spades_the_highest() -> None:
    order = sorted(DECK, key=lambda c: card_value(c, DEFAULT))
    assert [str(c) for c in order[:5]] == ["3d", "3c", "3h", "3s", "4d"]
    assert [str(c) for c in order[-5:]] == ["As", "2d", "2c", "2h", "2s"]


def test_another_suit_order_changes_which_card_is_lowest() -> None:
    order = sorted(DECK, key=lambda c: card_value(c, params(suit_order="cdhs")))
    assert str(order[0]) == "3c"


# -- classification -------------------------------------------------------------------------

RECOGNISED = [
    ("3d", "single"),
    ("9h 9s", "pair"),
    ("7c 7d 7h", "three_of_a_kind"),
    ("3d 4c 5h 6s 7d", "straight"),
    ("Td Jc Qh Ks Ad", "straight"),
    ("2h 4h 9h Jh 5h", "flush"),
    ("3h 3s 3d 9c 9d", "full_house"),
    ("5c 5d 5h 5s 9d", "four_of_a_kind"),
    ("5c 5d 5h 5s 2d", "four_of_a_kind"),
    ("6s 7s 8s 9s Ts", "straight_flush"),
    ("Th Jh Qh Kh Ah", "straight_flush"),
]


@pytest.mark.parametrize(("text", "combination"), RECOGNISED)
def test_each_combination_is_recognised(text: str, combination: str) -> None:
    assert play(text).combination.value == combination


REFUSED = [
    ("", "no cards"),
    ("3d 3d", "given twice"),
    ("9h Ts", "a pair needs two cards of one rank"),
    ("7c 7d 8h", "three cards must be of one rank"),
    ("7c 7d 7h 7s", "four cards are no play"),
    ("3d 3c 4h 4s 9d", "two pair is no play"),
    ("3d 5c 7h 9s Jd", "five cards must be"),
    ("Ad 2c 3h 4s 5d", "a 2 cannot be in a straight"),
    ("2d 3c 4h 5s 6d", "a 2 cannot be in a straight"),
    ("Jd Qc Kh As 2d", "J-Q-K-A-2 is a straight only when straights are consecutive"),
    ("Qd Kc Ah 2s 3d", "five cards must be"),
    ("3d 4d 5d 6d 7d 8d", "a play has 1, 2, 3 or 5 cards, not 6"),
]


@pytest.mark.parametrize(("text", "reason"), REFUSED)
def test_anything_else_is_no_play_with_a_reason(text: str, reason: str) -> None:
    result = classify(cards(text), DEFAULT)
    assert isinstance(result, NotAPlay)
    assert result.reason.startswith("not a combination: ")
    assert reason in result.reason


@pytest.mark.parametrize(
    ("text", "combination"),
    [
        ("Ad 2c 3h 4s 5d", "straight"),
        ("2d 3c 4h 5s 6d", "straight"),
        ("Ah 2h 3h 4h 5h", "straight_flush"),
    ],
)
def test_straights_with_two_allow_a_2_3_4_5_and_2_3_4_5_6(text: str, combination: str) -> None:
    assert play(text, params(straights_with_two=True)).combination.value == combination


def test_no_straight_wraps_around_the_two_even_when_twos_are_allowed() -> None:
    p = params(straights_with_two=True)
    assert isinstance(classify(cards("Jd Qc Kh As 2d"), p), NotAPlay)
    assert isinstance(classify(cards("Qd Kc Ah 2s 3d"), p), NotAPlay)


# -- comparison -----------------------------------------------------------------------------

# (play, table, parameter overrides, play beats table)
COMPARISONS: list[tuple[str, str, dict[str, Any], bool]] = [
    # singles: rank first (2 highest), then suit d < c < h < s
    ("2d", "As", {}, True),
    ("As", "2d", {}, False),
    ("3s", "3h", {}, True),
    ("3h", "3c", {}, True),
    ("3c", "3d", {}, True),
    ("3d", "3c", {}, False),
    ("3d", "3c", {"suit_order": "cdhs"}, True),
    # pairs: rank, then the higher suit of the pair
    ("9c 9s", "9d 9h", {}, True),
    ("9d 9h", "9c 9s", {}, False),
    ("2d 2c", "Ah As", {}, True),
    # three of a kind: rank only (2 highest)
    ("2d 2c 2h", "Ad Ac Ah", {}, True),
    ("4d 4c 4h", "3c 3h 3s", {}, True),
    # straights: top card rank, then its suit
    ("4d 5c 6h 7s 8d", "3d 4c 5h 6s 7c", {}, True),
    ("7d 8c 9h Tc Js", "7c 8d 9s Td Jh", {}, True),
    ("7c 8d 9s Td Jh", "7d 8c 9h Tc Js", {}, False),
    ("Td Jc Qh Ks Ac", "9d Tc Jh Qs Kd", {}, True),
    # straights with a 2: A-2-3-4-5 < 2-3-4-5-6 < 3-4-5-6-7 < ... < T-J-Q-K-A
    ("2d 3c 4h 5s 6d", "Ad 2c 3h 4s 5d", {"straights_with_two": True}, True),
    ("3d 4c 5h 6s 7c", "2d 3c 4h 5s 6s", {"straights_with_two": True}, True),
    ("Ad 2c 3h 4s 5s", "Td Jc Qh Ks Ac", {"straights_with_two": True}, False),
    # flushes, suit first (default): suit, then cards high to low
    ("3s 4s 6s 8s 9s", "2h Ah Kh Qh 9h", {}, True),
    ("7s As 9s Ks 3s", "2d 4d Jd 9d 5d", {}, True),  # seed 002's example
    ("2h 4h 5h 9h Jh", "Ah Kh Qh 9h 7h", {}, True),  # same suit: 2 is the highest card
    # flushes, rank first: cards high to low, then suit
    ("3s 4s 6s 8s 9s", "2h Ah Kh Qh 9h", {"flush_order": "rank_first"}, False),
    ("7s As 9s Ks 3s", "2d 4d Jd 9d 5d", {"flush_order": "rank_first"}, False),
    ("2h 4h 5h 9h Jh", "Ah Kh Qh 9h 7h", {"flush_order": "rank_first"}, True),
    ("2s Ks 7s 5s 3s", "2h Kh 7h 5h 3h", {"flush_order": "rank_first"}, True),
    ("2h Kh 7h 5h 4h", "2s Ks 7s 5s 3s", {"flush_order": "rank_first"}, True),
    # full house by its three, four of a kind by its four
    ("2d 2c 2h 5s 5d", "Kd Kc Kh As Ad", {}, True),
    ("4c 4h 4s 4d 3s", "3d 3c 3h 3s As", {}, True),
    # five-card tiers: straight < flush < full house < four of a kind < straight flush
    ("3h 5h 7h 9h Jh", "Td Jc Qh Ks Ac", {}, True),
    ("3d 3c 3h 4s 4d", "2s As Ks Qs Js", {}, True),
    ("3d 3c 3h 3s 4d", "2d 2c 2h As Ad", {}, True),
    ("3d 4d 5d 6d 7d", "2d 2c 2h 2s 3c", {}, True),
    # straight flushes: top card, then suit; the royal flush is the highest
    ("9s Ts Js Qs Ks", "9h Th Jh Qh Kh", {}, True),
    ("Td Jd Qd Kd Ad", "9s Ts Js Qs Ks", {}, True),
    ("Ts Js Qs Ks As", "Th Jh Qh Kh Ah", {}, True),
    # sizes must match
    ("9c 9s", "3d", {}, False),
    ("2s", "3d 3c", {}, False),
    ("3d 4c 5h 6s 7c", "2s 2h 2d", {}, False),
]


@pytest.mark.parametrize(("text", "table", "overrides", "expected"), COMPARISONS)
def test_plays_compare_as_the_rules_say(
    text: str, table: str, overrides: dict[str, Any], expected: bool
) -> None:
    p = params(**overrides)
    assert beats(play(text, p), play(table, p), p) is expected


def test_a_refusal_to_beat_says_does_not_beat_with_both_plays() -> None:
    reason = why_not_beats(play("9d 9h"), play("9c 9s"), DEFAULT)
    assert reason == "does not beat: pair 9d 9h is lower than pair 9c 9s"
    reason = why_not_beats(play("9c 9s"), play("3d"), DEFAULT)
    assert reason is not None and reason.startswith("does not beat: a 2-card pair cannot")


# -- bombs ----------------------------------------------------------------------------------


@pytest.mark.parametrize("bomb_ends_game", [True, False])
@pytest.mark.parametrize(
    ("text", "table", "expected"),
    [
        ("5c 5d 5h 5s 9d", "2s", True),
        ("3c 3d 3h 3s 9d", "2d", True),
        ("5c 5d 5h 5s 9d", "As", False),
        ("5c 5d 5h 5s 9d", "2s 2h", False),
        ("6s 7s 8s 9s Ts", "2s", False),
        ("3d 3c 3h 4s 4d", "2s", False),
    ],
)
def test_a_five_card_four_of_a_kind_bombs_a_single_two_and_nothing_else(
    bomb_ends_game: bool, text: str, table: str, expected: bool
) -> None:
    p = params(bomb_ends_game=bomb_ends_game)
    assert beats(play(text, p), play(table, p), p) is expected


def test_a_four_of_a_kind_on_another_single_is_told_it_bombs_only_a_two() -> None:
    reason = why_not_beats(play("5c 5d 5h 5s 9d"), play("As"), DEFAULT)
    assert reason is not None and "bombs only a single 2" in reason


# -- evaluate document ----------------------------------------------------------------------

EVALUATIONS: list[tuple[str, str | None, dict[str, Any]]] = [
    ("9h 9s", None, {"combination": "pair", "valid": True, "beats": None, "reason": None}),
    ("9h 9s", "8c 8s", {"combination": "pair", "valid": True, "beats": True, "reason": None}),
    (
        "7h 7s",
        "8c 8s",
        {
            "combination": "pair",
            "valid": True,
            "beats": False,
            "reason": "does not beat: pair 7h 7s is lower than pair 8c 8s",
        },
    ),
    (
        "9h Ts",
        None,
        {
            "combination": None,
            "valid": False,
            "beats": None,
            "reason": "not a combination: a pair needs two cards of one rank, not 9h Ts",
        },
    ),
    (
        "9h Ts",
        "3d",
        {
            "combination": None,
            "valid": False,
            "beats": False,
            "reason": "not a combination: a pair needs two cards of one rank, not 9h Ts",
        },
    ),
    (
        "5c 5d 5h 5s 9d",
        "2s",
        {"combination": "four_of_a_kind", "valid": True, "beats": True, "reason": None},
    ),
]


@pytest.mark.parametrize(("text", "table", "expected"), EVALUATIONS)
def test_evaluate_gives_the_api_document(text: str, table: str | None, expected: dict[str, Any]) -> None:
    assert evaluate_play(cards(text), None if table is None else cards(table), DEFAULT) == expected


def test_evaluate_refuses_a_table_play_that_is_no_combination() -> None:
    with pytest.raises(InvalidCard) as err:
        evaluate_play(cards("9h"), cards("3d 4c"), DEFAULT)
    assert err.value.errors[0].field == "beats"


def test_evaluate_refuses_a_card_both_played_and_on_the_table() -> None:
    with pytest.raises(InvalidCard) as err:
        evaluate_play(cards("9h 9s"), cards("8c 9s"), DEFAULT)
    assert err.value.errors[0].field == "beats[1]"


# -- properties -----------------------------------------------------------------------------

VARIANTS = st.builds(
    params,
    suit_order=st.permutations("dchs").map("".join),
    flush_order=st.sampled_from(["suit_first", "rank_first"]),
    straights_with_two=st.booleans(),
)
HANDS = st.permutations(DECK).map(lambda d: (d[:13], d[13:26]))


@settings(max_examples=15, deadline=None)
@given(hands=HANDS, p=VARIANTS)
def test_candidate_plays_are_exactly_the_subsets_that_classify_as_plays(
    hands: tuple[list[Card], list[Card]], p: BantingParams
) -> None:
    hand = hands[0]
    brute = {
        frozenset(combo)
        for size in (1, 2, 3, 5)
        for combo in combinations(hand, size)
        if isinstance(classify(combo, p), Play)
    }
    found = [frozenset(x.cards) for x in candidate_plays(hand, p)]
    assert len(found) == len(set(found))
    assert set(found) == brute


@settings(max_examples=40, deadline=None)
@given(hands=HANDS, p=VARIANTS, size=st.sampled_from([1, 2, 3, 5]))
def test_of_two_plays_from_one_deck_with_the_same_size_exactly_one_beats_the_other(
    hands: tuple[list[Card], list[Card]], p: BantingParams, size: int
) -> None:
    mine = candidate_plays(hands[0], p, size)[:30]
    theirs = candidate_plays(hands[1], p, size)[:30]
    for a in mine:
        for b in theirs:
            assert beats(a, b, p) != beats(b, a, p), (a, b)
            assert a.combination in Combination

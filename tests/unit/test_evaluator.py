"""The fast evaluator against the readable one (`hands.py`), per hand and in batches."""

from __future__ import annotations

import doctest
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.cards import DECK, Card
from service.domain.errors import InvalidCard, InvalidParameter
from service.domain.susun import batch_evaluator, evaluator
from service.domain.susun.batch_evaluator import evaluate_batch3, evaluate_batch5, top_suits_batch
from service.domain.susun.evaluator import (
    category_of,
    hand_value,
    key_of,
    strength,
    strength3,
    strength5,
    suited,
    top_suit,
)
from service.domain.susun.hands import Category, HandValue, evaluate_row

WHEELS = ["low", "second"]


def ids(text: str) -> list[int]:
    return [Card.from_str(t).index for t in text.split()]


def readable(cards: list[int], wheel: str = "low") -> HandValue:
    return evaluate_row([DECK[i] for i in cards], wheel)


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


# Two rows dealt from one deck (so suit tie-breaks always decide), each a front or a five.
two_rows = st.tuples(st.permutations(range(52)), st.sampled_from([3, 5]), st.sampled_from([3, 5])).map(
    lambda t: (list(t[0][: t[1]]), list(t[0][t[1] : t[1] + t[2]]))
)


@settings(deadline=None, max_examples=300)
@given(rows=two_rows, wheel=st.sampled_from(WHEELS))
def test_strengths_order_rows_as_the_readable_keys_do_fronts_and_fives_together(
    rows: tuple[list[int], list[int]], wheel: str
) -> None:
    a, b = rows
    value_a, value_b = readable(a, wheel), readable(b, wheel)
    sa, sb = strength(a, wheel), strength(b, wheel)
    assert sign(sa - sb) == value_a.compare(value_b, suit_tiebreak=False)
    assert category_of(sa) == value_a.category and category_of(sb) == value_b.category
    assert key_of(sa) == value_a.key


@settings(deadline=None, max_examples=300)
@given(rows=two_rows, wheel=st.sampled_from(WHEELS))
def test_suited_strengths_order_rows_as_the_indonesian_suit_tie_break_does(
    rows: tuple[list[int], list[int]], wheel: str
) -> None:
    a, b = rows
    expected = readable(a, wheel).compare(readable(b, wheel), suit_tiebreak=True)
    sa, sb = strength(a, wheel), strength(b, wheel)
    assert sign(suited(sa, top_suit(a, sa)) - suited(sb, top_suit(b, sb))) == expected


@settings(deadline=None, max_examples=200)
@given(
    cards=st.permutations(range(52)).map(lambda p: list(p[:5])),
    order=st.permutations(range(5)),
    wheel=st.sampled_from(WHEELS),
)
def test_evaluation_does_not_depend_on_card_order(cards: list[int], order: list[int], wheel: str) -> None:
    shuffled = [cards[i] for i in order]
    assert strength5(shuffled, wheel) == strength5(cards, wheel)
    assert strength3(shuffled[:3]) == strength3(sorted(shuffled[:3]))
    assert hand_value(shuffled, wheel) == hand_value(cards, wheel)
    assert evaluate_batch5([cards, shuffled], wheel).tolist() == [strength5(cards, wheel)] * 2


@pytest.mark.parametrize("wheel", WHEELS)
def test_the_fast_hand_value_equals_the_readable_one_on_20000_seeded_hands(wheel: str) -> None:
    rng = random.Random(20_000)
    for _ in range(20_000):
        cards = rng.sample(range(52), 5)
        assert hand_value(cards, wheel) == readable(cards, wheel), cards


def test_the_fast_hand_value_equals_the_readable_one_on_every_front() -> None:
    for cards in batch_evaluator.combinations(52, 3).tolist():
        assert hand_value(cards) == readable(cards), cards


@pytest.mark.parametrize("wheel", WHEELS)
def test_the_batch_paths_agree_with_the_per_hand_paths(wheel: str) -> None:
    rng = np.random.default_rng(5)
    fives = np.argsort(rng.random((5_000, 52)), axis=1)[:, :5]
    strengths = evaluate_batch5(fives, wheel)
    assert strengths.tolist() == [strength5(h, wheel) for h in fives.tolist()]
    suits = top_suits_batch(fives, strengths)
    assert suits.tolist() == [top_suit(h, s) for h, s in zip(fives.tolist(), strengths.tolist())]
    fronts = fives[:, :3]
    strengths3 = evaluate_batch3(fronts)
    assert strengths3.tolist() == [strength3(h) for h in fronts.tolist()]
    assert top_suits_batch(fronts, strengths3).tolist() == [
        top_suit(h, s) for h, s in zip(fronts.tolist(), strengths3.tolist())
    ]


@pytest.mark.parametrize(
    ("weaker", "stronger", "wheel"),
    [
        ("Kd Kh Qs", "Ks Kc Qd 3h 2c", "low"),  # docs/rules.md#hand-order: the five-card side has more cards
        ("Ah 2c 3d 4s 5h", "2h 3c 4d 5s 6h", "low"),  # the wheel is the lowest straight
        ("Kh Qc Jd Ts 9h", "Ah 2c 3d 4s 5h", "second"),  # ... or just below broadway
        ("Ah 2c 3d 4s 5h", "Ts Jh Qd Kc Ah", "second"),
        ("Ah 2h 3h 4h 5h", "2s 3s 4s 5s 6s", "low"),
        ("Kh Qh Jh Th 9h", "Ah 2h 3h 4h 5h", "second"),
        ("As Ks Qs 9s 8s", "2c 2d 2h 3s 3d", "low"),  # flush < full house
        ("Qs Kh Ac 2d 3h", "2c 2d 4h 5s 6d", "low"),  # straights never wrap
        ("2c 2d 2h 3c 4d", "As Ah Ad", "low"),  # the made rank decides before the size
        ("Ac Ad Ks", "Ac Ad Ks 3h 2c", "low"),
        ("As Ks Qs", "2c 2d 3h", "low"),  # a suited front is only a high card
    ],
)
def test_known_rows_compare_as_rules_md_says(weaker: str, stronger: str, wheel: str) -> None:
    assert strength(ids(weaker), wheel) < strength(ids(stronger), wheel)


@pytest.mark.parametrize(
    ("row", "category"),
    [
        ("Ts Js Qs Ks As", Category.ROYAL_FLUSH),
        ("9s Ts Js Qs Ks", Category.STRAIGHT_FLUSH),
        ("As 2s 3s 4s 5s", Category.STRAIGHT_FLUSH),
        ("Qs Kh Ac 2d 3h", Category.HIGH_CARD),
        ("Ah Kh Qh", Category.HIGH_CARD),
        ("Qh Kd Ac", Category.HIGH_CARD),
        ("7h 7d 2c", Category.PAIR),
        ("7h 7d 7c", Category.THREE_OF_A_KIND),
        ("7h 7d 7c 7s 2c", Category.FOUR_OF_A_KIND),
    ],
)
def test_known_rows_have_their_category(row: str, category: Category) -> None:
    for wheel in WHEELS:
        assert category_of(strength(ids(row), wheel)) is category


@pytest.mark.parametrize(
    ("row", "wheel", "top"),
    [
        ("Ah 2c 3d 4s 5h", "low", "5h"),
        ("Ah 2c 3d 4s 5h", "second", "Ah"),
        ("9d 9s 4c 4h Ac", "low", "9s"),
        ("Kd Ks Qc", "low", "Ks"),
        ("2d 5d 9d Jd Kd", "low", "Kd"),
    ],
)
def test_the_most_significant_card_is_the_one_rules_md_names(row: str, wheel: str, top: str) -> None:
    assert hand_value(ids(row), wheel).top == Card.from_str(top)


def test_an_unknown_wheel_is_refused_by_name() -> None:
    with pytest.raises(InvalidParameter, match="'high'"):
        strength5(ids("2c 3d 4h 5s 7c"), "high")
    with pytest.raises(InvalidParameter, match="'high'"):
        evaluate_batch5([ids("2c 3d 4h 5s 7c")], "high")


def test_rows_of_the_wrong_shape_are_refused() -> None:
    with pytest.raises(InvalidCard):
        hand_value(ids("2c 2c 4h"))
    with pytest.raises(InvalidCard):
        hand_value(ids("2c 3c 4h 5h"))
    with pytest.raises(InvalidCard):
        evaluate_batch5([ids("2c 3c 4h")])


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(evaluator).failed == 0

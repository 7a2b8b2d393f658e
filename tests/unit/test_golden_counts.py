"""Golden counts: every five-card hand and every front falls into the known categories."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from service.domain.cards import DECK
from service.domain.susun.batch_evaluator import (
    CATEGORY_BY_STRENGTH,
    combinations,
    evaluate_batch3,
    evaluate_batch5,
)
from service.domain.susun.hands import Category, evaluate_front

FIVE_CARD_COUNTS = {
    Category.ROYAL_FLUSH: 4,
    Category.STRAIGHT_FLUSH: 36,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}
FRONT_COUNTS = {Category.THREE_OF_A_KIND: 52, Category.PAIR: 3_744, Category.HIGH_CARD: 18_304}


@pytest.fixture(scope="module")
def all_fives() -> np.ndarray:
    return combinations(52, 5)


def counts_of(strengths: np.ndarray) -> dict[Category, int]:
    tally = np.bincount(CATEGORY_BY_STRENGTH[strengths], minlength=len(Category))
    return {c: int(tally[c]) for c in Category if tally[c]}


def test_the_deck_has_2598960_five_card_hands_and_22100_fronts(all_fives: np.ndarray) -> None:
    assert all_fives.shape == (2_598_960, 5)
    assert combinations(52, 3).shape == (22_100, 3)
    assert len({tuple(row) for row in all_fives[::9973]}) == len(all_fives[::9973])


@pytest.mark.parametrize("wheel", ["low", "second"])
def test_all_2598960_five_card_hands_fall_into_the_known_category_counts(
    all_fives: np.ndarray, wheel: str
) -> None:
    strengths = evaluate_batch5(all_fives, wheel)
    assert counts_of(strengths) == FIVE_CARD_COUNTS
    # 7,462 distinct five-card values is the classic count; the wheel only moves one
    assert len(np.unique(strengths)) == 7_462


def test_all_22100_fronts_fall_into_the_known_category_counts() -> None:
    strengths = evaluate_batch3(combinations(52, 3))
    assert counts_of(strengths) == FRONT_COUNTS
    assert len(np.unique(strengths)) == 13 + 13 * 12 + 286


def test_the_readable_evaluator_gives_the_same_front_counts() -> None:
    tally = Counter(evaluate_front([DECK[i] for i in row]).category for row in combinations(52, 3).tolist())
    assert dict(tally) == FRONT_COUNTS

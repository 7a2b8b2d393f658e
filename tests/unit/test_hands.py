"""Hand evaluation (docs/rules.md#hand-order): categories, fronts, the wheel, suit tie-breaks, front vs five."""

import pytest

from service.domain.cards import Card
from service.domain.susun.hands import evaluate_five, evaluate_front, evaluate_row


def cards(text):
    return [Card.from_str(t) for t in text.split()]


def five(text, wheel="low"):
    return evaluate_five(cards(text), wheel)


@pytest.mark.parametrize(
    "hand, category",
    [
        ("Ts Js Qs Ks As", "royal_flush"),
        ("9s Ts Js Qs Ks", "straight_flush"),
        ("Ah 2h 3h 4h 5h", "straight_flush"),
        ("7c 7d 7h 7s 2c", "four_of_a_kind"),
        ("7c 7d 7h 2s 2c", "full_house"),
        ("2h 7h 9h Jh Kh", "flush"),
        ("Ac 2d 3h 4s 5c", "straight"),
        ("Tc Jd Qh Ks Ac", "straight"),
        ("7c 7d 7h 2s 3c", "three_of_a_kind"),
        ("7c 7d 2h 2s 3c", "two_pair"),
        ("7c 7d 2h 4s 3c", "pair"),
        ("Kc 7d 2h 4s 3c", "high_card"),
        ("Qc Kd Ah 2s 3c", "high_card"),  # straights never wrap
    ],
)
def test_five_card_categories(hand, category):
    assert five(hand).category.label == category


@pytest.mark.parametrize(
    "front, category",
    [("7c 7d 7h", "three_of_a_kind"), ("7c 7d Ah", "pair"), ("Qc Kd Ah", "high_card"),
     ("2h 5h 9h", "high_card"), ("Ah 2d 3c", "high_card")],
)
def test_a_front_is_high_card_pair_or_three_of_a_kind_only(front, category):
    assert evaluate_front(cards(front)).category.label == category


def test_within_a_category_the_made_part_then_kickers_decide():
    assert five("Kc Kd 2h 3s 4c").compare(five("Qc Qd Ah Ks Jc"), False) == 1
    assert five("Kc Kd 5h 3s 2c").compare(five("Kh Ks 4h 3c 2d"), False) == 1
    assert five("9c 9d 5h 5s 2c").compare(five("9h 9s 4h 4s Ac"), False) == 1
    assert five("3c 3d 3h 2s 2c").compare(five("2h 2s 2d Ac Ad"), False) == 1


def test_a_low_wheel_is_the_lowest_straight():
    wheel = five("Ac 2d 3h 4s 5c")
    assert wheel.compare(five("2c 3d 4h 5s 6c"), False) == -1
    assert wheel.top == Card.from_str("5c")


def test_a_second_wheel_ranks_just_below_the_ace_high_straight():
    wheel = five("Ac 2d 3h 4s 5c", "second")
    assert wheel.compare(five("9c Td Jh Qs Kc", "second"), False) == 1
    assert wheel.compare(five("Tc Jd Qh Ks Ad", "second"), False) == -1
    assert wheel.top == Card.from_str("Ac")


def test_a_royal_flush_beats_every_other_straight_flush():
    assert five("Ts Js Qs Ks As").compare(five("9h Th Jh Qh Kh"), False) == 1


def test_the_five_card_side_is_stronger_when_every_compared_card_is_equal():
    # K-K-Q front < K-K-Q-3-2 middle (docs/rules.md#hand-order)
    front = evaluate_front(cards("Kh Kd Qc"))
    middle = five("Ks Kc Qd 3c 2c")
    assert front.compare(middle, False) == -1
    assert front.compare(middle, True) == -1
    assert middle.compare(front, False) == 1


def test_a_front_pair_beats_a_weaker_middle_pair():
    assert evaluate_front(cards("Ah Ad 2c")).compare(five("Kc Kd Qh Js 9c"), False) == 1


# Suit tie-breaks: only with identical ranks in identical roles; suits d < c < h < s.
@pytest.mark.parametrize(
    "stronger, weaker, why",
    [
        ("Ks Kd 9c 5h 2d", "Kh Kc 9d 5c 2h", "pair: the higher-suited card of the pair, Ks > Kh"),
        ("Ah Kh 9h 5h 2h", "Ac Kc 9c 5c 2c", "flush: the highest card's suit, hearts > clubs"),
        ("9d Tc Jd Qd Ks", "9s Ts Jh Qc Kh", "straight: the top card, Ks > Kh"),
        ("Ac Kd 9d 5d 2d", "Ad Kc 9c 5c 2c", "high card: the highest card, Ac > Ad"),
        ("9s 9d 5h 5c 2d", "9h 9c 5s 5d 2c", "two pair: the higher pair's best card, 9s > 9h"),
    ],
)
def test_suit_tiebreak_decides_identical_ranks_by_the_most_significant_card(stronger, weaker, why):
    assert five(stronger).compare(five(weaker), True) == 1, why
    assert five(weaker).compare(five(stronger), True) == -1, why
    assert five(stronger).compare(five(weaker), False) == 0, "western rules: a tie"


def test_suits_are_never_consulted_when_ranks_differ():
    assert five("Kd Kc 9c 5h 3d").compare(five("Ks Kh 9d 5c 2h"), True) == 1


def test_suits_do_not_break_a_front_against_a_middle_of_equal_ranks():
    # different numbers of cards: the five-card side wins whatever the suits
    front = evaluate_row(cards("As Ah Ks"))
    assert front.compare(five("Ad Ac Kd 3c 2d"), True) == -1


def test_the_second_wheel_straight_tiebreak_uses_the_ace():
    a = five("Ac 2d 3h 4s 5c", "second")
    b = five("Ah 2c 3d 4c 5d", "second")
    assert a.compare(b, True) == -1  # Ac < Ah

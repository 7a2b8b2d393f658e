"""Capsa Susun variants of version 2: each proven on the cases of the peer that plays it.

Every peer's case is cited with its repository and file; where a peer's hands break our
order rule (its tests do not check it), the case is given twice: verbatim, where our foul
pays what the peer pays for the sweep, and with the offending rows put in order.
"""

import random

import pytest
from builders import SIX_PAIRS, arr, pair, params, play, rows_vs

from service.domain.cards import Card
from service.domain.errors import InvalidParameter
from service.domain.rules import PRESETS, resolve_rules
from service.domain.susun.arrangement import evaluate, row_bonus
from service.domain.susun.hands import evaluate_row
from service.domain.susun.naturals import six_pairs
from service.domain.susun.rules import contradictions
from service.domain.susun.scoring import PlayerHand, score_round

# -- overall_rule: more_rows ----------------------------------------------------------------
# paulhankin/cpoker, evaluator.go, `cmp`: wins - losses + (wins > losses) - (losses > wins),
# the 2-4 score of `CompareHands` ("one point for each place won, and one point for winning
# the majority of the places").


@pytest.mark.parametrize(
    "rows, cpoker, two_rows",
    [
        ("WWW", 4, 4),  # 3 + 1, the score CompareEvaluators counts as a scoop
        ("WWT", 3, 3),
        ("WWL", 2, 2),
        ("WTT", 2, 1),  # win-tie-tie: more rows won than lost earns the unit
        ("WLT", 0, 0),
        ("TTT", 0, 0),
        ("LTT", -2, -1),
        ("LLT", -3, -3),
        ("LLL", -4, -4),
    ],
)
def test_more_rows_scores_as_paulhankin_cpoker_cmp(rows, cpoker, two_rows):
    a, b = rows_vs(rows)
    assert pair(a, b, "chinese-poker-2-4", overall_rule="more_rows").points == cpoker
    assert pair(a, b, "chinese-poker-2-4").points == two_rows


# -- row_points and the scoop bonus -------------------------------------------------------
# Jaydccq/poker_trainer, src/utils/chinese-poker/scoring/basic-scoring.ts: `getRowPoints`
# 1-1-1 / 2-2-4 ("2-4") / 1-2-6 ("1-6"), `getScoopBonus` 3 / 4 / 9, and its tests in
# src/utils/chinese-poker/scoring/__tests__/basic-scoring.test.ts.
METHODS = {"1-1-1": ([1, 1, 1], 3), "2-4": ([2, 2, 4], 4), "1-6": ([1, 2, 6], 9)}
P1 = arr("Ah Kd Qc", "As Ac Kh Ks Qd", "Jh Jd Jc Ts Th")
P2_VERBATIM = arr("9h 8d 7c", "9s 9c 8h 8s 7d", "6h 6d 5c 5s 4h")  # its middle beats its back
P2_IN_ORDER = arr("9h 8d 7c", "6h 6d 5c 5s 4h", "9s 9c 8h 8s 7d")


def weighted(method: str, **overrides):
    weights, scoop = METHODS[method]
    return {"row_points": weights, "scoop_bonus": scoop, **overrides}


@pytest.mark.parametrize("method, total", [("1-1-1", 6), ("2-4", 12), ("1-6", 18)])
def test_a_sweep_pays_the_weights_plus_the_scoop_bonus_of_jaydccq(method, total):
    # "3 rows + 3 scoop bonus", "2 + 2 + 4 + 4 scoop bonus", "1 + 2 + 6 + 9 Grand Slam bonus"
    swept = pair(P1, P2_IN_ORDER, "chinese-poker-1-6", **weighted(method))
    assert (swept.rows, swept.outcome, swept.points) == ((1, 1, 1), "scoop", total)
    # The peer's own player 2 fouls here; a foul pays the same (its scoreFouledHand: -6, -12, -18).
    fouled = pair(P1, P2_VERBATIM, "chinese-poker-1-6", **weighted(method))
    assert (fouled.outcome, fouled.points) == ("foul", total)


@pytest.mark.parametrize("method, total", [("1-1-1", 1), ("2-4", 4), ("1-6", 5)])
def test_a_split_pays_the_weights_of_the_rows_won_less_the_rows_lost(method, total):
    # "should handle split results": front won, middle lost, back won ("+1 -1 +1 = 1" at 1-1-1).
    # The peer's player 2 (AAKK in the middle over 6655 in the back) fouls in our rules; its
    # back is a full house of sixes here, still below player 1's jacks.
    p1 = arr("Ah Kd Qc", "9s 9c 8h 8s 7d", "Jh Jd Jc Ts Th")
    p2 = arr("9h 8d 7c", "As Ac Kh Ks Qd", "6h 6d 6c 5c 5s")
    result = pair(p1, p2, "chinese-poker-1-6", **weighted(method))
    assert (result.rows, result.points) == ((1, -1, 1), total)


def test_equal_rows_tie_whatever_the_weights():
    # "should handle ties": A-K-Q, 9-8-7-6-5 and J-J-T-T-9 on both sides (middle and back
    # swapped: the peer's straight in the middle over two pair in the back fouls here).
    p1 = arr("Ah Kd Qc", "Jh Jd Tc Ts 9h", "9s 8c 7h 6s 5d")
    p2 = arr("As Kh Qd", "Js Jc Th Td 9c", "9d 8d 7s 6h 5c")
    result = pair(p1, p2, "chinese-poker-1-6", **weighted("1-6"))
    assert (result.rows, result.outcome, result.points) == ((0, 0, 0), "tie", 0)


@pytest.mark.parametrize("method, penalty", [("1-1-1", 6), ("2-4", 12), ("1-6", 18)])
def test_a_foul_pays_the_sum_of_the_weights_in_place_of_three(method, penalty):
    # scoreFouledHand: -(1 + 1 + 1 + 3), -(2 + 2 + 4 + 4), -(1 + 2 + 6 + 9); with no bonus in play.
    fouler = arr("Ac Ad 2h", "Kc Qd 9h 7s 5c", "5d 6h 8s 9c Qd")  # front pair over a high card
    result = pair(P2_IN_ORDER, fouler, "chinese-poker-1-6", **weighted(method))
    assert (result.outcome, result.points) == ("foul", penalty)


def test_weights_multiply_under_a_tembus_multiplier_and_bonuses_add_once():
    # capsa-susun-id v2 with rows 1/2/3: a sweep is (1 + 2 + 3) x 2 = 12, bonuses never multiplied.
    a, b = rows_vs("WWW")
    assert pair(a, b, row_points=[1, 2, 3]).points == 12
    a, b = rows_vs("WLW")
    assert pair(a, b, row_points=[1, 2, 3]).points == 1 - 2 + 3


# -- bonus_by_rank: the royalty table of chinese-poker-royalties -----------------------------
# Jaydccq/poker_trainer, src/utils/chinese-poker/scoring/royalty.ts and its cases in
# src/utils/chinese-poker/scoring/__tests__/royalty.test.ts.
ROYALTY_CASES = [
    ("front", "Ah Kd Qc", 0),
    ("front", "5h 5d 3c", 0),  # pairs below 6-6
    ("front", "6h 6d 3c", 1),
    ("front", "Th Td 3c", 5),
    ("front", "Ah Ad 3c", 9),
    ("front", "2h 2d 2c", 10),
    ("front", "Ah Ad Ac", 22),
    ("middle", "Ah Kd Qc Js 9h", 0),
    ("middle", "Ah Ad Kc Qs Jh", 0),
    ("middle", "Ah Ad Kc Ks Qh", 0),
    ("middle", "Ah Ad Ac Ks Qh", 2),
    ("middle", "9h 8d 7c 6s 5h", 4),
    ("middle", "Ah Kh Qh Jh 9h", 8),
    ("middle", "Ah Ad Ac Ks Kh", 12),
    ("middle", "Ah Ad Ac As Kh", 20),
    ("middle", "9h 8h 7h 6h 5h", 30),
    ("middle", "Ah Kh Qh Jh Th", 50),
    ("back", "Ah Kd Qc Js 9h", 0),
    ("back", "Ah Ad Ac Ks Kh", 0),  # no full house royalty in the back
    ("back", "Ah Ad Ac As Kh", 10),
    ("back", "9h 8h 7h 6h 5h", 15),
    ("back", "Ah Kh Qh Jh Th", 25),
]


@pytest.mark.parametrize("row, cards, royalty", ROYALTY_CASES)
def test_each_royalty_of_jaydccq_is_the_row_bonus_of_chinese_poker_royalties(row, cards, royalty):
    value = evaluate_row([Card.from_str(t) for t in cards.split()])
    assert row_bonus(row, value, params("chinese-poker-royalties")) == royalty


@pytest.mark.parametrize(
    "front, middle, back, rows, total",
    [
        ("Ah Ad Kc", "Qh Qd Qc Js Jh", "Td Ts Tc Th 9d", (9, 12, 10), 31),
        ("5h 4d 3c", "Ah Kd Qc Js 9h", "8d 8s 7c 7h 6d", (0, 0, 0), 0),
        ("Th Td 3c", "Ah Ad Kc Ks Qh", "Jd Js Jc Ts 9d", (5, 0, 0), 5),
    ],
)
def test_calculate_royalty_cases_of_jaydccq(front, middle, back, rows, total):
    result = evaluate(arr(front, middle, back), params("chinese-poker-royalties"))
    assert tuple(r.bonus for r in result.rows) == rows and result.bonus_total == total


def test_a_wheel_pays_the_straight_royalty_under_either_wheel():
    wheel = evaluate_row([Card.from_str(t) for t in "Ah 2d 3c 4s 5h".split()], "second")
    assert row_bonus("middle", wheel, params("chinese-poker-royalties", wheel="second")) == 4


def test_bonus_by_rank_replaces_bonus_only_for_the_keys_it_lists():
    p = params("chinese-poker-2-4", bonus_by_rank={"front.three_of_a_kind": {"A": 7}})
    trips = [Card.from_str(t) for t in "Ah Ad Ac".split()]
    sevens = [Card.from_str(t) for t in "7h 7d 7c".split()]
    assert row_bonus("front", evaluate_row(trips), p) == 7
    assert row_bonus("front", evaluate_row(sevens), p) == 0  # listed key, rank not listed
    quads = [Card.from_str(t) for t in "9h 9d 9c 9s 2h".split()]
    assert row_bonus("middle", evaluate_row(quads), p) == 8  # bonus's own entry, unlisted key


def test_royalty_flat_and_max_one_royalty_apply_to_bonus_by_rank():
    a = arr("Ah Ad Kc", "Qh Qd Qc Js Jh", "Td Ts Tc Th 9d")  # royalties 9 + 12 + 10
    b = arr("2c 3d 5h", "4c 4h 6d 8s 9c", "5c 6s 7h 8d 9s")
    assert pair(a, b, "chinese-poker-royalties").points == 3 + 3 + 31
    assert pair(a, b, "chinese-poker-royalties", royalty_flat=True).points == 3 + 3 + 3
    assert pair(a, b, "chinese-poker-royalties", max_one_royalty=True).points == 3 + 3 + 12
    # "both": a royalty is paid whatever the row; b's middle 4-4 pays nothing, so the row won
    # or lost does not matter here; under "winner" a's three rows all win, the same 31.
    assert pair(a, b, "chinese-poker-royalties", bonus_paid="winner").points == 3 + 3 + 31


def test_under_both_a_royalty_in_a_lost_row_is_still_paid():
    # a wins front and middle and loses the back to b's quads, which pay b 10 all the same.
    a = arr("Ah Ad Kc", "Qh Qd Qc Js Jh", "2c 2d 2h 2s 3s")  # 9 + 12 + 10
    b = arr("3d 5h 6c", "4c 4h 6d 8s 9c", "7c 7d 7h 7s 4s")  # back quads: 10
    result = pair(a, b, "chinese-poker-royalties")
    assert result.rows == (1, 1, -1) and (result.bonus_a, result.bonus_b) == (31, 10)
    assert result.points == 1 + 31 - 10


# -- Taiwanese scoring: chinese-poker-tw -------------------------------------------------
# ylw633/chinesepoker, ChinesePoker.Core/Component/TaiwaneseScoreCalculator.cs: a point per
# row, StrikeBonus 3 on a sweep, SpecialHandBonus(A) - SpecialHandBonus(B) whatever the rows
# (front trips 1, middle quads 3, middle straight flush 4, back quads 2, back straight flush
# 3), DragonBonus 36.


@pytest.mark.parametrize(
    "a, b, points",
    [
        # a sweeps: 3 rows + strike 3; its back straight flush adds 3
        (arr("Ah Kd Qc", "Jc Jh 6c 8d Th", "9h 8h 7h 6h 5h"), arr("2c 3d 5s", "3c 3h 6d 8s Tc", "Ts Jd Qh Ks Ad"), 3 + 3 + 3),
        # both fronts are trips (1 each, netting out) and a sweeps: 3 + 3 + 1 - 1
        (arr("5c 5d 5h", "6c 7d 8h 9s Tc", "Kc Kd Ks Jc Jd"), arr("2c 2d 2s", "3c 3d 3h 6d 8s", "4c 4d 4s 7c 7d"), 3 + 3 + 1 - 1),
        # quads in middle (3) and back (2) on both sides; a wins only the back: -1 + 5 - 5
        (arr("Kh Qd 9h", "8c 8d 8h 8s 2c", "Ac Ad Ah As 3c"), arr("Ks Qh Jd", "9c 9d 9h 9s 2d", "Tc Td Th Ts 3d"), -1 + 5 - 5),
    ],
)
def test_taiwanese_scoring_of_ylw633(a, b, points):
    assert pair(a, b, "chinese-poker-tw").points == points


def test_a_taiwanese_dragon_collects_36():
    dragon = arr("2c 3d 4h", "5s 6c 7d 8h 9s", "Tc Jd Qh Ks Ac")
    other = arr("2d 3h 5c", "4c 4d 6h 8s Td", "9c 9d 9h Jc Jh")
    result = pair(dragon, other, "chinese-poker-tw")
    assert (result.outcome, result.points) == ("natural", 36)


def test_the_four_players_of_every_new_variant_cancel_out():
    # ylw633's Four_players_should_have_scores_cancel_out, over random legal-or-not deals.
    rng = random.Random(15)
    deck = [Card.from_str(r + s) for r in "23456789TJQKA" for s in "cdhs"]
    variants = [("chinese-poker-tw", {}), ("chinese-poker-royalties", {}),
                ("chinese-poker-2-4", {"overall_rule": "more_rows", "row_points": [2, 2, 4]}),
                ("capsa-susun-id", {"row_points": [1, 2, 6], "scoop_bonus": 9})]
    for _ in range(50):
        rng.shuffle(deck)
        hands = [arr(*(" ".join(c.text for c in deck[13 * i + a: 13 * i + b]) for a, b in ((0, 3), (3, 8), (8, 13))))
                 for i in range(4)]
        for preset, overrides in variants:
            result = score_round([PlayerHand("abcd"[i], h) for i, h in enumerate(hands)], params(preset, **overrides))
            assert sum(p.points for p in result.players) == 0


# -- six_pairs_counts_trips ------------------------------------------------------------------
# Jaydccq/poker_trainer, src/utils/chinese-poker/special-hands.ts, `isSixPairs`: six pairs
# and one single; a three or four of a kind is no six pairs.


@pytest.mark.parametrize(
    "cards, counts_trips, strict",
    [
        (SIX_PAIRS.cards, True, True),
        ("2c 2d 2h 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d", True, False),  # trips + five pairs
        ("2c 2d 2h 2s 3c 3d 4c 4d 5c 5d 6c 6d 7c", True, False),  # quads count as two pairs
        ("2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 8c 9c", False, False),  # five pairs
    ],
)
def test_six_pairs_with_and_without_trips(cards, counts_trips, strict):
    held = list(cards) if not isinstance(cards, str) else [Card.from_str(t) for t in cards.split()]
    assert six_pairs(held, True) is counts_trips
    assert six_pairs(held, False) is strict


def test_six_pairs_with_trips_is_a_natural_only_while_trips_count():
    hand = arr("2c 2d 2h", "3c 3d 4c 4d 5c", "5d 6c 6d 7c 7d")
    assert evaluate(hand, params("chinese-poker-2-4")).natural == "six_pairs"
    assert evaluate(hand, params("chinese-poker-2-4", six_pairs_counts_trips=False)).natural is None
    assert evaluate(hand, params("chinese-poker-royalties")).natural is None


# -- contradictory parameters ----------------------------------------------------------------


@pytest.mark.parametrize(
    "preset, overrides, names",
    [
        ("capsa-susun-id", {"super_multiplier": 1}, ("super_multiplier", "tembus_multiplier")),
        ("chinese-poker-1-6", {"overall_rule": "more_rows"}, ("overall_rule", "overall_unit")),
        ("capsa-susun-id", {"six_pairs_counts_trips": False}, ("six_pairs_counts_trips", "naturals")),
    ],
)
def test_contradictory_parameters_are_refused_naming_both_and_accepted_when_stored(preset, overrides, names):
    ref = {"preset": preset, "params": overrides}
    with pytest.raises(InvalidParameter) as exc:
        resolve_rules(ref, "susun")
    fields = [e.field for e in exc.value.errors]
    assert fields == [f"rules.params.{names[0]}", f"rules.params.{names[1]}"]
    assert names[1] in exc.value.errors[0].message and names[0] in exc.value.errors[1].message
    stored = resolve_rules(ref, "susun", stored=True)
    key, value = next(iter(overrides.items()))
    assert getattr(stored.params, key) == value


def test_a_contradiction_quotes_both_values_as_json():
    """As every refusal quotes a request's value: `false`, not Python's `False`."""
    with pytest.raises(InvalidParameter) as exc:
        resolve_rules({"preset": "capsa-susun-id", "params": {"six_pairs_counts_trips": False}}, "susun")
    assert exc.value.errors[0].message.startswith('false contradicts naturals ["')


@pytest.mark.parametrize("preset", ["chinese-poker-2-4", "chinese-poker-1-6", "capsa-susun-id"])
def test_a_tembus_multiplier_raised_alone_raises_the_super_multiplier_with_it(preset):
    """The western presets' super sweep is x1, like their plain one: raising
    `tembus_multiplier` alone (sweeps pay x2) was refused because the preset's super
    multiplier now sat below it, though the request named no super at all. A super sweep
    now follows the plain one up where the request does not say; asked for explicitly
    below it, it is still refused."""
    rules = resolve_rules({"preset": preset, "params": {"tembus_multiplier": 5}}, "susun")
    assert (rules.params.tembus_multiplier, rules.params.super_multiplier) == (5, 5)  # type: ignore[union-attr]
    kept = resolve_rules({"preset": "capsa-susun-id", "params": {"tembus_multiplier": 3}}, "susun")
    assert (kept.params.tembus_multiplier, kept.params.super_multiplier) == (3, 4)  # type: ignore[union-attr]
    with pytest.raises(InvalidParameter):
        resolve_rules({"preset": preset, "params": {"tembus_multiplier": 5, "super_multiplier": 2}}, "susun")


def test_a_stored_round_with_contradictory_parameters_re_scores():
    a, b = rows_vs("WWW")
    p = resolve_rules({"preset": "capsa-susun-id", "params": {"super_multiplier": 1}}, "susun", stored=True).params
    result = score_round([PlayerHand("a", a), PlayerHand("b", b)], p)
    assert result.pairs[0].points == 6


def test_no_shipped_preset_contradicts_itself():
    for preset in PRESETS.values():
        if preset.rules.game == "susun":
            assert contradictions(preset.rules.params) == [], preset.rules.preset


def test_a_natural_beats_a_foul_under_royalties():
    dragon = arr("2c 3d 4h", "5s 6c 7d 8h 9s", "Tc Jd Qh Ks Ac")
    foul = arr("Ah Ad 2h", "Kc Qd 9h 7s 5c", "5d 6h 8s 9c Qd")
    result = play([dragon, foul], "chinese-poker-royalties")
    assert [p.points for p in result.players] == [13, -13]

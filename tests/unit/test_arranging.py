"""Auto-arrange: exact against a brute force with the readable evaluator, known hands, quality."""

from __future__ import annotations

import itertools
import json
import random
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from service.domain.cards import DECK, Card
from service.domain.errors import InvalidCard, InvalidParameter, UnknownRules
from service.domain.rules import RuleSet, resolve_rules
from service.domain.susun.arrangement import Arrangement, evaluate, foul_reason
from service.domain.susun.hands import HandValue, evaluate_five, evaluate_front
from service.domain.susun.naturals import detect_natural
from service.domain.susun.rules import SusunParams
from service.domain.susun.scoring import PlayerHand, score_round
from service.domain.susun.suggest.baseline import baseline_arrangement
from service.domain.susun.suggest.objective import expected_points, model_for, objective_of_rows, row_index
from service.domain.susun.suggest.search import suggest, suggest_request
from service.domain.susun.suggest.tables import SCALE_SIZE, load_tables

PRESETS = ["capsa-susun-id", "chinese-poker-2-4", "chinese-poker-1-6"]
NEW_PRESETS = ["chinese-poker-tw", "chinese-poker-royalties"]


def rules(preset: str = "capsa-susun-id", **overrides: Any) -> RuleSet:
    return resolve_rules({"preset": preset, "params": overrides}, "susun")


def susun(ruleset: RuleSet) -> SusunParams:
    assert isinstance(ruleset.params, SusunParams)
    return ruleset.params


def cards(text: str) -> list[Card]:
    return [Card.from_str(t) for t in text.split()]


def random_hands(seed: int, n: int) -> list[list[Card]]:
    rng = random.Random(seed)
    return [rng.sample(DECK, 13) for _ in range(n)]


ROW_NATURAL_CATEGORIES = {"straight", "flush", "straight_flush", "royal_flush"}


def brute_force_best(hand: Sequence[Card], ruleset: RuleSet) -> float:
    """The best objective over every legal setting: readable evaluator, one setting at a time.

    Each row's hand value is computed once per subset (hands.py); the order rule is
    `arrangement.foul_reason`, naturals `naturals.detect_natural` (asked whenever the hand
    holds one or both five-card rows are straights or flushes, the only settings that can).
    """
    params = susun(ruleset)
    model = model_for(params)
    positions = range(13)
    fronts = {f: evaluate_front([hand[i] for i in f]) for f in itertools.combinations(positions, 3)}
    fives = {m: evaluate_five([hand[i] for i in m], params.wheel) for m in itertools.combinations(positions, 5)}
    some = next(iter(fronts))
    rest0 = [i for i in positions if i not in some]
    first = (some, tuple(rest0[:5]), tuple(rest0[5:]))
    hand_natural = detect_natural(
        [[hand[i] for i in row] for row in first], (fronts[first[0]], fives[first[1]], fives[first[2]]), params
    ) in ("dragon", "six_pairs")
    best = -np.inf
    for front, fv in fronts.items():
        rest = [i for i in positions if i not in front]
        for middle in itertools.combinations(rest, 5):
            back = tuple(i for i in rest if i not in middle)
            values = (fv, fives[middle], fives[back])
            natural = None
            if hand_natural or (
                values[1].category.label in ROW_NATURAL_CATEGORIES
                and values[2].category.label in ROW_NATURAL_CATEGORIES
            ):
                rows = [[hand[i] for i in row] for row in (front, middle, back)]
                natural = detect_natural(rows, values, params)
            if natural is not None:
                score = float(params.natural_values.get(natural, 0))
            elif foul_reason(values, params) is not None:
                continue
            else:
                score = objective_of_rows(values, model)
            best = max(best, score)
    return best


def check_exact(hand: list[Card], ruleset: RuleSet) -> None:
    result = suggest(hand, ruleset, limit=3)
    top = result.suggestions[0]
    assert not any(s.evaluation.foul for s in result.suggestions)
    assert all(s.evaluation == evaluate(s.arrangement, susun(ruleset)) for s in result.suggestions)
    assert top.score >= brute_force_best(hand, ruleset) - 1e-9
    assert top.score == pytest.approx(expected_points(top.arrangement, ruleset), abs=1e-9)


@pytest.mark.parametrize("i", range(25))
def test_the_top_suggestion_is_at_least_as_good_as_every_legal_setting_of_a_brute_force(i: int) -> None:
    hand = random_hands(2024, 25)[i]
    check_exact(hand, rules(PRESETS[i % 3]))


@pytest.mark.slow
@pytest.mark.parametrize("i", range(200))
def test_the_top_suggestion_beats_the_brute_force_on_200_hands(i: int) -> None:
    hand = random_hands(7, 200)[i]
    check_exact(hand, rules(PRESETS[i % 3]))


@pytest.mark.parametrize(
    "preset, overrides",
    [
        ("capsa-susun-id", {"wheel": "second"}),
        ("capsa-susun-id", {"suit_tiebreak": False}),
        ("chinese-poker-2-4", {"strict_order": True}),
        ("chinese-poker-2-4", {"strict_order": True, "front_vs_five": "tie"}),
        ("capsa-susun-id", {"strict_order": True, "front_vs_five": "tie"}),
        ("chinese-poker-2-4", {"bonus_paid": "cancel"}),
        ("chinese-poker-1-6", {"bonus_paid": "both"}),
        ("capsa-susun-id", {"max_one_royalty": True}),
        ("chinese-poker-1-6", {"max_one_royalty": True, "bonus_paid": "cancel"}),
        ("chinese-poker-2-4", {"royalty_flat": True, "tembus_multiplier": 3, "super_multiplier": 3}),
        ("chinese-poker-2-4", {"overall_rule": "more_rows"}),
        ("chinese-poker-1-6", {"row_points": [1, 2, 6], "scoop_bonus": 9}),
        ("capsa-susun-id", {"row_points": [2, 2, 4], "overall_unit": 1, "overall_rule": "more_rows"}),
        ("chinese-poker-royalties", {}),
        ("chinese-poker-royalties", {"max_one_royalty": True, "bonus_paid": "winner"}),
        ("chinese-poker-royalties", {"royalty_flat": True, "bonus_paid": "cancel"}),
        ("chinese-poker-tw", {}),
        ("chinese-poker-2-4", {"bonus_by_rank": {"front.pair": {"Q": 2, "K": 3, "A": 4}}}),
    ],
)
def test_the_search_is_exact_under_rule_overrides_too(preset: str, overrides: dict[str, Any]) -> None:
    hand = random_hands(zlib.crc32(repr(overrides).encode()), 1)[0]
    check_exact(hand, rules(preset, **overrides))


# Strong hands make bonuses, ties and naturals matter: quads, full houses, straight flushes.
STRONG = [
    "9s 9h 9d 9c Jd 3s 4s 5s 6s 7s Kd Qc 2h",
    "Ac Ad Ah As 9s 9h 9d 9c Kd Kh 2c 3c 4c",
    "Ts Js Qs Ks As 7h 7d 7c 2h 2d 5c 5h 8s",
    "2h 5h 9h 3c 6c 8c Tc Qc 2s 4s 7s Js Ks",
    "2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d As",
    "Qd Kd Ah 4c 5d 6h 7s 8c 9d Th Js Qc Kc",
]


@pytest.mark.parametrize("preset", PRESETS + NEW_PRESETS)
@pytest.mark.parametrize("hand", STRONG)
def test_the_search_is_exact_on_strong_hands(hand: str, preset: str) -> None:
    check_exact(cards(hand), rules(preset))


# Hands whose fronts can tie their middles (a pair or high card the middle repeats).
TIES = ["Kh Kd Ks Kc Qc Qd Ah As 3c 2c 9d 8d 4h", "Ah Ad Kh Kd Qh Qd 7c 5s 3h 9c 8s 6d 2h"]


@pytest.mark.parametrize("hand", TIES)
def test_the_search_is_exact_when_a_tying_front_fouls(hand: str) -> None:
    tie = rules("chinese-poker-2-4", strict_order=True, front_vs_five="tie")
    check_exact(cards(hand), tie)
    found = suggest(cards(hand), tie, limit=20).suggestions
    assert not any(s.evaluation.foul for s in found)


@pytest.mark.parametrize(
    "preset, overrides",
    [
        ("chinese-poker-2-4", {"overall_rule": "more_rows", "row_points": [2, 2, 4]}),
        ("capsa-susun-id", {"row_points": [1, 2, 6], "scoop_bonus": 9}),
        ("chinese-poker-royalties", {"bonus_paid": "winner"}),
        ("chinese-poker-1-6", {"overall_unit": 2, "overall_rule": "more_rows", "row_points": [3, 1, 2]}),
    ],
)
def test_the_row_score_is_the_expected_points_with_row_weights_and_the_overall_rule(
    preset: str, overrides: dict[str, Any]
) -> None:
    """The closed form against all 27 row outcomes scored by the formula with `row_points`
    weights and `overall_rule` (bonus_paid winner)."""
    ruleset = rules(preset, **overrides)
    params = susun(ruleset)
    model = model_for(params)
    for hand in random_hands(13, 5) + [cards(h) for h in STRONG[:3]]:
        arrangement = suggest(hand, ruleset, limit=1).suggestions[0].arrangement
        result = evaluate(arrangement, params)
        if result.natural:
            continue
        stats = []
        for r, row in enumerate(result.rows):
            x = row_index(row.value, model.suited)
            rm = model.rows[r]
            stats.append((rm.win[x], rm.lose[x], row.bonus, rm.opp_bonus_won[x]))
        expected = -sum(s[3] for s in stats)
        for outcome in itertools.product((1, 0, -1), repeat=3):
            chance = 1.0
            for o, (w, lose, _, _) in zip(outcome, stats):
                chance *= w if o == 1 else lose if o == -1 else 1 - w - lose
            won, lost = outcome.count(1), outcome.count(-1)
            sweep = 1 if won == 3 else -1 if lost == 3 else 0
            mult = params.tembus_multiplier if sweep else 1
            if params.overall_rule == "more_rows":
                overall = params.overall_unit * ((won > lost) - (lost > won))
            else:
                overall = params.overall_unit * (1 if won >= 2 else -1 if lost >= 2 else 0)
            rows = sum(v * o for v, o in zip(params.row_points, outcome))
            bonus = sum(s[2] for o, s in zip(outcome, stats) if o == 1)
            expected += chance * (rows * mult + overall + sweep * params.scoop_bonus + bonus)
        assert objective_of_rows([r.value for r in result.rows], model) == pytest.approx(expected, abs=1e-12)


def test_a_foul_is_worth_minus_the_weighted_foul_payment() -> None:
    ruleset = rules("chinese-poker-2-4", row_points=[2, 2, 4])
    model = model_for(susun(ruleset))
    foul = Arrangement.from_strings("Ac Ad 2h", "Kc Qd 9h 7s 5c", "5d 6h 8s 9c Qd")
    opponent_bonus = sum(r.opp_bonus_mean for r in model.rows)
    assert expected_points(foul, ruleset) == pytest.approx(-(8 + 1 + opponent_bonus), abs=1e-12)


@pytest.mark.parametrize(
    "base, variant",
    [
        (("chinese-poker-1-6", {}), ("chinese-poker-1-6", {"row_points": [1, 2, 6], "scoop_bonus": 9})),
        (("chinese-poker-1-6", {}), ("chinese-poker-royalties", {})),
        (("chinese-poker-1-6", {}), ("chinese-poker-tw", {})),
    ],
)
def test_each_new_parameter_changes_what_suggest_picks_and_pays_off_under_it(
    base: tuple[str, dict[str, Any]], variant: tuple[str, dict[str, Any]]
) -> None:
    """On 30 seeded hands the variant's own objective picks another setting somewhere, and
    each pick is worth at least the base's pick under the variant's rules (exact search)."""
    base_rules, variant_rules = rules(base[0], **base[1]), rules(variant[0], **variant[1])
    changed = 0
    for hand in random_hands(1515, 30):
        mine = suggest(hand, variant_rules, limit=1).suggestions[0]
        theirs = suggest(hand, base_rules, limit=1).suggestions[0]
        changed += mine.arrangement != theirs.arrangement
        assert mine.score >= expected_points(theirs.arrangement, variant_rules) - 1e-9
    assert changed > 0


def test_more_rows_adds_the_chance_of_one_row_won_and_two_tied() -> None:
    # Ties are rare without suit tie-breaks, so the unit for win-tie-tie moves a score by
    # little and, on these hands, no pick; the score moves by exactly that term.
    two, more = rules("chinese-poker-2-4"), rules("chinese-poker-2-4", overall_rule="more_rows")
    model = model_for(susun(more))
    for hand in random_hands(1516, 5):
        best = suggest(hand, more, limit=1).suggestions[0]
        values = [r.value for r in best.evaluation.rows]
        w, lo = [], []
        for r, value in enumerate(values):
            x = row_index(value, model.suited)
            w.append(float(model.rows[r].win[x]))
            lo.append(float(model.rows[r].lose[x]))
        t = [1 - w[r] - lo[r] for r in range(3)]
        term = sum((w[r] - lo[r]) * t[(r + 1) % 3] * t[(r + 2) % 3] for r in range(3))
        assert best.score - expected_points(best.arrangement, two) == pytest.approx(term, abs=1e-12)


def test_six_pairs_with_trips_is_no_natural_for_suggest_without_counts_trips() -> None:
    hand = cards("2c 2d 2h 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d")
    assert suggest(hand, rules("chinese-poker-2-4"), limit=1).natural == "six_pairs"
    assert suggest(hand, rules("chinese-poker-royalties"), limit=1).natural is None


def test_a_natural_set_by_the_rows_is_suggested_only_when_worth_more_than_the_rows() -> None:
    """docs/susun-games.md#settling: an absent player's hand keeps a natural read from its
    cards in any setting; three flushes is a setting, which the first suggestion takes only
    where its value beats the best other setting's expected points."""
    hand = cards("4s 6h 8h 8s 5h Ad Js Kd Qd Jh Kh Qs 5s")  # three flushes: Ad Kd Qd / spades / hearts
    royalties = rules("chinese-poker-royalties")
    found = suggest(hand, royalties, limit=2)
    assert found.natural == "three_flushes"
    best = found.suggestions[0]
    assert best.evaluation.natural is None and best.score > susun(royalties).natural_values["three_flushes"]
    assert suggest(hand, rules("chinese-poker-royalties", natural_values={"three_flushes": 20}),
                   limit=1).suggestions[0].evaluation.natural == "three_flushes"
    dragon = cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    for preset in PRESETS + NEW_PRESETS:
        assert suggest(dragon, rules(preset), limit=1).suggestions[0].evaluation.natural == "dragon"


def test_the_row_score_is_the_expected_3_1_points_over_independent_rows() -> None:
    """The closed form against all 27 row outcomes scored by docs/rules.md#scoring-formula (bonus_paid winner)."""
    for preset in PRESETS:
        ruleset = rules(preset)
        params = susun(ruleset)
        model = model_for(params)
        for hand in random_hands(11, 5) + [cards(STRONG[0])]:
            arrangement = suggest(hand, ruleset, limit=1).suggestions[0].arrangement
            result = evaluate(arrangement, params)
            stats = []
            for r, row in enumerate(result.rows):
                x = row_index(row.value, model.suited)
                rm = model.rows[r]
                stats.append((rm.win[x], rm.lose[x], row.bonus, rm.opp_bonus_won[x]))
            expected = -sum(s[3] for s in stats)  # the opponent's bonuses, paid when it wins
            for outcome in itertools.product((1, 0, -1), repeat=3):
                chance = 1.0
                for o, (w, lose, _, _) in zip(outcome, stats):
                    chance *= w if o == 1 else lose if o == -1 else 1 - w - lose
                won, lost = outcome.count(1), outcome.count(-1)
                sweep = 1 if won == 3 else -1 if lost == 3 else 0
                mult = params.tembus_multiplier if sweep else 1
                overall = params.overall_unit * (1 if won >= 2 else -1 if lost >= 2 else 0)
                bonus = sum(s[2] for o, s in zip(outcome, stats) if o == 1)
                points = (won - lost) * mult + overall + sweep * params.scoop_bonus + bonus
                expected += chance * points
            assert objective_of_rows([r.value for r in result.rows], model) == pytest.approx(expected, abs=1e-12)


def test_the_win_and_lose_tables_are_the_opponent_histograms_summed() -> None:
    tables = load_tables()
    assert tables.hands >= 800_000
    for (wheel, suited), counts in tables.counts.items():
        model = model_for(susun(rules("chinese-poker-2-4", wheel=wheel, suit_tiebreak=suited)))
        for r, hist in enumerate(counts):
            assert hist.sum() == tables.hands and len(hist) == SCALE_SIZE
            if not suited:
                assert not hist.reshape(-1, 4)[:, 1:].any()
            for x in (0, 400, 4000, 12000, 20000, SCALE_SIZE - 4):
                assert model.rows[r].win[x] == pytest.approx(hist[:x].sum() / tables.hands, abs=1e-12)
                assert model.rows[r].lose[x] == pytest.approx(hist[x + 1 :].sum() / tables.hands, abs=1e-12)


# --- known hands ------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_a_dragon_is_reported_as_a_natural_and_scored_at_its_value(preset: str) -> None:
    ruleset = rules(preset)
    result = suggest(cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"), ruleset)
    value = susun(ruleset).natural_values["dragon"]
    assert result.natural == "dragon"
    assert [s.evaluation.natural for s in result.suggestions] == ["dragon"] * 3
    assert [s.score for s in result.suggestions] == [value] * 3


def test_four_of_a_kind_goes_to_the_middle_under_capsa_susun_id_when_the_back_is_stronger() -> None:
    result = suggest(cards(STRONG[0]), rules("capsa-susun-id"))
    top = result.suggestions[0].evaluation
    assert top.rows[1].category.label == "four_of_a_kind" and top.rows[1].bonus == 14
    assert top.rows[2].category.label == "straight_flush"
    assert not top.foul


def test_two_fours_of_a_kind_put_the_lower_in_the_middle_for_14_and_the_higher_at_the_back_for_7() -> None:
    top = suggest(cards(STRONG[1]), rules("capsa-susun-id")).suggestions[0].evaluation
    assert [r.bonus for r in top.rows[1:]] == [14, 7]


def test_a_lone_four_of_a_kind_stays_at_the_back_where_the_middle_would_foul() -> None:
    top = suggest(cards("9s 9h 9d 9c Jd 3s 4h 5s 6c Ad Kd Qc 2h"), rules("capsa-susun-id")).suggestions[0]
    assert top.evaluation.rows[2].category.label == "four_of_a_kind"
    assert top.evaluation.rows[2].bonus == 7


def test_three_flushes_are_reported_where_the_rule_set_knows_them_and_not_under_capsa_susun_id() -> None:
    hand = cards(STRONG[3])
    western = suggest(hand, rules("chinese-poker-2-4"))
    assert western.natural == "three_flushes"
    assert western.suggestions[0].score >= 3
    assert suggest(hand, rules("capsa-susun-id")).natural is None


def test_six_pairs_are_a_natural_of_the_western_presets() -> None:
    result = suggest(cards(STRONG[4]), rules("chinese-poker-1-6"))
    assert result.natural == "six_pairs"
    assert result.suggestions[0].evaluation.natural == "six_pairs"


def test_suggestions_are_distinct_best_first_and_never_fouls() -> None:
    for hand in random_hands(3, 5):
        result = suggest(hand, rules("chinese-poker-2-4"), limit=20)
        settings = [s.arrangement for s in result.suggestions]
        assert len(settings) == 20 == len({tuple(map(frozenset, a.rows)) for a in settings})
        scores = [s.score for s in result.suggestions]
        assert scores == sorted(scores, reverse=True)
        assert not any(s.evaluation.foul for s in result.suggestions)
        assert all(set(a.cards) == set(hand) for a in settings)


def test_the_result_does_not_depend_on_the_order_of_the_cards() -> None:
    hand = random_hands(5, 1)[0]
    a = suggest(hand, rules(), limit=5).to_json()
    b = suggest(list(reversed(hand)), rules(), limit=5).to_json()
    assert a == b


# --- the baseline arranger ----------------------------------------------------------------


def strongest(values: dict[tuple[Card, ...], HandValue], suit_tiebreak: bool) -> HandValue:
    best = None
    for value in values.values():
        if best is None or value.compare(best, suit_tiebreak) > 0:
            best = value
    assert best is not None
    return best


@pytest.mark.parametrize("preset", PRESETS)
def test_the_baseline_puts_the_strongest_five_at_the_back_and_the_next_in_the_middle(preset: str) -> None:
    params = susun(rules(preset))
    for hand in random_hands(13, 10):
        a = baseline_arrangement(hand, params)
        assert set(a.cards) == set(hand) and not evaluate(a, params).foul
        fives = {c: evaluate_five(c, params.wheel) for c in itertools.combinations(hand, 5)}
        back = strongest(fives, params.suit_tiebreak)
        assert evaluate_five(a.back, params.wheel).compare(back, params.suit_tiebreak) == 0
        rest = [c for c in hand if c not in a.back]
        middles = {c: evaluate_five(c, params.wheel) for c in itertools.combinations(rest, 5)}
        middle = strongest(middles, params.suit_tiebreak)
        assert evaluate_five(a.middle, params.wheel).compare(middle, params.suit_tiebreak) == 0


# --- quality --------------------------------------------------------------------------------


def play_rounds(preset: str, rounds: int, seed: int) -> tuple[float, float]:
    """Average points per round of one suggest player and of three baseline players."""
    ruleset = rules(preset)
    params = susun(ruleset)
    rng = random.Random(seed)
    ours, theirs = 0, 0
    for n in range(rounds):
        deck = rng.sample(DECK, 52)
        hands = [deck[13 * i : 13 * i + 13] for i in range(4)]
        seat = n % 4
        players = []
        for i, hand in enumerate(hands):
            if i == seat:
                arrangement: Arrangement = suggest(hand, ruleset, limit=1).suggestions[0].arrangement
            else:
                arrangement = baseline_arrangement(hand, params)
            players.append(PlayerHand(f"p{i}", arrangement))
        result = score_round(players, params)
        for i, player in enumerate(result.players):
            if i == seat:
                ours += player.points
            else:
                theirs += player.points
    return ours / rounds, theirs / (3 * rounds)


@pytest.mark.parametrize("preset", PRESETS)
def test_the_suggest_player_averages_more_points_than_the_baseline_players(preset: str) -> None:
    ours, theirs = play_rounds(preset, 300, seed=99)
    print(f"{preset}: suggest {ours:+.3f} / round, baseline {theirs:+.3f}, margin {ours - theirs:+.3f}")
    assert ours - theirs > 0


# --- the request ------------------------------------------------------------------------------

HAND = "2c 5d 9h Kc Qd 7s 3h Jc Ah 4d 8s Tc Th".split()


def test_the_suggest_document_has_the_api_shape() -> None:
    doc = suggest_request({"rules": "chinese-poker-2-4", "hand": HAND})
    assert set(doc) == {"natural", "suggestions", "rules"}
    assert doc["rules"]["preset"] == "chinese-poker-2-4" and len(doc["suggestions"]) == 3
    first = doc["suggestions"][0]
    assert set(first) == {"arrangement", "rows", "bonus_total", "score"}
    assert set(first["rows"]) == {"front", "middle", "back"}
    assert isinstance(first["score"], float) and isinstance(first["bonus_total"], int)
    assert suggest_request({"hand": HAND, "limit": 1})["rules"]["preset"] == "capsa-susun-id"


def test_ten_of_hearts_notation_and_symbols_are_accepted_and_answered_canonically() -> None:
    hand = ["10♥" if c == "Th" else c for c in HAND]
    hand = [c.lower() for c in hand]
    doc = suggest_request({"hand": hand, "limit": 2})
    assert all(c in HAND for s in doc["suggestions"] for row in s["arrangement"].values() for c in row)


@pytest.mark.parametrize(
    "body, error, field",
    [
        ({"hand": HAND, "limit": 0}, InvalidParameter, "limit"),
        ({"hand": HAND, "limit": 21}, InvalidParameter, "limit"),
        ({"hand": HAND, "limit": "3"}, InvalidParameter, "limit"),
        ({"hand": HAND, "limit": True}, InvalidParameter, "limit"),
        ({"hand": HAND[:12]}, InvalidCard, "hand"),
        ({"hand": "2c 3c"}, InvalidCard, "hand"),
        ({}, InvalidCard, "hand"),
        ({"hand": HAND[:12] + ["Xx"]}, InvalidCard, "hand[12]"),
        ({"hand": HAND[:12] + ["2c"]}, InvalidCard, "hand[12]"),
        ({"hand": HAND, "rules": "capsa-banting-id"}, UnknownRules, "rules"),
        ({"hand": HAND, "rules": {"preset": "chinese-poker-2-4", "params": {"nope": 1}}}, UnknownRules, "rules.params.nope"),
        ({"hand": HAND, "players": []}, Exception, "players"),
    ],
)
def test_bad_requests_name_the_field(body: dict[str, Any], error: type[Exception], field: str) -> None:
    with pytest.raises(error) as info:
        suggest_request(body)
    assert [e.field for e in info.value.errors] == [field]  # type: ignore[attr-defined]


def test_the_domain_call_refuses_a_hand_that_is_not_13_distinct_cards() -> None:
    with pytest.raises(InvalidCard):
        suggest(DECK[:12], rules())
    with pytest.raises(InvalidCard):
        suggest(list(DECK[:12]) + [DECK[0]], rules())
    with pytest.raises(InvalidParameter):
        suggest(DECK[:13], rules(), limit=0)


# --- the command ------------------------------------------------------------------------------


def test_capsa_arrange_prints_the_suggestions_as_a_table_and_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    from service.cli import main

    assert main(["arrange", *STRONG[0].split(), "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("score") == 2 and "four_of_a_kind  +14" in out
    assert main(["arrange", *HAND, "--rules", "chinese-poker-1-6", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rules"]["preset"] == "chinese-poker-1-6" and len(doc["suggestions"]) == 3


def test_capsa_arrange_names_a_bad_card_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    from service.cli import main

    assert main(["arrange", *HAND[:12], "Xx"]) == 1
    assert "hand[12]: unknown card 'Xx'" in capsys.readouterr().err


def _many_bonuses() -> dict[str, Any]:
    """`max_one_royalty` with 65 distinct bonus values (pairs, threes, full houses, fours by rank)."""
    ranks = "23456789TJQKA"
    by_rank = {f"{row}.{category}": {r: 1 + i + 13 * k for i, r in enumerate(ranks)}
               for k, (row, category) in enumerate([("front", "pair"), ("front", "three_of_a_kind"),
                                                    ("middle", "full_house"), ("middle", "four_of_a_kind"),
                                                    ("back", "four_of_a_kind")])}
    return {"max_one_royalty": True, "bonus_by_rank": by_rank}


def test_a_suggestion_refuses_rules_whose_search_would_be_slow() -> None:
    """max_one_royalty's term walks every distinct bonus value over all settings: 237 of them
    took 0.3 s a search (a preset has at most 25). More than MAX_ONE_BONUS_VALUES is a 422."""
    from service.domain.susun.suggest.search import MAX_ONE_BONUS_VALUES

    hand = cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    slow = rules("chinese-poker-1-6", **_many_bonuses())
    assert len(model_for(susun(slow)).thresholds) > MAX_ONE_BONUS_VALUES == 64
    with pytest.raises(InvalidParameter) as refused:
        suggest(hand, slow, limit=1)
    assert [e.field for e in refused.value.errors] == ["rules.params.max_one_royalty"]
    assert "distinct bonus values" in refused.value.errors[0].message
    # without max_one_royalty the same bonuses cost nothing more: no refusal
    fine = rules("chinese-poker-1-6", bonus_by_rank=_many_bonuses()["bonus_by_rank"])
    assert suggest(hand, fine, limit=1).suggestions


def _all_distinct_bonuses(start: int) -> dict[str, Any]:
    """`bonus_by_rank` giving every listed (row, category, rank) its own value from `start`:
    each call with another start is another rule set, with hundreds of bonus values."""
    from service.domain.susun.rules import BY_RANK_RANKS

    values = itertools.count(start)
    return {"bonus_by_rank": {name: {r: next(values) for r in ranks} for name, ranks in BY_RANK_RANKS.items()}}


def test_rules_with_many_bonus_values_but_no_max_one_royalty_build_no_threshold_tables() -> None:
    """The per-threshold tables serve `max_one_royalty` only. Built for every rule set, 237
    distinct bonus values made a 175 MB model, and a client varying them filled the cache
    of 64 models (a worker's memory) through POST /v1/susun/games or a suggestion."""
    from service.domain.susun.suggest import objective

    model = model_for(susun(rules("capsa-susun-id", **_all_distinct_bonuses(1))))
    assert len(model.thresholds) > 200
    assert all(row.opp_at_least == () for row in model.rows)
    assert objective.model_bytes(model) < 8 * 2**20


def test_the_model_cache_is_bounded_by_bytes_and_keeps_the_most_recently_used() -> None:
    from service.domain.susun.suggest import objective

    preset = susun(rules("capsa-susun-id"))
    model_for(preset)
    for start in range(1, 200, 7):  # rule sets with max_one_royalty and 64 bonus values or fewer
        params = _many_bonuses()
        params["bonus_by_rank"] = {k: {r: v + start for r, v in t.items()} for k, t in list(params["bonus_by_rank"].items())[:4]}
        model_for(susun(rules("chinese-poker-1-6", **params)))
        model_for(preset)  # used again: kept
        assert objective.cached_bytes() <= objective.MODELS_BYTES_MAX
    assert objective.cached_model(preset) is not None


def test_starting_a_susun_game_checks_its_rules_without_building_a_model() -> None:
    from service.domain.susun.suggest import objective
    from service.domain.susun.suggest.search import refuse_slow_rules

    params = rules("capsa-susun-id", **_all_distinct_bonuses(5_000))
    refuse_slow_rules(params)
    assert objective.cached_model(susun(params)) is None
    with pytest.raises(InvalidParameter):
        refuse_slow_rules(rules("chinese-poker-1-6", **_many_bonuses()))


@pytest.mark.parametrize("text", [
    "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As",  # three flushes in every setting
    "2s 3s 4s 5s 6s 7s 8s 9s Ts 2h 3h 4h 5h",
    "2c 3c 4c 5d 6d 7d 8d 9d Th Jh Qh Kh Ah",  # three straights and three flushes
    "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks 2d",
])
def test_the_settings_holding_a_natural_are_found_once_each_with_their_best_value(text: str) -> None:
    """`_setting_naturals` in arrays, against the readable loop it replaced (one setting and
    orientation at a time: 215 ms for a hand of one suit, now 12)."""
    from service.domain.susun.batch_evaluator import evaluate_batch5
    from service.domain.susun.suggest import search

    params = susun(rules("chinese-poker-royalties", natural_values={"three_flushes": 3, "three_straights": 4}))
    shape = search._shape()
    indices = search._sorted_indices(cards(text))
    cards3, cards5 = indices[shape.fronts], indices[shape.fives]
    s5 = evaluate_batch5(cards5, params.wheel)
    ids, values, names = search._setting_naturals(cards3, cards5, s5, params)
    expected: dict[int, float] = {}
    held: list[str] = []
    for name, front_ok, five_ok in (
        ("three_flushes", (cards3 & 3 == (cards3[:, :1] & 3)).all(axis=1), (cards5 & 3 == (cards5[:, :1] & 3)).all(axis=1)),
        ("three_straights", search._front_straights(cards3 >> 2), search._STRAIGHTS[search.CATEGORY_BY_STRENGTH[s5]]),
    ):
        for i in range(len(shape.split_front)):
            f, a, b = shape.split_front[i], shape.split_a[i], shape.split_b[i]
            if front_ok[f] and five_ok[a] and five_ok[b]:
                held += [] if name in held else [name]
                for m, k in ((a, b), (b, a)):
                    key = (int(f) * 1287 + int(m)) * 1287 + int(k)
                    expected[key] = max(expected.get(key, 0.0), float(params.natural_values[name]))
    assert ids.tolist() == sorted(expected) and values.tolist() == [expected[k] for k in sorted(expected)]
    assert sorted(names) == sorted(held)

"""Scoring (docs/rules.md#capsa-susun-chinese-poker): the one formula, bonuses, super, fouls, naturals, surrender.

Each expected number is worked out by hand from docs/rules.md in the comment beside it.
"""

import pytest
from builders import (
    DRAGON,
    FOUL,
    SIX_PAIRS,
    THREE_FLUSHES,
    THREE_STRAIGHTS,
    arr,
    levels,
    pair,
    params,
    play,
    rows_vs,
)

from service.domain.susun.arrangement import evaluate

SWEEP = rows_vs("WWW")


# -- 3.1: one formula, worked 2-4 and 1-6 cases ------------------------------------------

@pytest.mark.parametrize(
    "rows, points",
    [
        ("WWW", 4),  # 3 rows + 1 overall
        ("WWL", 2),  # 1 row + 1 overall
        ("WWT", 3),  # 2 rows + 1 overall
        ("WTT", 1),  # 1 row, nobody won two rows
        ("WLT", 0),  # 0 rows, no overall
        ("LLL", -4),
    ],
)
def test_the_worked_2_4_cases(rows, points):
    a, b = rows_vs(rows)
    assert pair(a, b, "chinese-poker-2-4").points == points


@pytest.mark.parametrize("rows, points", [("WWW", 6), ("WWL", 1), ("WLL", -1), ("TTT", 0), ("LLL", -6)])
def test_the_1_6_method_pays_one_for_two_to_one_and_six_for_a_scoop(rows, points):
    a, b = rows_vs(rows)  # 3 rows + scoop 3 = 6; 2-1 = 1 row
    assert pair(a, b, "chinese-poker-1-6").points == points


def test_tembus_doubles_a_sweep_in_capsa_susun():
    result = pair(*SWEEP)  # 3 rows x 2
    assert (result.points, result.outcome, result.multiplier) == (6, "tembus", 2)


def test_a_two_one_split_in_capsa_susun_is_one_point():
    a, b = rows_vs("WLW")
    result = pair(a, b)
    assert (result.points, result.outcome, result.multiplier, result.rows) == (1, "normal", 1, (1, -1, 1))


def test_identical_rows_tie_without_suit_tiebreak_and_not_with_it():
    a, b = rows_vs("TTT")
    assert pair(a, b, "chinese-poker-2-4").outcome == "tie"
    assert pair(a, b, "chinese-poker-2-4").points == 0
    # capsa-susun-id: suits decide every row. Front Kc vs Ks: b; middle Jh vs Js: b; back Ad vs Ac: b
    assert pair(a, b).points == -6


# -- outcome names ------------------------------------------------------------------------

@pytest.mark.parametrize(
    "preset, outcome",
    [("capsa-susun-id", "tembus"), ("chinese-poker-2-4", "scoop"), ("chinese-poker-1-6", "scoop")],
)
def test_a_sweep_is_named_by_the_preset(preset, outcome):
    assert pair(*SWEEP, preset).outcome == outcome


# -- 3.2 bonuses ----------------------------------------------------------------------------

TRIPS_FRONT = arr("7c 7d 7h", "8c 8d 8h 2c 2d", "9c 9d 9h 9s 4c")  # trips, FH middle, quads back
PLAIN = levels("LLL")


def test_bonuses_are_added_after_the_multiplier():
    # sweep: 3 x 2 = 6, plus front trips 5 + middle full house 3 + back quads 7 = 21
    result = pair(TRIPS_FRONT, PLAIN)
    assert (result.points, result.bonus_a, result.bonus_b) == (21, 15, 0)


def test_western_royalties_use_the_standard_table():
    # 2-4: 3 rows + 1 overall + trips 3 + full house 2 + quads back 4 = 13
    assert pair(TRIPS_FRONT, PLAIN, "chinese-poker-2-4").points == 13


def test_a_middle_four_of_a_kind_earns_fourteen_and_not_the_full_house_bonus():
    hand = arr("2c 3d 5h", "9c 9d 9h 9s 4c", "Tc Jc Qc Kc Ac")  # quads middle, royal back
    ev = evaluate(hand, params())
    assert [r.bonus for r in ev.rows] == [0, 14, 11]


@pytest.mark.parametrize(
    "row, hand, bonus",
    [
        ("front", arr("7c 7d 7h", "8c 8d 8h 2c 2d", "Ac Ad Ah As 3c"), 5),
        ("middle", arr("2c 3d 5h", "8c 8d 8h 2h 2d", "Ac Ad Ah As 3c"), 3),
        ("middle", arr("2c 3d 5h", "8c 8d 8h 8s 2d", "Ac Ad Ah As 3c"), 14),
        ("back", arr("2c 3d 5h", "Kc Kd 6h 7s 9d", "Ac Ad Ah As 3c"), 7),
        ("middle", arr("2c 3d 5h", "4h 5h 6h 7h 8h", "9s Ts Js Qs Ks"), 18),
        ("back", arr("2c 3d 5h", "Kc Kd 6h 7s 9d", "9s Ts Js Qs Ks"), 9),
        ("middle", arr("2c 3d 5h", "Th Jh Qh Kh Ah", "Ts Js Qs Ks As"), 22),
        ("back", arr("2c 3d 5h", "Kc Kd 6h 7s 9d", "Ts Js Qs Ks As"), 11),
    ],
)
def test_the_capsa_susun_bonus_table(row, hand, bonus):
    ev = evaluate(hand, params())
    assert not ev.foul
    assert {r.row: r.bonus for r in ev.rows}[row] == bonus


BONUS_MIDDLE_A = arr("2c 3d 5h", "8c 8d 8h 2h 2d", "Ac Ad Ah As 3c")  # FH middle (3), quads back (7)


def test_a_bonus_is_paid_only_to_the_row_winner():
    # A: front 5-high, middle full house (3), back quad aces (7).
    # B: front K-high, middle two pair, back two pair: no bonus hands.
    b = arr("Kc Qd 9h", "Jc Jd Tc Th 4c", "Qs Qh Ks Kh 5d")
    a = BONUS_MIDDLE_A
    ev_b = evaluate(b, params())
    assert not ev_b.foul
    # rows: front B, middle A (FH > two pair), back A (quads): A wins 2, B 1 -> rows +1
    # bonus: A's middle 3 + back 7 = 10; B earns nothing (no bonus hands). points 1 + 10 = 11
    result = pair(a, b)
    assert (result.points, result.bonus_a, result.bonus_b) == (11, 10, 0)


# The same two hands under each bonus_paid variant.
# A: front 2-3-5, middle FH 8s over 2s (3), back SF 9-K spades (9)
# B: front trips Q (5), middle FH Js over 3s (3), back quads K (7)
VAR_A = arr("2c 3d 5h", "8c 8d 8h 2h 2d", "9s Ts Js Qs Ks")
VAR_B = arr("Qc Qd Qh", "Jc Jd Jh 3c 3d", "Kc Kd Kh Ks 4c")


@pytest.mark.parametrize(
    "variant, points, bonus_a, bonus_b",
    [
        # winner: rows front B, middle B (J-full > 8-full), back A (SF > quads) -> rows -1;
        # A paid its back 9; B paid front 5 + middle 3 = 8 -> -1 + 9 - 8 = 0
        ("winner", 0, 9, 8),
        # both: A paid 3 + 9 = 12, B paid 5 + 3 + 7 = 15 -> -1 + 12 - 15 = -4
        ("both", -4, 12, 15),
        # cancel: middle and back both hold bonus hands -> cancelled; front: only B -> 5
        # -> -1 + 0 - 5 = -6
        ("cancel", -6, 0, 5),
    ],
)
def test_bonus_paid_variants(variant, points, bonus_a, bonus_b):
    result = pair(VAR_A, VAR_B, bonus_paid=variant)
    assert (result.points, result.bonus_a, result.bonus_b) == (points, bonus_a, bonus_b)


# A: front trips 7 (5), middle full house (3), back quads 9 (7); B: front trips Q (5),
# middle straight, back flush (no bonus hands). Rows: front B, middle A, back A -> +1.
CANCEL_A = arr("7c 7d 7h", "8c 8d 8h 2c 2d", "9c 9d 9h 9s 4c")
CANCEL_B = arr("Qc Qd Qh", "2h 3d 4d 5s 6s", "Ts Js Ks As 3s")


@pytest.mark.parametrize(
    "variant, whole",
    [
        # winner: A paid its middle 3 + back 7; B paid its front 5 -> 1 + 10 - 5 = 6
        ("winner", ((-1, 1, 1), 10, 5, "normal", 1, 6)),
        # cancel: the fronts both hold a bonus hand and cancel, and the rows after that are
        # still paid: A's middle 3 and back 7 (B holds none there) -> 1 + 10 = 11
        ("cancel", ((-1, 1, 1), 10, 0, "normal", 1, 11)),
    ],
)
def test_a_cancelled_row_does_not_stop_the_rows_after_it(variant, whole):
    result = pair(CANCEL_A, CANCEL_B, bonus_paid=variant)
    assert (result.rows, result.bonus_a, result.bonus_b, result.outcome, result.multiplier,
            result.points) == whole


def test_cancel_needs_a_bonus_on_both_sides_even_a_flat_one():
    # royalty_flat: every bonus is 1. VAR_A/VAR_B: middle and back both hold bonus hands
    # (1 and 1) and cancel; the front is B's alone (1): -1 row + 0 - 1 = -2
    result = pair(VAR_A, VAR_B, bonus_paid="cancel", royalty_flat=True)
    assert (result.rows, result.bonus_a, result.bonus_b, result.points) == ((-1, -1, 1), 0, 1, -2)
    # BONUS_MIDDLE_A against no bonus hands: nothing to cancel, A is paid 3 + 7
    b = arr("Kc Qd 9h", "Jc Jd Tc Th 4c", "Qs Qh Ks Kh 5d")
    result = pair(BONUS_MIDDLE_A, b, bonus_paid="cancel")
    assert (result.rows, result.bonus_a, result.bonus_b, result.points) == ((-1, 1, 1), 10, 0, 11)


def test_a_tied_row_pays_neither_bonus():
    # equal straight flushes in the middle and the back (western: no suit tie-break), equal
    # fronts: every row ties, so neither side is paid its middle 10 or back 5
    a = arr("2c 3d 5s", "5h 6h 7h 8h 9h", "9c Tc Jc Qc Kc")
    b = arr("2d 3c 5h", "5s 6s 7s 8s 9s", "9d Td Jd Qd Kd")
    result = pair(a, b, "chinese-poker-2-4")
    assert (result.rows, result.bonus_a, result.bonus_b, result.outcome, result.points) == (
        (0, 0, 0), 0, 0, "tie", 0)
    both = pair(a, b, "chinese-poker-2-4", bonus_paid="both")  # "both" pays them all the same
    assert (both.bonus_a, both.bonus_b, both.points) == (15, 15, 0)


def test_royalty_flat_makes_every_bonus_worth_one():
    # winner variant: A paid 1 (back), B paid 1 + 1 (front, middle) -> -1 + 1 - 2 = -2
    result = pair(VAR_A, VAR_B, royalty_flat=True)
    assert (result.points, result.bonus_a, result.bonus_b) == (-2, 1, 2)


def test_max_one_royalty_pays_nothing_to_a_side_that_won_no_row():
    result = pair(levels("HHH"), levels("LLL"), max_one_royalty=True)  # a sweep, no bonus hands
    assert (result.bonus_a, result.bonus_b, result.outcome, result.points) == (0, 0, "tembus", 6)
    result = pair(levels("LLL"), levels("HHH"), max_one_royalty=True)
    assert (result.bonus_a, result.bonus_b, result.outcome, result.points) == (0, 0, "tembus", -6)


def test_max_one_royalty_pays_only_the_largest_bonus():
    # B would be paid 5 + 3; it gets only 5 -> -1 + 9 - 5 = 3
    result = pair(VAR_A, VAR_B, max_one_royalty=True)
    assert (result.points, result.bonus_a, result.bonus_b) == (3, 9, 5)


# The whole settlement of compared pairs, (rows, bonus_a, bonus_b, outcome, multiplier, points):
# the outcome names the sweep by its multiplier, a non-sweep is "normal" or "tie" by its points.
@pytest.mark.parametrize(
    "preset, overrides, rows, whole",
    [
        # capsa-susun-id: tembus x2 on a sweep from either side, otherwise rows count once
        ("capsa-susun-id", {}, "WWW", ((1, 1, 1), 0, 0, "tembus", 2, 6)),
        ("capsa-susun-id", {}, "LLL", ((-1, -1, -1), 0, 0, "tembus", 2, -6)),
        ("capsa-susun-id", {}, "WLW", ((1, -1, 1), 0, 0, "normal", 1, 1)),
        ("capsa-susun-id", {}, "LLW", ((-1, -1, 1), 0, 0, "normal", 1, -1)),
        # tembus_multiplier 1: a sweep is a plain scoop of 3 rows
        ("capsa-susun-id", {"tembus_multiplier": 1}, "WWW", ((1, 1, 1), 0, 0, "scoop", 1, 3)),
        # chinese-poker-2-4: 1 a row + 1 overall for two rows or more, no sweep multiplier
        ("chinese-poker-2-4", {}, "WWW", ((1, 1, 1), 0, 0, "scoop", 1, 4)),
        ("chinese-poker-2-4", {}, "LLL", ((-1, -1, -1), 0, 0, "scoop", 1, -4)),
        ("chinese-poker-2-4", {}, "WLW", ((1, -1, 1), 0, 0, "normal", 1, 2)),
        ("chinese-poker-2-4", {}, "LLW", ((-1, -1, 1), 0, 0, "normal", 1, -2)),
        ("chinese-poker-2-4", {}, "WTT", ((1, 0, 0), 0, 0, "normal", 1, 1)),  # one row, no overall
        ("chinese-poker-2-4", {}, "LTT", ((-1, 0, 0), 0, 0, "normal", 1, -1)),
        ("chinese-poker-2-4", {}, "WLT", ((1, -1, 0), 0, 0, "tie", 1, 0)),
        ("chinese-poker-2-4", {}, "TTT", ((0, 0, 0), 0, 0, "tie", 1, 0)),
        # more_rows: the overall unit for more rows won than lost, so 1-0 earns it and 1-1 not
        ("chinese-poker-2-4", {"overall_rule": "more_rows"}, "WTT", ((1, 0, 0), 0, 0, "normal", 1, 2)),
        ("chinese-poker-2-4", {"overall_rule": "more_rows"}, "LTT", ((-1, 0, 0), 0, 0, "normal", 1, -2)),
        ("chinese-poker-2-4", {"overall_rule": "more_rows"}, "WLT", ((1, -1, 0), 0, 0, "tie", 1, 0)),
        ("chinese-poker-2-4", {"overall_rule": "more_rows"}, "TTT", ((0, 0, 0), 0, 0, "tie", 1, 0)),
        # chinese-poker-1-6: 3 rows + a scoop bonus of 3, taken by the sweeper's side
        ("chinese-poker-1-6", {}, "WWW", ((1, 1, 1), 0, 0, "scoop", 1, 6)),
        ("chinese-poker-1-6", {}, "LLL", ((-1, -1, -1), 0, 0, "scoop", 1, -6)),
        ("chinese-poker-1-6", {}, "LLW", ((-1, -1, 1), 0, 0, "normal", 1, -1)),
        # row weights 1-2-6: a lost back row outweighs two won rows
        ("chinese-poker-1-6", {"row_points": [1, 2, 6]}, "WWL", ((1, 1, -1), 0, 0, "normal", 1, -3)),
        ("chinese-poker-1-6", {"row_points": [1, 2, 6]}, "WLW", ((1, -1, 1), 0, 0, "normal", 1, 5)),
    ],
)
def test_a_compared_pair_settles_as_a_whole(preset, overrides, rows, whole):
    a, b = rows_vs(rows)
    result = pair(a, b, preset, **overrides)
    assert (result.a, result.b) == ("a", "b")
    assert (result.rows, result.bonus_a, result.bonus_b, result.outcome, result.multiplier,
            result.points) == whole


@pytest.mark.parametrize(
    "preset, overrides, whole",
    [
        ("capsa-susun-id", {}, ((1, 1, 1), 0, 0, "super", 4, 12)),  # 3 rows x super 4
        ("capsa-susun-id", {"super_multiplier": 2}, ((1, 1, 1), 0, 0, "super", 2, 6)),
        # western: a super multiplier of 1 is no super; the sweep is a scoop
        ("chinese-poker-2-4", {}, ((1, 1, 1), 0, 0, "scoop", 1, 4)),
        ("chinese-poker-1-6", {}, ((1, 1, 1), 0, 0, "scoop", 1, 6)),
    ],
)
def test_a_super_sweep_settles_as_a_whole_from_either_seat(preset, overrides, whole):
    top, low = levels("HHH"), levels("LLL")
    first = play([top, low, low, low], preset, **overrides)
    assert [(p.a, p.b) for p in first.pairs[:3]] == [("a", "b"), ("a", "c"), ("a", "d")]
    for p in first.pairs[:3]:
        assert (p.rows, p.bonus_a, p.bonus_b, p.outcome, p.multiplier, p.points) == whole
    rows, bonus_a, bonus_b, outcome, multiplier, points = whole
    last = play([low, low, low, top], preset, **overrides)
    for p in last.pairs:
        if p.b == "d":
            assert (p.rows, p.bonus_a, p.bonus_b, p.outcome, p.multiplier, p.points) == (
                tuple(-r for r in rows), bonus_b, bonus_a, outcome, multiplier, -points)


# -- 3.3 super --------------------------------------------------------------------------------

def test_super_at_four_players_multiplies_every_sweep_by_four():
    top, low = levels("HHH"), levels("LLL")
    result = play([top, low, low, low])
    # a sweeps b, c and d: 3 x 4 = 12 each (the L hands are equal to each other: 0)
    assert [p.points for p in result.pairs[:3]] == [12, 12, 12]
    assert {p.outcome for p in result.pairs[:3]} == {"super"}
    assert result.players[0].points == 36


def test_super_is_found_for_the_last_seat_too():
    """The sweep of a later seat over an earlier one reads their comparison negated."""
    top, low = levels("HHH"), levels("LLL")
    result = play([low, low, low, top])
    assert [(p.a, p.b, p.points, p.outcome) for p in result.pairs if p.b == result.players[3].id] == [
        (result.players[i].id, result.players[3].id, -12, "super") for i in range(3)
    ]
    assert [p.super_ for p in result.players] == [False, False, False, True]
    assert result.players[3].points == 36


def test_winning_two_rows_and_tying_one_is_no_sweep_and_so_no_super():
    # without suit tie-breaks the T back ties H: a wins 2 rows of b and sweeps c and d, so a
    # is not super; its sweeps of c and d are plain tembus (3 x 2)
    top = levels("HHH")
    result = play([top, levels("LLT"), levels("LLL"), levels("LLL")], suit_tiebreak=False)
    assert [p.super_ for p in result.players] == [False, False, False, False]
    assert [(p.a, p.b, p.rows, p.outcome, p.multiplier, p.points) for p in result.pairs[:3]] == [
        ("a", "b", (1, 1, 0), "normal", 1, 2), ("a", "c", (1, 1, 1), "tembus", 2, 6),
        ("a", "d", (1, 1, 1), "tembus", 2, 6)]


def test_there_is_no_super_at_three_players():
    top, low = levels("HHH"), levels("LLL")
    result = play([top, low, low])
    assert [(p.points, p.outcome) for p in result.pairs[:2]] == [(6, "tembus"), (6, "tembus")]


def test_a_fouled_opponent_counts_as_swept_for_super():
    top, low = levels("HHH"), levels("LLL")
    result = play([top, low, low, FOUL])
    assert [(p.points, p.outcome) for p in result.pairs[:2]] == [(12, "super"), (12, "super")]
    assert (result.pairs[2].points, result.pairs[2].outcome) == (12, "foul")


def test_a_natural_opponent_prevents_super():
    top, low = levels("HHH"), levels("LLL")
    result = play([top, low, low, DRAGON])
    assert [(p.points, p.outcome) for p in result.pairs[:2]] == [(6, "tembus"), (6, "tembus")]


# -- 3.4 fouls ---------------------------------------------------------------------------------

def test_a_foul_pays_each_opponent_twelve_points_plus_their_bonuses():
    # TRIPS_FRONT: 3 x 4 = 12 + 5 + 3 + 7 = 27
    result = pair(TRIPS_FRONT, FOUL)
    assert (result.points, result.outcome, result.multiplier, result.rows, result.bonus_a) == (
        27, "foul", 4, None, 15)


@pytest.mark.parametrize("preset, points", [("chinese-poker-2-4", 4), ("chinese-poker-1-6", 6)])
def test_a_western_foul_pays_a_sweep(preset, points):
    assert pair(PLAIN, FOUL, preset).points == points


def test_two_fouls_are_even():
    result = pair(FOUL, FOUL)
    assert (result.points, result.outcome) == (0, "foul")


def test_a_foul_never_wins_against_a_weaker_legal_hand():
    weak = arr("2c 3d 4h", "5s 6c 7d 8h Ts", "9c Jd Qh Ks 2s")
    assert pair(FOUL, weak).points == -12


def test_the_foul_multiplier_is_an_operator_choice_at_three_players():
    assert pair(PLAIN, FOUL, foul_multiplier=2).points == 6


# -- 3.5 naturals and surrender: every cell of the table (western preset) -------------------

LEGAL = PLAIN
CELLS = {
    # (A, B): points for A under chinese-poker-2-4 (dragon 13, surrender 3, foul 4)
    ("legal", "legal"): 0,  # identical L rows tie
    ("legal", "foul"): 4,
    ("legal", "natural"): -13,
    ("legal", "surrender"): 3,
    ("foul", "legal"): -4,
    ("foul", "foul"): 0,
    ("foul", "natural"): -13,
    ("foul", "surrender"): 0,
    ("natural", "legal"): 13,
    ("natural", "foul"): 13,
    ("natural", "natural"): 0,  # two dragons tie
    ("natural", "surrender"): 3,
    ("surrender", "legal"): -3,
    ("surrender", "foul"): 0,
    ("surrender", "natural"): -3,
    ("surrender", "surrender"): 0,
}
HANDS = {"legal": LEGAL, "foul": FOUL, "natural": DRAGON, "surrender": None}


@pytest.mark.parametrize("cell", sorted(CELLS))
def test_every_cell_of_the_who_pays_whom_table(cell):
    a, b = cell
    hand_b = HANDS[b]
    if a == b == "natural":
        hand_b = arr("2d 3h 4s", "5c 6d 7h 8s 9c", "Td Jh Qs Kc Ad")  # the other dragon
    result = pair(HANDS[a], hand_b, "chinese-poker-2-4")
    assert result.points == CELLS[cell]
    expected_outcome = {"surrender": "surrender", "natural": "natural", "foul": "foul"}
    decided_by = next((expected_outcome[s] for s in ("surrender", "natural", "foul") if s in cell), None)
    if decided_by:
        assert result.outcome == decided_by and result.rows is None


# The whole settlement of every uncompared cell under capsa-susun-id, not its points alone:
# no row comparison (rows None), no bonus on either side unless a foul pays one, multiplier 1
# except a foul, which is paid as a sweep at foul_multiplier 4: 3 rows x 4 = 12.
# (rows, bonus_a, bonus_b, outcome, multiplier, points)
WHOLE_CELLS = {
    ("legal", "foul"): (None, 0, 0, "foul", 4, 12),
    ("foul", "legal"): (None, 0, 0, "foul", 4, -12),
    ("foul", "foul"): (None, 0, 0, "foul", 1, 0),
    ("legal", "natural"): (None, 0, 0, "natural", 1, -208),  # dragon 208
    ("natural", "legal"): (None, 0, 0, "natural", 1, 208),
    ("natural", "foul"): (None, 0, 0, "natural", 1, 208),
    ("foul", "natural"): (None, 0, 0, "natural", 1, -208),
    ("natural", "natural"): (None, 0, 0, "natural", 1, 0),  # two dragons tie
    ("legal", "surrender"): (None, 0, 0, "surrender", 1, 3),  # surrender_cost 3
    ("surrender", "legal"): (None, 0, 0, "surrender", 1, -3),
    ("natural", "surrender"): (None, 0, 0, "surrender", 1, 3),
    ("surrender", "natural"): (None, 0, 0, "surrender", 1, -3),
    ("foul", "surrender"): (None, 0, 0, "surrender", 1, 0),  # a foul owes a surrender nothing
    ("surrender", "foul"): (None, 0, 0, "surrender", 1, 0),
    ("surrender", "surrender"): (None, 0, 0, "surrender", 1, 0),
}


@pytest.mark.parametrize("cell", sorted(WHOLE_CELLS))
def test_every_uncompared_cell_settles_as_a_whole(cell):
    a, b = cell
    hand_b = HANDS[b]
    if a == b == "natural":
        hand_b = arr("2d 3h 4s", "5c 6d 7h 8s 9c", "Td Jh Qs Kc Ad")  # the other dragon
    round_ = play([HANDS[a], hand_b])
    result = round_.pairs[0]
    assert (result.a, result.b) == ("a", "b")
    assert (result.rows, result.bonus_a, result.bonus_b, result.outcome, result.multiplier,
            result.points) == WHOLE_CELLS[cell]
    points = WHOLE_CELLS[cell][-1]
    assert [(p.id, p.status, p.super_, p.points) for p in round_.players] == [
        ("a", a, False, points), ("b", b, False, -points)]


def test_a_foul_pays_the_bonuses_of_the_legal_side_whichever_seat_it_holds():
    # TRIPS_FRONT earns 5 + 3 + 7 = 15; paid as a sweep: 3 x 4 + 15 = 27
    assert pair(TRIPS_FRONT, FOUL).bonus_b == 0
    result = pair(FOUL, TRIPS_FRONT)
    assert (result.rows, result.bonus_a, result.bonus_b, result.outcome, result.multiplier,
            result.points) == (None, 0, 15, "foul", 4, -27)


def test_a_natural_is_paid_its_own_value_not_the_other_sides():
    # western values: three straights 4 against six pairs; the higher tier is paid its value
    # from either seat, and two naturals of different tiers still carry no bonus or rows
    for a, b, points in ((THREE_STRAIGHTS, SIX_PAIRS, 4), (SIX_PAIRS, THREE_STRAIGHTS, -4),
                         (THREE_STRAIGHTS, levels("HHH"), 4), (levels("HHH"), SIX_PAIRS, -3)):
        result = pair(a, b, "chinese-poker-2-4")
        assert (result.rows, result.bonus_a, result.bonus_b, result.outcome, result.multiplier,
                result.points) == (None, 0, 0, "natural", 1, points)


def test_a_natural_left_out_of_natural_values_still_decides_the_pair_for_nothing():
    # docs/rules.md: a table override replaces the whole table, and a key left out is worth
    # nothing. Six pairs and three straights are still naturals (not scored on their rows).
    values = {"dragon": 13}
    for a, b in ((SIX_PAIRS, levels("HHH")), (levels("HHH"), SIX_PAIRS), (THREE_STRAIGHTS, SIX_PAIRS),
                 (SIX_PAIRS, THREE_STRAIGHTS)):
        result = pair(a, b, "chinese-poker-2-4", natural_values=values)
        assert (result.rows, result.bonus_a, result.bonus_b, result.outcome, result.multiplier,
                result.points) == (None, 0, 0, "natural", 1, 0)
    # the dragon keeps its 13 against the natural worth nothing
    assert pair(DRAGON, SIX_PAIRS, "chinese-poker-2-4", natural_values=values).points == 13


def test_a_dragon_beats_a_foul_for_208_in_capsa_susun():
    result = pair(DRAGON, FOUL)
    assert (result.points, result.outcome) == (208, "natural")


def test_capsa_susun_knows_only_the_dragon():
    # three flushes is not a natural there: the hand is scored on its rows
    ev = evaluate(THREE_FLUSHES, params())
    assert ev.natural is None and not ev.foul


# natural tiers and same-tier comparisons (western values 13/4/3/3)
@pytest.mark.parametrize(
    "a, b, points",
    [
        (DRAGON, THREE_STRAIGHTS, 13),  # higher tier wins its own value
        (THREE_STRAIGHTS, SIX_PAIRS, 4),
        (THREE_FLUSHES, SIX_PAIRS, 3),
        # same tier: back rows compare, a K-high flush beats a K-high straight -> the flush wins 3
        (THREE_FLUSHES, THREE_STRAIGHTS, 3),
    ],
)
def test_natural_tiers(a, b, points):
    assert pair(a, b, "chinese-poker-2-4").points == points
    assert pair(b, a, "chinese-poker-2-4").points == -points


def test_six_pairs_compare_the_highest_pair_first():
    higher = arr("Ac Ad 2s", "3h 3s 4h 4s 7h", "5h 5s 6h 6s 7s")  # pairs A 7 6 5 4 3
    assert pair(higher, SIX_PAIRS, "chinese-poker-2-4").points == 3  # A > 7


def test_three_straights_tie_when_every_row_is_equal_without_suits():
    other = arr("Qc Kh As", "4d 5h 6s 7c 8d", "9h Ts Jc Qd Ks")
    assert pair(THREE_STRAIGHTS, other, "chinese-poker-2-4").points == 0


def test_a_hand_that_is_two_naturals_holds_the_most_valuable():
    # the DRAGON is also three straights: dragon (13) > three straights (4)
    ev = evaluate(DRAGON, params("chinese-poker-2-4"))
    assert ev.natural == "dragon"
    # with three straights made the more valuable, it holds that one
    ev = evaluate(DRAGON, params(
        "chinese-poker-2-4", natural_values={"dragon": 1, "three_straights": 50}))
    assert ev.natural == "three_straights"


def test_equal_values_prefer_the_stronger_tier_then_three_straights():
    hand = arr("Jh Qh Kh", "4h 5h 6h 7h 8h", "9c Tc Jc Qc Kc")  # three flushes and three straights
    p = params(
        "chinese-poker-2-4", natural_values={"dragon": 13, "three_straights": 3, "three_flushes": 3, "six_pairs": 3})
    assert evaluate(hand, p).natural == "three_straights"


def test_a_natural_holder_is_never_a_fouler():
    # six pairs set with the front pair of aces above a weaker middle
    hand = arr("Ac Ad 2s", "3c 3d 4c 4d 7c", "5c 5d 6c 6d 7d")
    ev = evaluate(hand, params("chinese-poker-2-4"))
    assert (ev.natural, ev.foul, ev.foul_reason) == ("six_pairs", False, None)


def test_naturals_can_be_switched_off():
    ev = evaluate(DRAGON, params("chinese-poker-2-4", naturals=[]))
    assert ev.natural is None


# -- strict order -------------------------------------------------------------------------------

def test_equal_rows_are_legal_unless_strict_order():
    hand = arr("Kh Kd Qc", "Ks Kc Qd 3c 2c", "Ah Ad 9c 9d 2d")
    assert not evaluate(hand, params("chinese-poker-2-4")).foul
    # middle and back the same straight (no suit tiebreak in this preset): equal rows
    equal = arr("2c 3d Jh", "5c 6d 7h 8s 9c", "5d 6h 7s 8c 9d")
    assert not evaluate(equal, params("chinese-poker-2-4")).foul
    strict = evaluate(equal, params("chinese-poker-2-4", strict_order=True))
    assert strict.foul and strict.foul_reason == "middle beats back"


def test_foul_reasons():
    p = params()
    assert evaluate(FOUL, p).foul_reason == "front beats middle"
    hand = arr("2c 3d 5h", "Ac Ad 9h 7s 5c", "Kc Qd 9c 7h 4c")
    assert evaluate(hand, p).foul_reason == "middle beats back"

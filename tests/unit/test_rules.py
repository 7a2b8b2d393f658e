"""Rule sets (docs/rules.md#rule-sets-presets-and-versions): exact presets, overrides with type checks, JSON round trips."""

import json
from collections.abc import Mapping
from decimal import Decimal

import pytest

from service.domain.errors import InvalidParameter, UnknownRules, quoted
from service.domain.rules import RuleSet, every_preset, list_presets, resolve_rules

ID_BONUS = {"front.three_of_a_kind": 5, "middle.full_house": 3, "middle.four_of_a_kind": 14,
            "middle.straight_flush": 18, "middle.royal_flush": 22, "back.four_of_a_kind": 7,
            "back.straight_flush": 9, "back.royal_flush": 11}
WEST_BONUS = {"front.three_of_a_kind": 3, "middle.full_house": 2, "middle.four_of_a_kind": 8,
              "middle.straight_flush": 10, "middle.royal_flush": 10, "back.four_of_a_kind": 4,
              "back.straight_flush": 5, "back.royal_flush": 5}
ALL4 = ["dragon", "three_straights", "three_flushes", "six_pairs"]
WEST_NAT = {"dragon": 13, "three_straights": 4, "three_flushes": 3, "six_pairs": 3}
COMMON = {"wheel": "low", "strict_order": False, "bonus_paid": "winner", "royalty_flat": False,
          "max_one_royalty": False, "super_min_players": 4, "surrender_cost": 3,
          "fee_rate": "0.03", "fee_basis": "winnings"}

EXPECTED = {
    "capsa-susun-id": COMMON | {
        "suit_tiebreak": True, "naturals": ["dragon"], "natural_values": {"dragon": 208},
        "bonus": ID_BONUS, "tembus_multiplier": 2, "super_multiplier": 4, "foul_multiplier": 4,
        "overall_unit": 0, "scoop_bonus": 0, "surrender_allowed": False},
    "chinese-poker-2-4": COMMON | {
        "suit_tiebreak": False, "naturals": ALL4, "natural_values": WEST_NAT, "bonus": WEST_BONUS,
        "tembus_multiplier": 1, "super_multiplier": 1, "foul_multiplier": 1, "overall_unit": 1,
        "scoop_bonus": 0, "surrender_allowed": True},
    "chinese-poker-1-6": COMMON | {
        "suit_tiebreak": False, "naturals": ALL4, "natural_values": WEST_NAT, "bonus": WEST_BONUS,
        "tembus_multiplier": 1, "super_multiplier": 1, "foul_multiplier": 1, "overall_unit": 0,
        "scoop_bonus": 3, "surrender_allowed": True},
    "capsa-banting-id": {"suit_order": "dchs", "flush_order": "suit_first",
                         "straights_with_two": False, "bomb_ends_game": True, "double_at": 10,
                         "triple_at": 13, "fee_rate": "0.03", "fee_basis": "winnings"},
}
# Big Two version 2: straights_with_two becomes straights, and the new variants are named.
BANTING_V2 = {"suit_order": "dchs", "flush_order": "suit_first", "straights": "standard",
              "bombs": "five_card_on_two", "bomb_ends_game": True, "pass_locks": "trick",
              "last_card_rule": "none", "first_lead": "lowest_card", "settlement": "winner_collects",
              "double_at": 10, "triple_at": 13, "fee_rate": "0.03", "fee_basis": "winnings"}
BANTING_BEFORE = {
    "capsa-banting-id": (2, BANTING_V2),
    "pusoy-dos": (1, BANTING_V2 | {"suit_order": "cshd", "straights": "consecutive", "bombs": "none",
                                   "bomb_ends_game": False}),
    "big-two-hk": (1, BANTING_V2 | {"bombs": "none", "bomb_ends_game": False,
                                    "last_card_rule": "highest_single"}),
    "big-two-tw": (1, BANTING_V2 | {"suit_order": "cdhs", "bomb_ends_game": False, "pass_locks": "turn"}),
    "big-two-yawnoc": (1, BANTING_V2 | {"bombs": "none", "bomb_ends_game": False,
                                        "last_card_rule": "highest_single",
                                        "settlement": "everyone_pays_everyone", "fee_rate": "0"}),
}
# The latest versions (issue 24): the earlier version with straight_flush_order and
# last_card_penalty at the values that keep it, but for pusoy-dos (suit first, as
# astralking-infinity/pusoy_dos `is_higher`) and big-two-yawnoc (yawnoc/big-two-scorer's
# "taking on all losses", which needs the moves the last-card rule would refuse).
KEEPS_V2 = {"straight_flush_order": "rank_first", "last_card_penalty": "none"}
LATEST_BANTING = {
    name: (version + 1, params | KEEPS_V2) for name, (version, params) in BANTING_BEFORE.items()
}
LATEST_BANTING["pusoy-dos"][1]["straight_flush_order"] = "suit_first"
LATEST_BANTING["big-two-yawnoc"][1].update(last_card_rule="none", last_card_penalty="takes_all_losses")


# Version 2 of each Susun preset: version 1 and every new parameter at the value that keeps it.
KEEPS_V1 = {"overall_rule": "two_rows", "row_points": [1, 1, 1], "bonus_by_rank": {},
            "six_pairs_counts_trips": True}
SUSUN_V1 = ("capsa-susun-id", "chinese-poker-2-4", "chinese-poker-1-6")
TW_BONUS = {"front.three_of_a_kind": 1, "middle.four_of_a_kind": 3, "middle.straight_flush": 4,
            "middle.royal_flush": 4, "back.four_of_a_kind": 2, "back.straight_flush": 3,
            "back.royal_flush": 3}
NEW = {
    "chinese-poker-tw": EXPECTED["chinese-poker-1-6"] | KEEPS_V1 | {
        "naturals": ["dragon"], "natural_values": {"dragon": 36}, "bonus": TW_BONUS,
        "bonus_paid": "both", "surrender_allowed": False},
    "chinese-poker-royalties": EXPECTED["chinese-poker-1-6"] | KEEPS_V1 | {
        "natural_values": {"dragon": 13, "three_straights": 3, "three_flushes": 3, "six_pairs": 3},
        "bonus": {}, "bonus_paid": "both", "surrender_allowed": False,
        "six_pairs_counts_trips": False},
}


@pytest.mark.parametrize("preset", sorted(EXPECTED))
def test_version_1_of_each_preset_keeps_exactly_its_parameters(preset):
    doc = resolve_rules({"preset": preset, "version": 1}, None).to_json()
    assert doc == {"preset": preset, "version": 1, "params": EXPECTED[preset]}


@pytest.mark.parametrize("preset", sorted(LATEST_BANTING))
def test_each_big_two_preset_without_a_version_is_its_latest_with_every_parameter(preset):
    version, params = LATEST_BANTING[preset]
    assert resolve_rules(preset, "banting").to_json() == {"preset": preset, "version": version, "params": params}


@pytest.mark.parametrize("preset", sorted(BANTING_BEFORE))
def test_the_big_two_versions_before_issue_24_keep_exactly_their_parameters(preset):
    version, params = BANTING_BEFORE[preset]
    doc = resolve_rules({"preset": preset, "version": version}, "banting").to_json()
    assert doc == {"preset": preset, "version": version, "params": params}


@pytest.mark.parametrize("preset", SUSUN_V1)
def test_version_2_of_each_susun_preset_is_version_1_with_the_new_parameters_that_keep_it(preset):
    doc = resolve_rules({"preset": preset, "version": 2}, None).to_json()
    assert doc == {"preset": preset, "version": 2, "params": EXPECTED[preset] | KEEPS_V1}
    v2 = resolve_rules({"preset": preset, "version": 2}, None).params
    assert v2 == resolve_rules({"preset": preset, "version": 1}, None).params


# The latest versions (issue 24) name front_vs_five at the value that keeps the earlier one.
KEEPS_V2 = {"front_vs_five": "five_stronger"}


@pytest.mark.parametrize("preset", SUSUN_V1)
def test_version_3_of_each_susun_preset_is_version_2_with_front_vs_five(preset):
    doc = resolve_rules(preset, None).to_json()
    assert doc == {"preset": preset, "version": 3, "params": EXPECTED[preset] | KEEPS_V1 | KEEPS_V2}
    assert resolve_rules(preset, None).params == resolve_rules({"preset": preset, "version": 1}, None).params


@pytest.mark.parametrize("version, keeps", [(1, {}), (2, KEEPS_V2)])
@pytest.mark.parametrize("preset", sorted(NEW))
def test_each_new_preset_has_every_parameter_of_its_version(preset, version, keeps):
    doc = resolve_rules({"preset": preset, "version": version}, "susun").to_json()
    by_rank = doc["params"].pop("bonus_by_rank")
    expected = dict(NEW[preset]) | keeps
    expected.pop("bonus_by_rank")
    assert doc == {"preset": preset, "version": version, "params": expected}
    assert (by_rank == {}) == (preset == "chinese-poker-tw")


def test_every_preset_is_listed():
    assert sorted(r.preset for r, _ in list_presets()) == sorted(set(EXPECTED) | set(NEW) | set(LATEST_BANTING))


def test_a_version_1_preset_refuses_a_parameter_only_later_versions_have():
    ref = {"preset": "chinese-poker-2-4", "version": 1, "params": {"overall_rule": "more_rows"}}
    with pytest.raises(UnknownRules, match="version 2 has it") as exc:
        resolve_rules(ref, "susun")
    assert exc.value.errors[0].field == "rules.params.overall_rule"


@pytest.mark.parametrize("preset", sorted(EXPECTED))
def test_a_resolved_rule_set_loads_back_equal_from_its_json(preset):
    overrides = {"fee_rate": "0.05", "fee_basis": "result"}
    rules = resolve_rules({"preset": preset, "params": overrides}, None)
    assert RuleSet.from_json(json.loads(json.dumps(rules.to_json()))) == rules


def test_overriding_a_table_replaces_the_whole_table():
    rules = resolve_rules({"preset": "capsa-susun-id", "params": {"bonus": {"back.royal_flush": 50}}}, "susun")
    assert dict(rules.params.bonus) == {"back.royal_flush": 50}


@pytest.mark.parametrize(
    "params, field, cls",
    [
        ({"nope": 1}, "rules.params.nope", UnknownRules),
        ({"wheel": "high"}, "rules.params.wheel", InvalidParameter),
        ({"suit_tiebreak": 1}, "rules.params.suit_tiebreak", InvalidParameter),
        ({"tembus_multiplier": 0}, "rules.params.tembus_multiplier", InvalidParameter),
        ({"overall_unit": 10_001}, "rules.params.overall_unit", InvalidParameter),
        ({"overall_unit": True}, "rules.params.overall_unit", InvalidParameter),
        ({"overall_unit": 1.0}, "rules.params.overall_unit", InvalidParameter),
        ({"fee_rate": 0.03}, "rules.params.fee_rate", InvalidParameter),
        ({"fee_rate": "1"}, "rules.params.fee_rate", InvalidParameter),
        ({"fee_rate": "-0.1"}, "rules.params.fee_rate", InvalidParameter),
        ({"fee_rate": "NaN"}, "rules.params.fee_rate", InvalidParameter),
        ({"naturals": ["dragon", "dragon"]}, "rules.params.naturals", InvalidParameter),
        ({"naturals": ["unicorn"]}, "rules.params.naturals", InvalidParameter),
        ({"bonus": {"front.pair": 1}}, "rules.params.bonus", InvalidParameter),
        ({"natural_values": {"dragon": -1}}, "rules.params.natural_values", InvalidParameter),
        ({"bonus_paid": "loser"}, "rules.params.bonus_paid", InvalidParameter),
        ({"overall_rule": "most"}, "rules.params.overall_rule", InvalidParameter),
        ({"row_points": [1, 2]}, "rules.params.row_points", InvalidParameter),
        ({"row_points": [1, 0, 2]}, "rules.params.row_points", InvalidParameter),
        ({"row_points": [1, 2, True]}, "rules.params.row_points", InvalidParameter),
        ({"row_points": "1,2,6"}, "rules.params.row_points", InvalidParameter),
        ({"bonus_by_rank": {"front.straight": {"5": 1}}}, "rules.params.bonus_by_rank", InvalidParameter),
        ({"bonus_by_rank": {"front.pair": {"1": 1}}}, "rules.params.bonus_by_rank", InvalidParameter),
        ({"bonus_by_rank": {"middle.straight": {"4": 1}}}, "rules.params.bonus_by_rank", InvalidParameter),
        ({"bonus_by_rank": {"back.royal_flush": {"K": 1}}}, "rules.params.bonus_by_rank", InvalidParameter),
        ({"bonus_by_rank": {"front.pair": {"6": -1}}}, "rules.params.bonus_by_rank", InvalidParameter),
        ({"bonus_by_rank": {"front.pair": 1}}, "rules.params.bonus_by_rank", InvalidParameter),
        ({"six_pairs_counts_trips": "no"}, "rules.params.six_pairs_counts_trips", InvalidParameter),
        ({"front_vs_five": "equal"}, "rules.params.front_vs_five", InvalidParameter),
    ],
)
def test_a_bad_override_is_an_error_naming_it(params, field, cls):
    with pytest.raises(cls) as exc:
        resolve_rules({"preset": "capsa-susun-id", "params": params}, "susun")
    assert exc.value.errors[0].field == field


def test_unknown_presets_and_versions_are_unknown_rules():
    for ref in ("nope", {"preset": "capsa-susun-id", "version": 4}, {"params": {}}, 7):
        with pytest.raises(UnknownRules):
            resolve_rules(ref, "susun")


def test_a_preset_of_the_other_game_is_refused():
    with pytest.raises(UnknownRules, match="other game"):
        resolve_rules("chinese-poker-2-4", "banting")


def test_omitted_rules_default_to_the_game_preset():
    assert resolve_rules(None, "susun").preset == "capsa-susun-id"
    assert resolve_rules(None, "banting").preset == "capsa-banting-id"


def test_rule_sets_are_frozen():
    rules = resolve_rules("capsa-susun-id", "susun")
    with pytest.raises(AttributeError):
        rules.params.wheel = "second"  # type: ignore[misc]
    with pytest.raises(TypeError):
        rules.params.bonus["front.three_of_a_kind"] = 1  # type: ignore[index]


# Every JSON value of the wrong type for each kind of parameter: a bool is no integer, 1.0
# no integer either (the house's integers are JSON integers), and null is never "omitted".
WRONG = {
    bool: [1, 0, "true", None, [], {}],
    int: [True, 1.0, 2.5, "2", None, [], {}, [2]],
    str: [1, True, None, [], {}, ["low"]],
    tuple: [{}, "dragon", 1, True, None],
    Mapping: [[], "x", 1, True, None],
    Decimal: [0.05, 0, True, None, [], {}],
}


def _kind(value: object) -> type:
    return next(k for k in (bool, int, str, tuple, Mapping, Decimal) if isinstance(value, k))


OVERRIDABLE = [
    (preset.rules.preset, preset.rules.version, name, wrong)
    for preset in every_preset()
    for name in preset.rules.param_names
    if getattr(preset.rules.params, name) is not None  # a Big Two version lacks it: refused by name
    for wrong in WRONG[_kind(getattr(preset.rules.params, name))]
]


@pytest.mark.parametrize("preset, version, name, wrong", OVERRIDABLE)
def test_every_parameter_of_every_preset_refuses_each_json_value_of_the_wrong_type(preset, version, name, wrong):
    with pytest.raises(InvalidParameter) as exc:
        resolve_rules({"preset": preset, "version": version, "params": {name: wrong}}, None)
    assert [e.field for e in exc.value.errors] == [f"rules.params.{name}"]
    assert exc.value.errors[0].message.startswith(quoted(wrong))  # as JSON: true, null, {...}


@pytest.mark.parametrize("version", [{}, [], [1], 1.0, 2.0, "1", True, False, None])
def test_a_version_that_is_no_json_integer_is_an_invalid_parameter_naming_rules_version(version):
    with pytest.raises(InvalidParameter) as exc:
        resolve_rules({"preset": "capsa-susun-id", "version": version}, "susun")
    assert [(e.field, e.message) for e in exc.value.errors] == [
        ("rules.version", f"{quoted(version)} is not an integer (omit it for the latest version)")
    ]


def test_an_unknown_version_is_named_at_rules_version_not_under_the_preset():
    with pytest.raises(UnknownRules) as exc:
        resolve_rules({"preset": "capsa-susun-id", "version": 99}, "susun", field="body.rules")
    assert [(e.field, e.message) for e in exc.value.errors] == [
        ("body.rules.version", "unknown version 99 of 'capsa-susun-id'")
    ]


@pytest.mark.parametrize("params", [None, [], [{}], "x", 1, True])
def test_params_that_are_no_object_are_an_invalid_parameter_naming_rules_params(params):
    with pytest.raises(InvalidParameter) as exc:
        resolve_rules({"preset": "capsa-banting-id", "params": params}, "banting")
    assert [(e.field, e.message) for e in exc.value.errors] == [("rules.params", f"{quoted(params)} is not an object")]


@pytest.mark.parametrize("preset", [None, 1, True, [], {}, ["capsa-susun-id"]])
def test_a_preset_that_is_no_string_is_unknown_rules_naming_rules_preset(preset):
    with pytest.raises(UnknownRules) as exc:
        resolve_rules({"preset": preset}, "susun")
    assert [(e.field, e.message) for e in exc.value.errors] == [
        ("rules.preset", f"a preset name is required, not {preset!r}")
    ]


@pytest.mark.parametrize(("rules", "field", "message"), [
    ({"preset": "capsa-susun-id", "version": None}, "rules.version",
     "null is not an integer (omit it for the latest version)"),
    ({"preset": "capsa-susun-id", "version": True}, "rules.version",
     "true is not an integer (omit it for the latest version)"),
    ({"preset": "capsa-susun-id", "params": [1]}, "rules.params", "[1] is not an object"),
    ({"preset": "capsa-susun-id", "params": {"bonus": {"front.three_of_a_kind": True}}}, "rules.params.bonus",
     '{"front.three_of_a_kind": true} '),
    ({"preset": "capsa-susun-id", "params": {"tembus_multiplier": "x" * 200}}, "rules.params.tembus_multiplier",
     '"' + "x" * 98 + "…"),
])
def test_a_refused_value_is_quoted_as_the_json_that_was_sent(rules, field, message):
    """The client sent JSON: its value comes back as JSON (`true`, `null`, double quotes),
    not as Python writes it (`True`, `None`, single quotes), and a long one is cut."""
    with pytest.raises(InvalidParameter) as exc:
        resolve_rules(rules, "susun")
    (error,) = exc.value.errors
    assert error.field == field and error.message.startswith(message), error.message

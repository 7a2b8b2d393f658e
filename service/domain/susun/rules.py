"""Capsa Susun / Chinese Poker rules: every parameter, its checks and the presets."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from decimal import Decimal
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from ..parameters import _COMMON, INT_MAX, FeeBasis, _Bad, _bool, _int, _option, _table

SUSUN = "susun"


class Wheel(StrEnum):
    """Where A-2-3-4-5 ranks among straights: lowest, or second only to A-K-Q-J-T."""

    LOW = "low"
    SECOND = "second"


class Natural(StrEnum):
    DRAGON = "dragon"
    THREE_STRAIGHTS = "three_straights"
    THREE_FLUSHES = "three_flushes"
    SIX_PAIRS = "six_pairs"


class BonusPaid(StrEnum):
    """Who collects row bonuses: the row's winner, both players, or the difference."""

    WINNER = "winner"
    BOTH = "both"
    CANCEL = "cancel"


class OverallRule(StrEnum):
    """Who wins the overall unit: whoever wins two rows, or whoever wins more rows."""

    TWO_ROWS = "two_rows"
    MORE_ROWS = "more_rows"


class FrontVsFive(StrEnum):
    """A three-card front against a five-card row of the same ranks."""

    FIVE_STRONGER = "five_stronger"
    TIE = "tie"


NATURALS = tuple(n.value for n in Natural)
BONUS_KEYS = (
    "front.three_of_a_kind",
    "middle.full_house",
    "middle.four_of_a_kind",
    "middle.straight_flush",
    "middle.royal_flush",
    "back.four_of_a_kind",
    "back.straight_flush",
    "back.royal_flush",
)


@dataclass(frozen=True, slots=True)
class SusunParams:
    """Every parameter of Capsa Susun / Chinese Poker (docs/rules.md#susun-parameters)."""

    wheel: Wheel
    suit_tiebreak: bool
    strict_order: bool
    naturals: tuple[Natural, ...]
    natural_values: Mapping[str, int]
    bonus: Mapping[str, int]
    bonus_paid: BonusPaid
    royalty_flat: bool
    max_one_royalty: bool
    tembus_multiplier: int
    super_multiplier: int
    super_min_players: int
    foul_multiplier: int
    overall_unit: int
    scoop_bonus: int
    surrender_allowed: bool
    surrender_cost: int
    fee_rate: Decimal
    fee_basis: FeeBasis
    # Version 2 of every preset (and every preset added since) has the parameters below too.
    overall_rule: OverallRule
    row_points: tuple[int, int, int]
    bonus_by_rank: Mapping[str, Mapping[str, int]]
    six_pairs_counts_trips: bool
    # Version 3 of the first three presets and version 2 of the others have this one too.
    front_vs_five: FrontVsFive


# The parameter list of version 1 of the first three presets, kept exactly: a stored round
# re-verifies by comparing its `rules.params`, so it must come back with these names only.
V1_PARAMS = tuple(f.name for f in fields(SusunParams))[:19]
# The parameter list of version 2 of the first three presets and version 1 of the others.
V2_PARAMS = tuple(f.name for f in fields(SusunParams))[:23]
FRONT_VS_FIVE = tuple(f.value for f in FrontVsFive)

RANKS = "23456789TJQKA"
_FIVE_CATEGORIES = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)
# The ranks a row's made rank can take, per row and category (`hands.made_rank`): the rank
# of the pair, trips or quads (a full house's three, two pair's higher pair), a straight's
# top card (a wheel's is 5), a flush's or a high card's highest card.
_LOWEST = {
    "pair": "2",
    "two_pair": "3",
    "three_of_a_kind": "2",
    "straight": "5",
    "flush": "7",
    "full_house": "2",
    "four_of_a_kind": "2",
    "straight_flush": "5",
    "royal_flush": "A",
}
BY_RANK_RANKS: dict[str, str] = {
    f"front.{c}": RANKS[RANKS.index("4" if c == "high_card" else _LOWEST[c]) :]
    for c in ("high_card", "pair", "three_of_a_kind")
}
for _row in ("middle", "back"):
    for _c in _FIVE_CATEGORIES:
        _ranks = RANKS[RANKS.index("7" if _c == "high_card" else _LOWEST[_c]) :]
        BY_RANK_RANKS[f"{_row}.{_c}"] = _ranks[:-1] if _c == "straight_flush" else _ranks


def _by_rank(v: Any) -> Mapping[str, Mapping[str, int]]:
    if not isinstance(v, dict):
        raise _Bad("must be an object of row.category to an object of rank to points")
    out: dict[str, Mapping[str, int]] = {}
    for key, table in v.items():
        if key not in BY_RANK_RANKS:
            raise _Bad(f"unknown key {key!r}; a key is a row and a category, e.g. 'front.pair'")
        if not isinstance(table, dict):
            raise _Bad(f"{key!r} must be an object of rank to points")
        ranks = BY_RANK_RANKS[key]
        entry: dict[str, int] = {}
        for rank, points in table.items():
            if rank not in ranks:
                raise _Bad(f"{key!r}: rank {rank!r} is not one of " + ", ".join(ranks))
            if isinstance(points, bool) or not isinstance(points, int) or not 0 <= points <= INT_MAX:
                raise _Bad(f"{key}.{rank}: {points!r} must be an integer between 0 and {INT_MAX}")
            entry[rank] = points
        out[key] = MappingProxyType(entry)
    return MappingProxyType(out)


def _row_points(v: Any) -> tuple[int, int, int]:
    check = _int(1)
    if not isinstance(v, list) or len(v) != 3:
        raise _Bad("must be a list of 3 integers: [front, middle, back]")
    a, b, c = (check(x) for x in v)
    return (a, b, c)


def _naturals(v: Any) -> tuple[Natural, ...]:
    if (
        not isinstance(v, list)
        or any(not isinstance(n, str) or n not in NATURALS for n in v)
        or len(set(v)) != len(v)
    ):
        raise _Bad("must be a list of distinct names among " + ", ".join(NATURALS))
    return tuple(Natural(n) for n in v)


SPEC: dict[str, Callable[[Any], Any]] = {
    "wheel": _option(Wheel),
    "suit_tiebreak": _bool,
    "strict_order": _bool,
    "naturals": _naturals,
    "natural_values": _table(NATURALS),
    "bonus": _table(BONUS_KEYS),
    "bonus_paid": _option(BonusPaid),
    "royalty_flat": _bool,
    "max_one_royalty": _bool,
    "tembus_multiplier": _int(1),
    "super_multiplier": _int(1),
    "super_min_players": _int(0),
    "foul_multiplier": _int(1),
    "overall_unit": _int(0),
    "scoop_bonus": _int(0),
    "surrender_allowed": _bool,
    "surrender_cost": _int(0),
    **_COMMON,
    "overall_rule": _option(OverallRule),
    "row_points": _row_points,
    "bonus_by_rank": _by_rank,
    "six_pairs_counts_trips": _bool,
    "front_vs_five": _option(FrontVsFive),
}


def finish(params: SusunParams, given: set[str], field: str, stored: bool) -> SusunParams:
    """Overrides applied: a `tembus_multiplier` raised alone above the preset's
    `super_multiplier` takes the super multiplier up with it (a super's sweep pays at least
    a plain one's; the western presets' are both 1). A new request only: a stored round is
    re-scored with the values it holds."""
    del field
    if (
        not stored
        and "tembus_multiplier" in given
        and "super_multiplier" not in given
        and params.super_multiplier < params.tembus_multiplier
    ):
        params = replace(params, super_multiplier=params.tembus_multiplier)
    return params


def contradictions(params: SusunParams) -> list[tuple[str, str, str]]:
    """Pairs of parameters that contradict each other: (name, other name, why).

    A new request with any of them is refused; a stored round is re-scored as it was."""
    found = []
    if params.super_multiplier < params.tembus_multiplier:
        found.append(
            (
                "super_multiplier",
                "tembus_multiplier",
                f"a super sweep (x{params.super_multiplier}) would pay less than a plain one "
                f"(x{params.tembus_multiplier})",
            )
        )
    if params.overall_rule == OverallRule.MORE_ROWS and params.overall_unit == 0:
        found.append(
            ("overall_rule", "overall_unit", "'more_rows' decides who earns an overall_unit of 0")
        )
    if not params.six_pairs_counts_trips and Natural.SIX_PAIRS not in params.naturals:
        found.append(
            ("six_pairs_counts_trips", "naturals", "six pairs is not among the naturals")
        )
    return found

# -- presets ---------------------------------------------------------------------------------

_ID_BONUS = {
    "front.three_of_a_kind": 5,
    "middle.full_house": 3,
    "middle.four_of_a_kind": 14,
    "middle.straight_flush": 18,
    "middle.royal_flush": 22,
    "back.four_of_a_kind": 7,
    "back.straight_flush": 9,
    "back.royal_flush": 11,
}
_WESTERN_BONUS = {
    "front.three_of_a_kind": 3,
    "middle.full_house": 2,
    "middle.four_of_a_kind": 8,
    "middle.straight_flush": 10,
    "middle.royal_flush": 10,
    "back.four_of_a_kind": 4,
    "back.straight_flush": 5,
    "back.royal_flush": 5,
}
_WESTERN_NATURALS = {"dragon": 13, "three_straights": 4, "three_flushes": 3, "six_pairs": 3}


def _susun(**overrides: Any) -> SusunParams:
    base: dict[str, Any] = dict(
        wheel="low",
        suit_tiebreak=False,
        strict_order=False,
        naturals=list(NATURALS),
        natural_values=dict(_WESTERN_NATURALS),
        bonus=dict(_WESTERN_BONUS),
        bonus_paid="winner",
        royalty_flat=False,
        max_one_royalty=False,
        tembus_multiplier=1,
        super_multiplier=1,
        super_min_players=4,
        foul_multiplier=1,
        overall_unit=0,
        scoop_bonus=0,
        surrender_allowed=True,
        surrender_cost=3,
        fee_rate="0.03",
        fee_basis="winnings",
        overall_rule="two_rows",
        row_points=[1, 1, 1],
        bonus_by_rank={},
        six_pairs_counts_trips=True,
        front_vs_five="five_stronger",
    )
    base.update(overrides)
    return SusunParams(**{k: SPEC[k](v) for k, v in base.items()})


DEFAULT_PRESET = "capsa-susun-id"

_ID = dict(
    suit_tiebreak=True,
    naturals=["dragon"],
    natural_values={"dragon": 208},
    bonus=dict(_ID_BONUS),
    tembus_multiplier=2,
    super_multiplier=4,
    foul_multiplier=4,
    surrender_allowed=False,
)
_ID_TEXT = (
    "Capsa Susun as played in Indonesian rooms: tembus x2, super x4, PAO 12 + bonuses, "
    "dragon 208, suit tie-breaks, 3% table fee on winnings."
)
_2_4_TEXT = (
    "Chinese Poker, 2-4 method: a unit per row, a unit overall, 4 for a sweep; "
    "standard royalties, four naturals, surrender for 3."
)
_1_6_TEXT = (
    "Chinese Poker, 1-6 method: a unit per row, 6 for a sweep; standard royalties, "
    "four naturals, surrender for 3."
)

# Jaydccq/poker_trainer, src/utils/chinese-poker/scoring/royalty.ts: front pairs 6-6 to A-A
# pay 1 to 9, front trips 2-2-2 to A-A-A 10 to 22; the middle pays trips 2, a straight 4, a
# flush 8, a full house 12, quads 20, a straight flush 30, a royal flush 50; the back pays
# quads 10, a straight flush 15, a royal flush 25.
_ROYALTIES: dict[str, dict[str, int]] = {
    "front.pair": {r: RANKS.index(r) - 3 for r in RANKS[4:]},
    "front.three_of_a_kind": {r: RANKS.index(r) + 10 for r in RANKS},
    **{
        f"middle.{c}": dict.fromkeys(BY_RANK_RANKS[f"middle.{c}"], points)
        for c, points in (
            ("three_of_a_kind", 2),
            ("straight", 4),
            ("flush", 8),
            ("full_house", 12),
            ("four_of_a_kind", 20),
            ("straight_flush", 30),
            ("royal_flush", 50),
        )
    },
    **{
        f"back.{c}": dict.fromkeys(BY_RANK_RANKS[f"back.{c}"], points)
        for c, points in (("four_of_a_kind", 10), ("straight_flush", 15), ("royal_flush", 25))
    },
}
# ylw633/chinesepoker, ChinesePoker.Core/Component/TaiwaneseScoreCalculator.cs: the special
# hand bonuses (a royal flush is one of its straight flushes), paid whatever the rows' result.
_TW_BONUS = {
    "front.three_of_a_kind": 1,
    "middle.four_of_a_kind": 3,
    "middle.straight_flush": 4,
    "middle.royal_flush": 4,
    "back.four_of_a_kind": 2,
    "back.straight_flush": 3,
    "back.royal_flush": 3,
}

# (name, version) -> (parameters, one-line description); `rules.PRESETS` makes them rule sets.
# Version 2 of the first three presets adds the new parameters at the values that keep
# version 1's scores; version 1 keeps its parameter list (`PARAM_NAMES`).
_TW = dict(
    naturals=["dragon"],
    natural_values={"dragon": 36},
    bonus=dict(_TW_BONUS),
    bonus_paid="both",
    scoop_bonus=3,
    surrender_allowed=False,
)
_TW_TEXT = (
    "Taiwanese Chinese Poker: a unit per row, 3 more for a sweep (the strike), small "
    "bonuses paid whatever the rows (trips in front 1, quads 3/2, straight flushes 4/3), "
    "dragon 36."
)
_ROYALTIES_PRESET = dict(
    natural_values={"dragon": 13, "three_straights": 3, "three_flushes": 3, "six_pairs": 3},
    bonus={},
    bonus_by_rank=_ROYALTIES,
    bonus_paid="both",
    scoop_bonus=3,
    surrender_allowed=False,
    six_pairs_counts_trips=False,
)
_ROYALTIES_TEXT = (
    "Chinese Poker with open-face royalties by rank (front 6-6 pays 1 up to A-A-A 22, "
    "middle trips 2 up to a royal flush 50), paid whatever the rows; a unit per row, 3 "
    "more for a sweep; six pairs means six pairs and a single."
)

SHIPPED_PRESETS: dict[tuple[str, int], tuple[SusunParams, str]] = {
    ("capsa-susun-id", 1): (_susun(**_ID), _ID_TEXT),
    ("capsa-susun-id", 2): (_susun(**_ID), _ID_TEXT),
    ("chinese-poker-2-4", 1): (_susun(overall_unit=1), _2_4_TEXT),
    ("chinese-poker-2-4", 2): (_susun(overall_unit=1), _2_4_TEXT),
    ("chinese-poker-1-6", 1): (_susun(scoop_bonus=3), _1_6_TEXT),
    ("chinese-poker-1-6", 2): (_susun(scoop_bonus=3), _1_6_TEXT),
    ("chinese-poker-tw", 1): (_susun(**_TW), _TW_TEXT),
    ("chinese-poker-royalties", 1): (_susun(**_ROYALTIES_PRESET), _ROYALTIES_TEXT),
}
# Version 3 of the first three presets and version 2 of the others: `front_vs_five` named at
# the value that keeps the earlier version's scores (`five_stronger`).
for (_name, _version), (_params, _text) in list(SHIPPED_PRESETS.items()):
    if (_name, _version + 1) not in SHIPPED_PRESETS and _version == max(
        v for n, v in SHIPPED_PRESETS if n == _name
    ):
        SHIPPED_PRESETS[(_name, _version + 1)] = (_params, _text)
_ORDER = list(dict.fromkeys(name for name, _ in SHIPPED_PRESETS))  # as listed: each preset's versions together
SHIPPED_PRESETS = dict(sorted(SHIPPED_PRESETS.items(), key=lambda kv: (_ORDER.index(kv[0][0]), kv[0][1])))
# The parameters a preset version has, where it is not every field of `SusunParams`.
PARAM_NAMES: dict[tuple[str, int], tuple[str, ...]] = {
    **{(name, 1): V1_PARAMS for name in ("capsa-susun-id", "chinese-poker-2-4", "chinese-poker-1-6")},
    **{(name, 2): V2_PARAMS for name in ("capsa-susun-id", "chinese-poker-2-4", "chinese-poker-1-6")},
    **{(name, 1): V2_PARAMS for name in ("chinese-poker-tw", "chinese-poker-royalties")},
}

# Where each parameter's value comes from (GET /v1/rules): the rule book's decisions and
# seeds by default, a peer's file where a preset takes its value from one.
_ROYALTY_TS = "Jaydccq/poker_trainer src/utils/chinese-poker/scoring/royalty.ts"
_SPECIAL_TS = "Jaydccq/poker_trainer src/utils/chinese-poker/special-hands.ts"
_TW_CS = "ylw633/chinesepoker ChinesePoker.Core/Component/TaiwaneseScoreCalculator.cs"
PARAM_SOURCES: dict[str, str] = {
    "wheel": "Decision (docs/rules.md#susun-parameters)",
    "suit_tiebreak": "Decision: Indonesian rooms' suit order",
    "strict_order": "Decision (docs/rules.md#susun-parameters)",
    "naturals": "seed 000 (dragon), seed 004 (all four)",
    "natural_values": "seed 000 (dragon 208); Decision (western values)",
    "bonus": "seed 000 (capsa-susun-id); Decision (western table)",
    "bonus_paid": "seed 004",
    "royalty_flat": "seed 004",
    "max_one_royalty": "seed 004",
    "tembus_multiplier": "seed 000",
    "super_multiplier": "seed 000",
    "super_min_players": "seed 000 (not at 3); Decision (not at 2)",
    "foul_multiplier": "seed 000; Decision (any table size)",
    "overall_unit": "seed 004 (2-4 method)",
    "scoop_bonus": "seed 004 (1-6 method)",
    "surrender_allowed": "seed 004; Decision",
    "surrender_cost": "Decision (a common house rule)",
    "fee_rate": "seed 000; Decision (every preset)",
    "fee_basis": "seed 000",
    "overall_rule": "Decision: two_rows keeps version 1 (paulhankin/cpoker evaluator.go plays more_rows)",
    "row_points": "Decision: [1, 1, 1] keeps version 1 (Jaydccq/poker_trainer weights 2/2/4 and 1/2/6)",
    "bonus_by_rank": "Decision: none keeps version 1",
    "six_pairs_counts_trips": "Decision: trips count as a pair, quads as two",
    "front_vs_five": "Decision: five_stronger keeps the earlier versions (tie: issue 24's western peers)",
}
PRESET_SOURCES: dict[str, dict[str, str]] = {
    "chinese-poker-tw": {
        "naturals": _TW_CS + " (its one special hand, the dragon)",
        "natural_values": _TW_CS + " (DragonBonus 36)",
        "bonus": _TW_CS + " (the special hand bonuses)",
        "bonus_paid": _TW_CS + " (bonuses added whatever the rows)",
        "scoop_bonus": _TW_CS + " (StrikeBonus 3)",
        "surrender_allowed": "Decision: the peer has no surrender",
    },
    "chinese-poker-royalties": {
        "natural_values": _SPECIAL_TS + " (dragon 13, the others 3)",
        "bonus": "Decision: every royalty is in bonus_by_rank",
        "bonus_by_rank": _ROYALTY_TS,
        "bonus_paid": "Decision: open-face royalties are paid whatever the rows",
        "scoop_bonus": "Jaydccq/poker_trainer src/utils/chinese-poker/scoring/basic-scoring.ts (1-1-1 scoop 3)",
        "surrender_allowed": "Decision: the peer has no surrender",
        "six_pairs_counts_trips": _SPECIAL_TS + " (isSixPairs: six pairs and one single)",
    },
}


def param_sources(name: str) -> dict[str, str]:
    """The source of every parameter's value in preset `name`."""
    return PARAM_SOURCES | PRESET_SOURCES.get(name, {})

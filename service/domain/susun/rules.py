"""Capsa Susun / Chinese Poker rules: every parameter, its checks and the presets."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..parameters import _COMMON, _Bad, _bool, _choice, _int, _table

SUSUN = "susun"

NATURALS = ("dragon", "three_straights", "three_flushes", "six_pairs")
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

    wheel: str
    suit_tiebreak: bool
    strict_order: bool
    naturals: tuple[str, ...]
    natural_values: Mapping[str, int]
    bonus: Mapping[str, int]
    bonus_paid: str
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
    fee_basis: str


def _naturals(v: Any) -> tuple[str, ...]:
    if not isinstance(v, list) or any(n not in NATURALS for n in v) or len(set(v)) != len(v):
        raise _Bad("must be a list of distinct names among " + ", ".join(NATURALS))
    return tuple(v)


SPEC: dict[str, Callable[[Any], Any]] = {
    "wheel": _choice("low", "second"),
    "suit_tiebreak": _bool,
    "strict_order": _bool,
    "naturals": _naturals,
    "natural_values": _table(NATURALS),
    "bonus": _table(BONUS_KEYS),
    "bonus_paid": _choice("winner", "both", "cancel"),
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
}

# -- presets, version 1 ----------------------------------------------------------------------

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
    )
    base.update(overrides)
    return SusunParams(**{k: SPEC[k](v) for k, v in base.items()})


DEFAULT_PRESET = "capsa-susun-id"
# (name, version) -> (parameters, one-line description); `rules.PRESETS` makes them rule sets.
SHIPPED_PRESETS: dict[tuple[str, int], tuple[SusunParams, str]] = {
    ("capsa-susun-id", 1): (
        _susun(
            suit_tiebreak=True,
            naturals=["dragon"],
            natural_values={"dragon": 208},
            bonus=dict(_ID_BONUS),
            tembus_multiplier=2,
            super_multiplier=4,
            foul_multiplier=4,
            surrender_allowed=False,
        ),
        "Capsa Susun as played in Indonesian rooms: tembus x2, super x4, PAO 12 + bonuses, "
        "dragon 208, suit tie-breaks, 3% table fee on winnings.",
    ),
    ("chinese-poker-2-4", 1): (
        _susun(overall_unit=1),
        "Chinese Poker, 2-4 method: a unit per row, a unit overall, 4 for a sweep; "
        "standard royalties, four naturals, surrender for 3.",
    ),
    ("chinese-poker-1-6", 1): (
        _susun(scoop_bonus=3),
        "Chinese Poker, 1-6 method: a unit per row, 6 for a sweep; standard royalties, "
        "four naturals, surrender for 3.",
    ),
}

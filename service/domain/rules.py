"""Rule sets: frozen, versioned presets of every parameter (RULES.md 5) and overrides by name."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from decimal import Decimal, InvalidOperation
from types import MappingProxyType
from typing import Any

from .errors import FieldError, InvalidParameter, UnknownRules, raise_collected

SUSUN = "susun"
BANTING = "banting"

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
INT_MAX = 10_000


@dataclass(frozen=True, slots=True)
class SusunParams:
    """Every parameter of Capsa Susun / Chinese Poker (RULES.md 5)."""

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


@dataclass(frozen=True, slots=True)
class BantingParams:
    """Every parameter of Capsa Banting / Big Two (RULES.md 4 and 5)."""

    suit_order: str
    flush_order: str
    straights_with_two: bool
    bomb_ends_game: bool
    double_at: int
    triple_at: int
    fee_rate: Decimal
    fee_basis: str


Params = SusunParams | BantingParams


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A named, versioned preset with every parameter resolved."""

    preset: str
    version: int
    game: str
    params: Params

    def to_json(self) -> dict[str, Any]:
        """`{"preset", "version", "params"}` with every value, JSON-ready."""
        return {
            "preset": self.preset,
            "version": self.version,
            "params": {f.name: _to_json(getattr(self.params, f.name)) for f in fields(self.params)},
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> RuleSet:
        """Load what `to_json` wrote (the preset and version must exist)."""
        return resolve_rules(
            {"preset": doc["preset"], "version": doc["version"], "params": doc["params"]},
            game=None,
        )


def _to_json(value: Any) -> Any:
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


# -- parameter checks: each takes the raw JSON value and returns the typed one or raises ----


class _Bad(Exception):
    pass


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise _Bad("must be true or false")
    return v


def _int(lo: int) -> Callable[[Any], int]:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise _Bad("must be an integer")
        if not lo <= v <= INT_MAX:
            raise _Bad(f"must be between {lo} and {INT_MAX}")
        return int(v)

    return check


def _choice(*options: str) -> Callable[[Any], str]:
    def check(v: Any) -> str:
        if v not in options:
            raise _Bad("must be one of " + ", ".join(repr(o) for o in options))
        return str(v)

    return check


def _naturals(v: Any) -> tuple[str, ...]:
    if not isinstance(v, list) or any(n not in NATURALS for n in v) or len(set(v)) != len(v):
        raise _Bad("must be a list of distinct names among " + ", ".join(NATURALS))
    return tuple(v)


def _table(keys: tuple[str, ...]) -> Callable[[Any], Mapping[str, int]]:
    def check(v: Any) -> Mapping[str, int]:
        if not isinstance(v, dict):
            raise _Bad("must be an object")
        out: dict[str, int] = {}
        for k, n in v.items():
            if k not in keys:
                raise _Bad(f"unknown key {k!r}; known: " + ", ".join(keys))
            out[k] = _int(0)(n)
        return MappingProxyType(out)

    return check


_FEE_RATE = re.compile(r"^(0|[1-9][0-9]*)(\.[0-9]{1,12})?$")


def _fee_rate(v: Any) -> Decimal:
    if not isinstance(v, str) or not _FEE_RATE.match(v):
        raise _Bad('must be a decimal string such as "0.03"')
    try:
        rate = Decimal(v)
    except InvalidOperation as exc:  # pragma: no cover - the pattern already excludes it
        raise _Bad('must be a decimal string such as "0.03"') from exc
    if not 0 <= rate < 1:
        raise _Bad("must be at least 0 and below 1")
    return rate


def _suit_order(v: Any) -> str:
    if not isinstance(v, str) or sorted(v) != sorted("cdhs"):
        raise _Bad('must order the four suits, weakest first, e.g. "dchs"')
    return v


_COMMON: dict[str, Callable[[Any], Any]] = {
    "fee_rate": _fee_rate,
    "fee_basis": _choice("winnings", "result"),
}

SPECS: dict[str, dict[str, Callable[[Any], Any]]] = {
    SUSUN: {
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
    },
    BANTING: {
        "suit_order": _suit_order,
        "flush_order": _choice("suit_first", "rank_first"),
        "straights_with_two": _bool,
        "bomb_ends_game": _bool,
        "double_at": _int(0),
        "triple_at": _int(0),
        **_COMMON,
    },
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
    spec = SPECS[SUSUN]
    return SusunParams(**{k: spec[k](v) for k, v in base.items()})


@dataclass(frozen=True, slots=True)
class Preset:
    """A named, versioned rule set as shipped, with a one-line description."""

    rules: RuleSet
    description: str


PRESETS: dict[tuple[str, int], Preset] = {
    ("capsa-susun-id", 1): Preset(
        RuleSet(
            "capsa-susun-id",
            1,
            SUSUN,
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
        ),
        "Capsa Susun as played in Indonesian rooms: tembus x2, super x4, PAO 12 + bonuses, "
        "dragon 208, suit tie-breaks, 3% table fee on winnings.",
    ),
    ("chinese-poker-2-4", 1): Preset(
        RuleSet("chinese-poker-2-4", 1, SUSUN, _susun(overall_unit=1)),
        "Chinese Poker, 2-4 method: a unit per row, a unit overall, 4 for a sweep; "
        "standard royalties, four naturals, surrender for 3.",
    ),
    ("chinese-poker-1-6", 1): Preset(
        RuleSet("chinese-poker-1-6", 1, SUSUN, _susun(scoop_bonus=3)),
        "Chinese Poker, 1-6 method: a unit per row, 6 for a sweep; standard royalties, "
        "four naturals, surrender for 3.",
    ),
    ("capsa-banting-id", 1): Preset(
        RuleSet(
            "capsa-banting-id",
            1,
            BANTING,
            BantingParams(
                suit_order="dchs",
                flush_order="suit_first",
                straights_with_two=False,
                bomb_ends_game=True,
                double_at=10,
                triple_at=13,
                fee_rate=Decimal("0.03"),
                fee_basis="winnings",
            ),
        ),
        "Capsa Banting (Big Two) as played in Indonesian rooms: 3d leads, bombs end the game, "
        "losers pay per card left (x2 from 10, x3 at 13), 3% table fee on winnings.",
    ),
}
LATEST: dict[str, int] = {}
for _name, _version in PRESETS:
    LATEST[_name] = max(LATEST.get(_name, 0), _version)
DEFAULT_PRESET = {SUSUN: "capsa-susun-id", BANTING: "capsa-banting-id"}


def resolve_rules(ref: Any, game: str | None, field: str = "rules") -> RuleSet:
    """Resolve a rule reference: a preset name, or `{"preset", "params", "version"?}`.

    `None` gives the game's default preset. `game` None accepts a preset of either game.
    Unknown preset or parameter names raise `UnknownRules`; bad values `InvalidParameter`.
    """
    if ref is None:
        ref = DEFAULT_PRESET[game or SUSUN]
    overrides: Mapping[str, Any] = {}
    version: Any = None
    name: Any
    if isinstance(ref, str):
        name = ref
    elif isinstance(ref, Mapping):
        unknown = sorted(set(ref) - {"preset", "params", "version"})
        if unknown:
            raise UnknownRules(f"unknown key {unknown[0]!r}", field=f"{field}.{unknown[0]}")
        name = ref.get("preset")
        if not isinstance(name, str):
            raise UnknownRules("a preset name is required", field=f"{field}.preset")
        version = ref.get("version")
        params = ref.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, Mapping):
            raise InvalidParameter("must be an object", field=f"{field}.params")
        overrides = params
        field = f"{field}.preset"
    else:
        raise UnknownRules("must be a preset name or an object", field=field)
    if name not in LATEST:
        raise UnknownRules(
            f"unknown preset {name!r}; known: " + ", ".join(sorted(LATEST)), field=field
        )
    if version is None:
        version = LATEST[name]
    if isinstance(version, bool) or (name, version) not in PRESETS:
        raise UnknownRules(f"unknown version {version!r} of {name!r}", field=f"{field}.version")
    base = PRESETS[(name, version)].rules
    if game is not None and base.game != game:
        raise UnknownRules(f"{name!r} is a preset of the other game ({base.game})", field=field)
    return _apply(base, overrides, field.removesuffix(".preset") + ".params")


def _apply(base: RuleSet, overrides: Mapping[str, Any], field: str) -> RuleSet:
    spec = SPECS[base.game]
    errors: list[FieldError] = []
    changes: dict[str, Any] = {}
    for name in overrides:
        if name not in spec:
            raise UnknownRules(
                f"unknown parameter {name!r} for {base.preset!r}", field=f"{field}.{name}"
            )
    for name, value in overrides.items():
        try:
            changes[name] = spec[name](value)
        except _Bad as exc:
            errors.append(FieldError(f"{field}.{name}", f"{value!r} {exc}"))
    raise_collected(errors, InvalidParameter)
    if not changes:
        return base
    return replace(base, params=replace(base.params, **changes))


def list_presets() -> list[tuple[RuleSet, str]]:
    """The latest version of every preset with its description, in a stable order."""
    return [(p.rules, p.description) for (n, v), p in PRESETS.items() if LATEST[n] == v]

"""Rule sets: frozen, versioned presets of every parameter (docs/rules.md#rule-sets-presets-and-versions) and overrides by name.

Each game owns its parameters, their checks and its presets (`susun.rules`, `banting.rules`);
this module keeps what both games use: `RuleSet`, the registry of every preset and
`resolve_rules`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from decimal import Decimal
from enum import StrEnum
from typing import Any

from .banting import rules as banting
from .banting.rules import BANTING, BantingParams
from .errors import FieldError, InvalidParameter, UnknownRules, quoted, raise_collected
from .parameters import _Bad
from .susun import rules as susun
from .susun.rules import SUSUN, SusunParams

Params = SusunParams | BantingParams


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A named, versioned preset with every parameter resolved."""

    preset: str
    version: int
    game: str
    params: Params
    # The parameters this version has, when not every field of `params` (a version 1 kept
    # its list when later versions added parameters); the others hold the values that keep
    # this version's behaviour and are neither echoed nor accepted as overrides.
    names: tuple[str, ...] | None = None

    @property
    def param_names(self) -> tuple[str, ...]:
        return self.names if self.names is not None else tuple(f.name for f in fields(self.params))

    def to_json(self) -> dict[str, Any]:
        """`{"preset", "version", "params"}` with every value, JSON-ready (a new dict each
        time; every round echoes its rules, so the values are converted once per rule set)."""
        cached = _SHIPPED_JSON.get(id(self))
        if cached is not None and cached[0] is self:
            copied: dict[str, Any] = _copy(cached[1])
            return copied
        return {
            "preset": self.preset,
            "version": self.version,
            # A Big Two parameter a preset version lacks is None and left out; a Capsa Susun
            # version lists its parameters (`names`).
            "params": {
                name: _to_json(getattr(self.params, name))
                for name in self.param_names
                if self.game != BANTING or getattr(self.params, name) is not None
            },
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> RuleSet:
        """Load what `to_json` wrote (the preset and version must exist). A stored rule set is
        never refused for contradictory values: it is re-scored as it was."""
        return resolve_rules(
            {"preset": doc["preset"], "version": doc["version"], "params": doc["params"]},
            game=None,
            stored=True,
        )


def banting_params(rules: RuleSet) -> BantingParams:
    """A Big Two rule set's parameters (a Capsa Susun rule set is a programming error). Here,
    not in `banting.rules`, which would have to import this module back for `RuleSet`."""
    params = rules.params
    assert isinstance(params, BantingParams)
    return params


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return list(value)
    return value


def _to_json(value: Any) -> Any:
    if isinstance(value, StrEnum):  # a rule option: its plain string
        return value.value
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, tuple):
        return [_to_json(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _to_json(v) for k, v in value.items()}
    return value


GAMES = (SUSUN, BANTING)  # every game scored, as a document's `game` names it
SPECS = {SUSUN: susun.SPEC, BANTING: banting.SPEC}
# Per game, optional: which overrides a preset version takes, and the step after the overrides
# (aliases, contradictions refused for new requests only).
ACCEPTS: dict[str, Callable[[Any, str], bool]] = {BANTING: banting.accepts}
FINISH: dict[str, Callable[[Any, set[str], str, bool], Any]] = {BANTING: banting.finish, SUSUN: susun.finish}
# Per game: (name, other, why) for each pair of parameters that contradict each other.
CONTRADICTIONS: dict[str, Callable[[Any], list[tuple[str, str, str]]]] = {
    SUSUN: susun.contradictions,
}


@dataclass(frozen=True, slots=True)
class Preset:
    """A named, versioned rule set as shipped, with a one-line description."""

    rules: RuleSet
    description: str
    sources: Mapping[str, str]  # where each parameter's value comes from
    source: str | None = None  # where the preset itself comes from, where the game names it


# Per game: its presets, the parameter names of versions that lack some, each preset's
# parameter sources and the preset's own source.
_GAMES: tuple[
    tuple[str, Any, Mapping[tuple[str, int], tuple[str, ...]], Callable[[str], dict[str, str]],
          Callable[[str], str | None]],
    ...,
] = (
    (SUSUN, susun.SHIPPED_PRESETS, susun.PARAM_NAMES, susun.param_sources, lambda name: None),
    (BANTING, banting.SHIPPED_PRESETS, {}, lambda name: dict(banting.PARAMETER_SOURCES),
     banting.PRESET_SOURCES.__getitem__),
)
PRESETS: dict[tuple[str, int], Preset] = {
    (name, version): Preset(
        RuleSet(name, version, game, params, names.get((name, version))), description, sources(name), source(name)
    )
    for game, presets, names, sources, source in _GAMES
    for (name, version), (params, description) in presets.items()
}
# The shipped rule sets live as long as the process: their JSON is made once.
_SHIPPED_JSON: dict[int, tuple[RuleSet, dict[str, Any]]] = {}
for _preset in PRESETS.values():
    _SHIPPED_JSON[id(_preset.rules)] = (_preset.rules, _preset.rules.to_json())
LATEST: dict[str, int] = {}
for _name, _version in PRESETS:
    LATEST[_name] = max(LATEST.get(_name, 0), _version)
DEFAULT_PRESET = {SUSUN: susun.DEFAULT_PRESET, BANTING: banting.DEFAULT_PRESET}


def resolve_rules(ref: Any, game: str | None, field: str = "rules", *, stored: bool = False) -> RuleSet:
    """Resolve a rule reference: a preset name, or `{"preset", "params", "version"?}`.

    `None` gives the game's default preset, a name without a version its latest version.
    `game` None accepts a preset of either game. Unknown preset or parameter names raise
    `UnknownRules`; bad values and, unless `stored` (re-scoring a stored round, which is
    never refused), contradictory parameters `InvalidParameter`.
    """
    if ref is None:
        ref = DEFAULT_PRESET[game or SUSUN]
    overrides: Mapping[str, Any] = {}
    version: Any = None
    where = field
    name: Any
    if isinstance(ref, str):
        name = ref
    elif isinstance(ref, Mapping):
        unknown = sorted(set(ref) - {"preset", "params", "version"})
        if unknown:
            raise UnknownRules(f"unknown key {unknown[0]!r}", field=f"{field}.{unknown[0]}")
        name = ref.get("preset")
        if not isinstance(name, str):
            raise UnknownRules(f"a preset name is required, not {name!r}", field=f"{field}.preset")
        # Each key, when given, has its one JSON type: null is no "omitted" (the reference
        # would silently mean another version), and true, 1.0 or "1" are no version 1.
        version = ref.get("version")
        if "version" in ref and (isinstance(version, bool) or not isinstance(version, int)):
            raise InvalidParameter(
                f"{quoted(version)} is not an integer (omit it for the latest version)", field=f"{field}.version"
            )
        params = ref.get("params", {})
        if not isinstance(params, Mapping):
            raise InvalidParameter(f"{quoted(params)} is not an object", field=f"{field}.params")
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
    if (name, version) not in PRESETS:
        raise UnknownRules(f"unknown version {version!r} of {name!r}", field=f"{where}.version")
    base = PRESETS[(name, version)].rules
    if game is not None and base.game != game:
        raise UnknownRules(f"{name!r} is a preset of the other game ({base.game})", field=field)
    rules = _apply(base, overrides, field.removesuffix(".preset") + ".params", stored)
    check = CONTRADICTIONS.get(rules.game)
    if not stored and check is not None:
        where = field.removesuffix(".preset") + ".params"
        errors = []
        for name, other, why in check(rules.params):
            errors.append(FieldError(f"{where}.{name}", _contradiction(rules, name, other, why)))
            errors.append(FieldError(f"{where}.{other}", _contradiction(rules, other, name, why)))
        raise_collected(errors, InvalidParameter)
    return rules


def _contradiction(rules: RuleSet, name: str, other: str, why: str) -> str:
    value, against = _to_json(getattr(rules.params, name)), _to_json(getattr(rules.params, other))
    return f"{quoted(value)} contradicts {other} {quoted(against)}: {why}"


def _apply(base: RuleSet, overrides: Mapping[str, Any], field: str, stored: bool = False) -> RuleSet:
    if not overrides:  # a preset as shipped, as most requests name it
        return base
    spec = SPECS[base.game]
    accepts = ACCEPTS.get(base.game)
    errors: list[FieldError] = []
    changes: dict[str, Any] = {}
    names = base.param_names
    for name in overrides:
        if name not in spec:
            raise UnknownRules(
                f"unknown parameter {name!r} for {base.preset!r}", field=f"{field}.{name}"
            )
        if accepts is not None and not accepts(base.params, name):
            first = min(
                v for (n, v), p in PRESETS.items() if n == base.preset and accepts(p.rules.params, name)
            )
            raise UnknownRules(
                f"{name!r} is no parameter of {base.preset!r} version {base.version}; "
                f"version {first} has it",
                field=f"{field}.{name}",
            )
        if name not in names:
            later = sorted(v for (n, v), p in PRESETS.items() if n == base.preset and name in p.rules.param_names)
            hint = f"; version {later[0]} has it" if later else ""
            raise UnknownRules(
                f"{name!r} is not a parameter of version {base.version} of {base.preset!r}{hint}",
                field=f"{field}.{name}",
            )
    for name, value in overrides.items():
        try:
            changes[name] = spec[name](value)
        except _Bad as exc:
            errors.append(FieldError(f"{field}.{name}", f"{quoted(value)} {exc}"))
    raise_collected(errors, InvalidParameter)
    if not changes:
        return base
    params = replace(base.params, **changes)
    finish = FINISH.get(base.game)
    if finish is not None:
        params = finish(params, set(changes), field, stored)
    return replace(base, params=params)


def list_presets() -> list[tuple[RuleSet, str]]:
    """The latest version of every preset with its description, in a stable order."""
    return [(p.rules, p.description) for (n, v), p in PRESETS.items() if LATEST[n] == v]


def every_preset() -> list[Preset]:
    """Every version of every preset, as shipped: each game's presets, versions in order."""
    return list(PRESETS.values())

"""Rule sets: frozen, versioned presets of every parameter (docs/rules.md#rule-sets-presets-and-versions) and overrides by name.

Each game owns its parameters, their checks and its presets (`susun.rules`, `banting.rules`);
this module keeps what both games use: `RuleSet`, the registry of every preset and
`resolve_rules`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from decimal import Decimal
from typing import Any

from .banting import rules as banting
from .banting.rules import BANTING, BantingParams
from .errors import FieldError, InvalidParameter, UnknownRules, raise_collected
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
            # A parameter a preset version lacks is None and left out.
            "params": {
                f.name: _to_json(getattr(self.params, f.name))
                for f in fields(self.params)
                if getattr(self.params, f.name) is not None
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


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return list(value)
    return value


def _to_json(value: Any) -> Any:
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


SPECS = {SUSUN: susun.SPEC, BANTING: banting.SPEC}
# Per game, optional: which overrides a preset version takes, and the step after the overrides
# (aliases, contradictions refused for new requests only).
ACCEPTS: dict[str, Callable[[Any, str], bool]] = {BANTING: banting.accepts}
FINISH: dict[str, Callable[[Any, set[str], str, bool], Any]] = {BANTING: banting.finish}


@dataclass(frozen=True, slots=True)
class Preset:
    """A named, versioned rule set as shipped, with a one-line description."""

    rules: RuleSet
    description: str


PRESETS: dict[tuple[str, int], Preset] = {
    (name, version): Preset(RuleSet(name, version, game, params), description)
    for game, presets in ((SUSUN, susun.SHIPPED_PRESETS), (BANTING, banting.SHIPPED_PRESETS))
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
    return _apply(base, overrides, field.removesuffix(".preset") + ".params", stored)


def _apply(base: RuleSet, overrides: Mapping[str, Any], field: str, stored: bool = False) -> RuleSet:
    spec = SPECS[base.game]
    accepts = ACCEPTS.get(base.game)
    errors: list[FieldError] = []
    changes: dict[str, Any] = {}
    for name in overrides:
        if name not in spec:
            raise UnknownRules(
                f"unknown parameter {name!r} for {base.preset!r}", field=f"{field}.{name}"
            )
        if accepts is not None and not accepts(base.params, name):
            raise UnknownRules(
                f"{name!r} is no parameter of {base.preset!r} version {base.version}; "
                f"version {LATEST[base.preset]} has it",
                field=f"{field}.{name}",
            )
    for name, value in overrides.items():
        try:
            changes[name] = spec[name](value)
        except _Bad as exc:
            errors.append(FieldError(f"{field}.{name}", f"{value!r} {exc}"))
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

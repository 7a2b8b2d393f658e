"""Parameter checks both games' rule sets are built from: raw JSON value in, typed value out."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from types import MappingProxyType
from typing import Any, TypeVar

INT_MAX = 10_000

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


Option = TypeVar("Option", bound=StrEnum)


def _option(kind: type[Option]) -> Callable[[Any], Option]:
    """A parameter whose value is one of `kind`'s, read as that member."""
    values = [m.value for m in kind]

    def check(v: Any) -> Option:
        if not isinstance(v, str) or v not in values:
            raise _Bad("must be one of " + ", ".join(repr(o) for o in values))
        return kind(v)

    return check


class FeeBasis(StrEnum):
    """What the house fee is a share of: a player's winnings, or its positive result."""

    WINNINGS = "winnings"
    RESULT = "result"


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


_FEE_RATE = re.compile(r"(0|[1-9][0-9]*)(\.[0-9]{1,12})?")


def _fee_rate(v: Any) -> Decimal:
    if not isinstance(v, str) or not _FEE_RATE.fullmatch(v):
        raise _Bad('must be a decimal string such as "0.03"')
    try:
        rate = Decimal(v)
    except InvalidOperation as exc:  # pragma: no cover - the pattern already excludes it
        raise _Bad('must be a decimal string such as "0.03"') from exc
    if not 0 <= rate < 1:
        raise _Bad("must be at least 0 and below 1")
    return rate


_COMMON: dict[str, Callable[[Any], Any]] = {
    "fee_rate": _fee_rate,
    "fee_basis": _option(FeeBasis),
}

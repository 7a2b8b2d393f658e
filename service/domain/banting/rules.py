"""Capsa Banting / Big Two rules: every parameter, its checks and the presets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..parameters import _COMMON, _Bad, _bool, _choice, _int

BANTING = "banting"


@dataclass(frozen=True, slots=True)
class BantingParams:
    """Every parameter of Capsa Banting / Big Two (docs/rules.md#banting-parameters)."""

    suit_order: str
    flush_order: str
    straights_with_two: bool
    bomb_ends_game: bool
    double_at: int
    triple_at: int
    fee_rate: Decimal
    fee_basis: str


def _suit_order(v: Any) -> str:
    if not isinstance(v, str) or sorted(v) != sorted("cdhs"):
        raise _Bad('must order the four suits, weakest first, e.g. "dchs"')
    return v


SPEC: dict[str, Callable[[Any], Any]] = {
    "suit_order": _suit_order,
    "flush_order": _choice("suit_first", "rank_first"),
    "straights_with_two": _bool,
    "bomb_ends_game": _bool,
    "double_at": _int(0),
    "triple_at": _int(0),
    **_COMMON,
}

# -- presets, version 1 ----------------------------------------------------------------------

DEFAULT_PRESET = "capsa-banting-id"
# (name, version) -> (parameters, one-line description); `rules.PRESETS` makes them rule sets.
SHIPPED_PRESETS: dict[tuple[str, int], tuple[BantingParams, str]] = {
    ("capsa-banting-id", 1): (
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
        "Capsa Banting (Big Two) as played in Indonesian rooms: 3d leads, bombs end the game, "
        "losers pay per card left (x2 from 10, x3 at 13), 3% table fee on winnings.",
    ),
}

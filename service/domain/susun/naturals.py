"""Naturals (special hands, docs/rules.md#naturals): detection, tiers and same-tier comparison."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from ..cards import Card
from .hands import Category, HandValue
from .rules import Natural, SusunParams

# Strongest tier first (docs/rules.md#naturals, docs/rules.md#decisions): dragon; three straights = three flushes; six pairs.
TIER = {"dragon": 3, "three_straights": 2, "three_flushes": 2, "six_pairs": 1}
# Among naturals of equal value and tier a hand holds three straights over three flushes.
_PREFERENCE = {"dragon": 3, "three_straights": 2, "three_flushes": 1, "six_pairs": 0}
_STRAIGHTS = (Category.STRAIGHT, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH)


def _front_is_straight(front: Sequence[Card]) -> bool:
    ranks = sorted(int(c.rank) for c in front)
    if len(set(ranks)) != 3:
        return False
    return ranks[2] - ranks[0] == 2 or ranks == [2, 3, 14]  # A-2-3 counts, K-A-2 does not


def _pair_ranks(cards: Sequence[Card]) -> list[int]:
    """Ranks of the pairs among the cards, highest first: trips count once, quads twice."""
    counts = Counter(int(c.rank) for c in cards)
    return sorted((r for r, n in counts.items() for _ in range(n // 2)), reverse=True)


def six_pairs(cards: Sequence[Card], counts_trips: bool = True) -> bool:
    """Six pairs among the 13 cards: trips count as a pair and quads as two, or with
    `counts_trips` false exactly six pairs and a single (`six_pairs_counts_trips`)."""
    return six_pairs_of_counts(Counter(int(c.rank) for c in cards).values(), counts_trips)


def six_pairs_of_counts(counts: Iterable[int], counts_trips: bool = True) -> bool:
    """`six_pairs` from the 13 cards' count per rank."""
    if counts_trips:
        return sum(n // 2 for n in counts) >= 6
    return sorted(counts) == [1, 2, 2, 2, 2, 2, 2]


def naturals_held(
    rows: Sequence[Sequence[Card]],
    values: Sequence[HandValue],
    among: Sequence[str] = tuple(TIER),
    six_pairs_counts_trips: bool = True,
) -> list[str]:
    """The naturals of `among` (default: every one) that the set rows make."""
    held = []
    if "dragon" in among and len({c.rank for row in rows for c in row}) == 13:
        held.append("dragon")
    if (
        "three_straights" in among
        and _front_is_straight(rows[0])
        and all(v.category in _STRAIGHTS for v in values[1:])
    ):
        held.append("three_straights")
    if "three_flushes" in among and all(len({c.suit for c in row}) == 1 for row in rows):
        held.append("three_flushes")
    if "six_pairs" in among and six_pairs([c for row in rows for c in row], six_pairs_counts_trips):
        held.append("six_pairs")
    return held


def detect_natural(
    rows: Sequence[Sequence[Card]], values: Sequence[HandValue], params: SusunParams
) -> str | None:
    """The natural a hand holds under the rule set: its most valuable one, if any."""
    held = naturals_held(rows, values, params.naturals, params.six_pairs_counts_trips)
    if not held:
        return None
    return max(held, key=lambda n: (params.natural_values.get(n, 0), TIER[n], _PREFERENCE[n]))


def compare_naturals(
    a: str,
    a_rows: Sequence[Sequence[Card]],
    a_values: Sequence[HandValue],
    b: str,
    b_rows: Sequence[Sequence[Card]],
    b_values: Sequence[HandValue],
    params: SusunParams,
) -> int:
    """-1, 0 or 1 as natural `a` loses to, ties or beats natural `b` (docs/rules.md#naturals)."""
    if TIER[a] != TIER[b]:
        return 1 if TIER[a] > TIER[b] else -1
    if a == Natural.DRAGON:
        return 0
    if a == Natural.SIX_PAIRS:
        pa = _pair_ranks([c for row in a_rows for c in row])
        pb = _pair_ranks([c for row in b_rows for c in row])
        return (pa > pb) - (pa < pb)
    for i in (2, 1, 0):  # three straights / flushes: back, then middle, then front
        c = a_values[i].compare(b_values[i], params.suit_tiebreak)
        if c:
            return c
    return 0

"""Hand evaluation for Capsa Susun rows: 5-card categories, 3-card fronts, suit tie-breaks.

`HandValue.key` orders hands of the same or different sizes (docs/rules.md#hand-order): the category,
then the ranks in the order they are compared (made part first, then kickers). A front
and a five-card row with the same category compare the same way; when every compared
rank is equal the longer key (the five-card row) is the stronger, as tuples compare.
Suits are consulted only when the keys are equal, and only under `suit_tiebreak`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from ..cards import Card, Suit
from ..errors import InvalidCard
from .rules import Wheel


class Category(IntEnum):
    """Hand categories, weakest first. A royal flush compares as the top straight flush."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def label(self) -> str:
        return _LABELS[self]

    @property
    def strength(self) -> int:
        """Category strength for comparison: royal flush ranks as a straight flush."""
        return 8 if self is Category.ROYAL_FLUSH else int(self)


_LABELS = {c: c.name.lower() for c in Category}


# Indonesian suit ranking for tie-breaks: diamonds < clubs < hearts < spades.
SUIT_STRENGTH = {Suit.DIAMONDS: 0, Suit.CLUBS: 1, Suit.HEARTS: 2, Suit.SPADES: 3}

# Comparison value of a straight's top card: A-2-3-4-5 is 5 (`low`) or between the
# K-high and the A-high straight (`second`), whose values are 13 and 15.
WHEEL_LOW_TOP = 5
WHEEL_SECOND_TOP = 14
BROADWAY_TOP = 15


@dataclass(frozen=True, slots=True)
class HandValue:
    """The strength of a row. `key` compares; `top` is the most significant card."""

    category: Category
    key: tuple[int, ...]
    top: Card
    size: int

    def compare(self, other: HandValue, suit_tiebreak: bool) -> int:
        """-1, 0 or 1 as this hand is weaker, equal or stronger than `other`."""
        if self.key != other.key:
            return 1 if self.key > other.key else -1
        if not suit_tiebreak or self.size != other.size:
            return 0
        a, b = SUIT_STRENGTH[self.top.suit], SUIT_STRENGTH[other.top.suit]
        return (a > b) - (a < b)


def made_rank(category: Category, key: tuple[int, ...]) -> int:
    """The rank a rank-dependent bonus reads (2-14): the pair's, trips' or quads' (a full
    house's three, two pair's higher pair), a straight's top card (a wheel's is 5 under
    either `wheel`), a flush's or a high card's highest card."""
    rank = key[1]
    if category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH):
        return {WHEEL_SECOND_TOP: 5, BROADWAY_TOP: 14}.get(rank, rank)
    return rank


def _top_of(cards: Sequence[Card], rank: int) -> Card:
    """The highest-suited card of `rank` among `cards`."""
    return max((c for c in cards if c.rank == rank), key=lambda c: SUIT_STRENGTH[c.suit])


def _straight_top(ranks: set[int], wheel: str) -> int | None:
    """The comparison value of a 5-rank straight's top card, or None (never wraps)."""
    if len(ranks) != 5:
        return None
    hi, lo = max(ranks), min(ranks)
    if hi - lo == 4:
        return BROADWAY_TOP if hi == 14 else hi
    if ranks == {14, 2, 3, 4, 5}:
        return WHEEL_LOW_TOP if wheel == Wheel.LOW else WHEEL_SECOND_TOP
    return None


def evaluate_five(cards: Sequence[Card], wheel: str = "low") -> HandValue:
    """Evaluate a 5-card row (the readable reference evaluator)."""
    if len(cards) != 5 or len(set(cards)) != 5:
        raise InvalidCard(f"a five-card row needs 5 distinct cards, got {len(set(cards))}")
    counts = Counter(c.rank for c in cards)
    # ranks ordered by (count, rank) descending: the made part first, then kickers
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = tuple(n for _, n in groups)
    flush = len({c.suit for c in cards}) == 1
    straight = _straight_top(set(counts), wheel)
    if straight is not None:
        top_rank = 5 if straight == WHEEL_LOW_TOP else (14 if straight >= 14 else straight)
        top = next(c for c in cards if c.rank == top_rank)
        if flush:
            cat = Category.ROYAL_FLUSH if straight == BROADWAY_TOP else Category.STRAIGHT_FLUSH
        else:
            cat = Category.STRAIGHT
        return HandValue(cat, (cat.strength, straight), top, 5)
    ranks = tuple(int(r) for r, _ in groups)
    if flush:
        return HandValue(Category.FLUSH, (5, *ranks), _top_of(cards, ranks[0]), 5)
    cat = {
        (4, 1): Category.FOUR_OF_A_KIND,
        (3, 2): Category.FULL_HOUSE,
        (3, 1, 1): Category.THREE_OF_A_KIND,
        (2, 2, 1): Category.TWO_PAIR,
        (2, 1, 1, 1): Category.PAIR,
        (1, 1, 1, 1, 1): Category.HIGH_CARD,
    }[shape]
    return HandValue(cat, (cat.strength, *ranks), _top_of(cards, ranks[0]), 5)


def evaluate_front(cards: Sequence[Card]) -> HandValue:
    """Evaluate a 3-card front: high card, pair or three of a kind only."""
    if len(cards) != 3 or len(set(cards)) != 3:
        raise InvalidCard(f"a front needs 3 distinct cards, got {len(set(cards))}")
    counts = Counter(c.rank for c in cards)
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    cat = {3: Category.THREE_OF_A_KIND, 2: Category.PAIR, 1: Category.HIGH_CARD}[groups[0][1]]
    ranks = tuple(int(r) for r, _ in groups)
    return HandValue(cat, (cat.strength, *ranks), _top_of(cards, ranks[0]), 3)


def evaluate_row(cards: Sequence[Card], wheel: str = "low") -> HandValue:
    """Evaluate a front (3 cards) or a middle/back row (5 cards)."""
    return evaluate_front(cards) if len(cards) == 3 else evaluate_five(cards, wheel)

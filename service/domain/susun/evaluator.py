"""Fast hand evaluation: one integer strength per row from lookup tables built at import.

The readable evaluator in `hands.py` is the oracle; this module gives the same order
(docs/rules.md#hand-order) as plain integers, for the hot paths (showdowns, auto-arrange).

Cards are deck indices 0..51 (`Card.index`: rank major, suits c d h s).

The scale. Every distinct `HandValue.key` of a five-card row (under both `wheel`
settings) and of a three-card front is sorted and numbered from 1: a row's
*strength* is the number of its key (1..`MAX_STRENGTH` = 7,919; 0 is no hand). So strengths of fronts and five-card rows compare
exactly as their keys do (`K-K-Q` front < `K-K-Q-3-2` middle), and an A-2-3-4-5
straight gets a different strength under `wheel="low"` and `wheel="second"`. Equal
strengths mean equal keys, hence rows of the same size, so the Indonesian suit
tie-break needs only the suit of the most significant card: compare
`suited(strength, top_suit)` instead of `strength` when `suit_tiebreak` is on.

Per hand (plain Python, tuples or lists of card indices):

- `strength5(cards, wheel="low") -> int`, `strength3(cards) -> int`,
  `strength(cards, wheel="low") -> int` for either size;
- `top_suit(cards, strength) -> int`: `SUIT_STRENGTH` (d 0 < c 1 < h 2 < s 3) of the
  most significant card; `suited(strength, top_suit) -> int`;
- `category_of(strength) -> Category`, `key_of(strength) -> tuple[int, ...]`;
- `hand_value(cards, wheel="low") -> HandValue`, equal to `hands.evaluate_row`.

The same tables for numpy arrays of hands (auto-arrange, table building) are in
`batch_evaluator.py`: this module does not import numpy, so scoring a round does not
load it.

>>> from service.domain.cards import Card
>>> def ids(text): return [Card.from_str(t).index for t in text.split()]
>>> strength3(ids('Kd Kh Qs')) < strength5(ids('Ks Kc Qd 3h 2c'))
True
>>> category_of(strength5(ids('Ah 2c 3d 4s 5h'), 'second')).label
'straight'
>>> strength5(ids('Ah 2c 3d 4s 5h'), 'low') < strength5(ids('2h 3c 4d 5s 6h'))
True
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from itertools import combinations_with_replacement

from ..cards import DECK, Card
from ..errors import InvalidCard, InvalidParameter
from .hands import SUIT_STRENGTH, Category, HandValue
from .rules import Wheel

WHEELS = tuple(w.value for w in Wheel)  # the tables are keyed by the plain values
_WHEEL = (2, 3, 4, 5, 14)  # the ranks of A-2-3-4-5, as the multisets list them

# Weights of the ranks 2..A whose sums are distinct for every multiset of 5 ranks (and
# of 3), each rank at most 4 times: a greedy search over the 6,175 five-rank and 455
# three-rank multisets (RULES: one deck). The sum indexes a flat table, no sorting.
_RANK_WEIGHTS = (0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415)
_KEY_BITS = 19  # 4 * 79415 + 43258 < 2**19
_KEY_MASK = (1 << _KEY_BITS) - 1
_TABLE5_SIZE = 4 * _RANK_WEIGHTS[12] + _RANK_WEIGHTS[11] + 1
_TABLE3_SIZE = 3 * _RANK_WEIGHTS[12] + 1
# Suit counts as a base-6 number above the rank key: a flush has one digit 5.
_SUIT_DIGIT = (1, 6, 36, 216)
_FLUSH_SUIT_SUMS = frozenset(5 * d for d in _SUIT_DIGIT)

# Deck index -> suit strength (deck suits are c d h s; strengths d < c < h < s).
_SUIT_OF_DECK_SUIT = tuple(SUIT_STRENGTH[DECK[i].suit] for i in range(4))

# --- the readable rules, on ranks only, used to build the tables ---------------------

_SHAPE_CATEGORY = {
    (4, 1): Category.FOUR_OF_A_KIND,
    (3, 2): Category.FULL_HOUSE,
    (3, 1, 1): Category.THREE_OF_A_KIND,
    (2, 2, 1): Category.TWO_PAIR,
    (2, 1, 1, 1): Category.PAIR,
    (1, 1, 1, 1, 1): Category.HIGH_CARD,
    (3,): Category.THREE_OF_A_KIND,
    (2, 1): Category.PAIR,
    (1, 1, 1): Category.HIGH_CARD,
}


def _rank_key(ranks: Sequence[int], flush: bool, wheel: str) -> tuple[int, ...]:
    """`HandValue.key` of ranks 2..14 (docs/rules.md#hand-order); fronts never make straights or flushes."""
    counts = {r: ranks.count(r) for r in ranks}  # (a Counter: twice the import time)
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    if len(order) == 5:
        top = None
        if order[0] - order[4] == 4:
            top = 15 if order[0] == 14 else order[0]
        elif order == [14, 5, 4, 3, 2]:
            top = 5 if wheel == Wheel.LOW else 14
        if top is not None:
            return (8 if flush else 4, top)
        if flush:
            return (5, *order)
    return (_SHAPE_CATEGORY[tuple(counts[r] for r in order)].strength, *order)


def _rank_multisets(size: int) -> Iterator[tuple[int, ...]]:
    for ranks in combinations_with_replacement(range(2, 15), size):
        if max(map(ranks.count, ranks)) <= 4:
            yield ranks


def _weight(ranks: Sequence[int]) -> int:
    return sum(_RANK_WEIGHTS[r - 2] for r in ranks)


def _build() -> tuple[dict[str, list[int]], dict[str, list[int]], list[int], list[tuple[int, ...]]]:
    """Number every key, and map each rank sum to its strength (0: no such hand)."""
    fives = list(_rank_multisets(5))
    fronts = list(_rank_multisets(3))
    distinct = [r for r in fives if len(set(r)) == 5]
    keys: dict[tuple[tuple[int, ...], bool, str], tuple[int, ...]] = {}
    # Every row is keyed under each wheel; the setting changes only A-2-3-4-5's key, so the
    # other rows reuse their first key (half the work of the import, which `capsa` waits for).
    for ranks, is_flush in [(r, False) for r in fives] + [(r, True) for r in distinct]:
        first = keys[ranks, is_flush, WHEELS[0]] = _rank_key(ranks, is_flush, WHEELS[0])
        for wheel in WHEELS[1:]:
            keys[ranks, is_flush, wheel] = _rank_key(ranks, is_flush, wheel) if ranks == _WHEEL else first
    for ranks in fronts:
        keys[ranks, False, "front"] = _rank_key(ranks, False, "front")
    scale = [()] + sorted(set(keys.values()))
    number = {key: i for i, key in enumerate(scale)}

    plain: dict[str, list[int]] = {w: [0] * _TABLE5_SIZE for w in WHEELS}
    flush: dict[str, list[int]] = {w: [0] * _TABLE5_SIZE for w in WHEELS}
    front = [0] * _TABLE3_SIZE
    for (ranks, is_flush, wheel), key in keys.items():
        table = front if wheel == "front" else (flush if is_flush else plain)[wheel]
        slot = _weight(ranks)
        if table[slot]:
            raise AssertionError(f"rank weights collide on {ranks!r}")
        table[slot] = number[key]
    return plain, flush, front, scale


_PLAIN5, _FLUSH5, _FRONT3, _SCALE = _build()
MAX_STRENGTH = len(_SCALE) - 1

_CATEGORIES = tuple(Category)
_CATEGORY_OF: tuple[Category, ...] = (Category.HIGH_CARD,) + tuple(
    Category.ROYAL_FLUSH if key == (8, 15) else _CATEGORIES[key[0]] for key in _SCALE[1:]
)
# The rank of the most significant card: the made part's or highest rank, the top card
# of a straight (15 is the ace of T-J-Q-K-A, 14 the ace of a `second` wheel).
_TOP_RANK: tuple[int, ...] = (0,) + tuple(min(key[1], 14) for key in _SCALE[1:])

# Per deck index: the rank weight (fronts), and rank weight plus suit digit (fives).
_W = tuple(_RANK_WEIGHTS[i >> 2] for i in range(52))
_WS = tuple(_RANK_WEIGHTS[i >> 2] + (_SUIT_DIGIT[i & 3] << _KEY_BITS) for i in range(52))

# --- per hand ------------------------------------------------------------------------


def _check_wheel(wheel: str) -> None:
    if wheel not in _PLAIN5:
        raise InvalidParameter(f"unknown wheel {wheel!r}, expected one of {WHEELS!r}")


def strength5(
    cards: Sequence[int],
    wheel: str = "low",
    _w: tuple[int, ...] = _W,
    _plain: dict[str, list[int]] = _PLAIN5,
    _flush: dict[str, list[int]] = _FLUSH5,
) -> int:
    """Strength of five distinct cards given as deck indices (not checked)."""
    a, b, c, d, e = cards
    try:
        if a & 3 == b & 3 == c & 3 == d & 3 == e & 3:
            return _flush[wheel][_w[a] + _w[b] + _w[c] + _w[d] + _w[e]]
        return _plain[wheel][_w[a] + _w[b] + _w[c] + _w[d] + _w[e]]
    except KeyError:
        _check_wheel(wheel)
        raise


def strength3(cards: Sequence[int], _w: tuple[int, ...] = _W, _t: list[int] = _FRONT3) -> int:
    """Strength of a three-card front given as deck indices (not checked)."""
    a, b, c = cards
    return _t[_w[a] + _w[b] + _w[c]]


def strength(cards: Sequence[int], wheel: str = "low") -> int:
    """Strength of a front (3 cards) or a five-card row, as deck indices (not checked)."""
    return strength3(cards) if len(cards) == 3 else strength5(cards, wheel)


def category_of(strength: int) -> Category:
    """The category of a strength (a front's category is high card, pair or trips)."""
    return _CATEGORY_OF[strength]


def key_of(strength: int) -> tuple[int, ...]:
    """The `HandValue.key` numbered `strength`."""
    return _SCALE[strength]


def top_suit(cards: Sequence[int], strength: int) -> int:
    """`SUIT_STRENGTH` of the most significant card of `cards` (docs/rules.md#hand-order)."""
    rank = _TOP_RANK[strength] - 2
    return max(_SUIT_OF_DECK_SUIT[c & 3] for c in cards if c >> 2 == rank)


def suited(strength: int, top_suit: int) -> int:
    """A value that orders rows under `suit_tiebreak` (equal strengths have equal sizes)."""
    return strength * 4 + top_suit


def row_value(cards: Sequence[Card], wheel: str = "low") -> HandValue:
    """The `HandValue` of a row of distinct cards (checked by the caller), by table look-up:
    what `hands.evaluate_row` gives, a few times faster (scoring evaluates 12 rows a round)."""
    if len(cards) == 3:
        a, b, c = cards
        s = _FRONT3[_W[a.index] + _W[b.index] + _W[c.index]]
    else:
        s = strength5([card.index for card in cards], wheel)
    rank = _TOP_RANK[s] - 2
    top = None
    best = -1
    for card in cards:
        if card.index >> 2 == rank and _SUIT_OF_DECK_SUIT[card.index & 3] > best:
            top, best = card, _SUIT_OF_DECK_SUIT[card.index & 3]
    assert top is not None
    return HandValue(_CATEGORY_OF[s], _SCALE[s], top, len(cards))


def hand_value(cards: Sequence[int], wheel: str = "low") -> HandValue:
    """The `HandValue` of a row of deck indices, as `hands.evaluate_row` gives it."""
    cards = [operator.index(c) for c in cards]  # numpy integers too
    if len(cards) not in (3, 5) or len(set(cards)) != len(cards):
        raise InvalidCard(f"a row needs 3 or 5 distinct cards, got {cards!r}")
    if not all(0 <= c < 52 for c in cards):
        raise InvalidCard(f"card indices must be 0..51, got {cards!r}")
    s = strength(cards, wheel)
    rank = _TOP_RANK[s] - 2
    top = max((c for c in cards if c >> 2 == rank), key=lambda c: _SUIT_OF_DECK_SUIT[c & 3])
    return HandValue(_CATEGORY_OF[s], _SCALE[s], DECK[top], len(cards))

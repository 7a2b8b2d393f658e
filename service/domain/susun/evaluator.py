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

Batch (numpy, int arrays of card indices, one hand per row; cards must be distinct):

- `evaluate_batch5(hands, wheel="low")` for an (N, 5) array, `evaluate_batch3(hands)`
  for (N, 3): int32 strengths;
- `top_suits_batch(hands, strengths)`: int32 suit strengths of the most significant cards;
- `CATEGORY_BY_STRENGTH[strengths]`: the categories (`Category` values) as an array;
- `combinations(n, k)`: every k-subset of range(n) as a (C(n, k), k) array, in
  lexicographic order (the 1,287 fives and 286 fronts of 13 cards).

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
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache
from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

from ..cards import DECK, Card
from ..errors import InvalidCard, InvalidParameter
from .hands import SUIT_STRENGTH, Category, HandValue

WHEELS = ("low", "second")

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
    counts = Counter(ranks)
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    if len(order) == 5:
        top = None
        if order[0] - order[4] == 4:
            top = 15 if order[0] == 14 else order[0]
        elif order == [14, 5, 4, 3, 2]:
            top = 5 if wheel == "low" else 14
        if top is not None:
            return (8 if flush else 4, top)
        if flush:
            return (5, *order)
    return (_SHAPE_CATEGORY[tuple(counts[r] for r in order)].strength, *order)


def _rank_multisets(size: int) -> Iterator[tuple[int, ...]]:
    for ranks in combinations_with_replacement(range(2, 15), size):
        if max(Counter(ranks).values()) <= 4:
            yield ranks


def _weight(ranks: Sequence[int]) -> int:
    return sum(_RANK_WEIGHTS[r - 2] for r in ranks)


def _build() -> tuple[dict[str, list[int]], dict[str, list[int]], list[int], list[tuple[int, ...]]]:
    """Number every key, and map each rank sum to its strength (0: no such hand)."""
    fives = list(_rank_multisets(5))
    fronts = list(_rank_multisets(3))
    distinct = [r for r in fives if len(set(r)) == 5]
    keys: dict[tuple[tuple[int, ...], bool, str], tuple[int, ...]] = {}
    for wheel in WHEELS:
        for ranks in fives:
            keys[ranks, False, wheel] = _rank_key(ranks, False, wheel)
        for ranks in distinct:
            keys[ranks, True, wheel] = _rank_key(ranks, True, wheel)
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


# --- batch ---------------------------------------------------------------------------

IntArray = npt.NDArray[np.int32]

CATEGORY_BY_STRENGTH: npt.NDArray[np.int8] = np.array([int(c) for c in _CATEGORY_OF], dtype=np.int8)
_TOP_RANK_ARRAY = np.array([r - 2 for r in _TOP_RANK], dtype=np.int32)
_SUIT_OF_CARD = np.array([_SUIT_OF_DECK_SUIT[i & 3] for i in range(52)], dtype=np.int32)
_RANK_OF_CARD = np.arange(52, dtype=np.int32) >> 2
_W_ARRAY = np.array(_W, dtype=np.int32)
_WS_ARRAY = np.array(_WS, dtype=np.int32)
# Suit-digit sum -> offset of the flush half of the five-card table.
_FLUSH_OFFSET = np.zeros(5 * _SUIT_DIGIT[-1] + 1, dtype=np.int32)
_FLUSH_OFFSET[sorted(_FLUSH_SUIT_SUMS)] = _TABLE5_SIZE
_TABLE5_ARRAY = {w: np.array(_PLAIN5[w] + _FLUSH5[w], dtype=np.int32) for w in WHEELS}
_TABLE3_ARRAY = np.array(_FRONT3, dtype=np.int32)


def _as_hands(hands: npt.ArrayLike, size: int) -> npt.NDArray[np.intp]:
    array = np.asarray(hands, dtype=np.intp)
    if array.ndim != 2 or array.shape[1] != size:
        raise InvalidCard(f"expected an (N, {size}) array of card indices, got {array.shape}")
    return array


def evaluate_batch5(hands: npt.ArrayLike, wheel: str = "low") -> IntArray:
    """Strengths of an (N, 5) array of deck indices (distinct in each row, not checked)."""
    _check_wheel(wheel)
    cols = _WS_ARRAY[_as_hands(hands, 5).T]
    total = cols[0] + cols[1]
    total += cols[2]
    total += cols[3]
    total += cols[4]
    index = total & _KEY_MASK
    index += _FLUSH_OFFSET[total >> _KEY_BITS]
    result: IntArray = _TABLE5_ARRAY[wheel][index]
    return result


def evaluate_batch3(hands: npt.ArrayLike) -> IntArray:
    """Strengths of an (N, 3) array of fronts as deck indices (not checked)."""
    cols = _W_ARRAY[_as_hands(hands, 3).T]
    total = cols[0] + cols[1]
    total += cols[2]
    result: IntArray = _TABLE3_ARRAY[total]
    return result


def top_suits_batch(hands: npt.ArrayLike, strengths: npt.ArrayLike) -> IntArray:
    """`SUIT_STRENGTH` of the most significant card of each row (3 or 5 cards)."""
    array = np.asarray(hands, dtype=np.intp)
    rank = _TOP_RANK_ARRAY[np.asarray(strengths, dtype=np.intp)][:, None]
    suits = np.where(_RANK_OF_CARD[array] == rank, _SUIT_OF_CARD[array], -1)
    result: IntArray = suits.max(axis=1).astype(np.int32)
    return result


@cache
def combinations(n: int, k: int) -> npt.NDArray[np.intp]:
    """Every k-subset of range(n), one per row, lexicographic (read-only)."""
    if k == 0:
        array = np.zeros((1, 0), dtype=np.intp)
    else:
        # grow column by column: each row is followed by every larger element
        array = np.arange(n - k + 1, dtype=np.intp)[:, None]
        for j in range(1, k):
            last = array[:, -1]
            limit = n - k + j  # the largest value column j may take
            repeats = limit - last
            rows = np.repeat(array, repeats, axis=0)
            starts = np.repeat(last + 1 - np.cumsum(repeats) + repeats, repeats)
            new = np.arange(len(rows), dtype=np.intp) + starts
            array = np.column_stack([rows, new])
    array.flags.writeable = False
    return array

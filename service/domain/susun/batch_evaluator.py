"""The fast evaluator's tables for numpy arrays of hands: auto-arrange and the table builder
evaluate thousands of rows at once.

`evaluator.py` builds the tables and evaluates one hand at a time without numpy (scoring a
round, `capsa score`, never loads numpy); this module is its batch half, on the same scale:

- `evaluate_batch5(hands, wheel="low")` for an (N, 5) array, `evaluate_batch3(hands)`
  for (N, 3): int32 strengths (cards must be distinct in each row, not checked);
- `top_suits_batch(hands, strengths)`: int32 suit strengths of the most significant cards;
- `CATEGORY_BY_STRENGTH[strengths]`: the categories (`Category` values) as an array;
- `combinations(n, k)`: every k-subset of range(n) as a (C(n, k), k) array, in
  lexicographic order (the 1,287 fives and 286 fronts of 13 cards).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from ..errors import InvalidCard

# The evaluator's own tables (this module is its other half, not a user of its API).
from .evaluator import (
    _CATEGORY_OF,
    _FLUSH5,
    _FLUSH_SUIT_SUMS,
    _FRONT3,
    _KEY_BITS,
    _KEY_MASK,
    _PLAIN5,
    _SUIT_DIGIT,
    _SUIT_OF_DECK_SUIT,
    _TABLE5_SIZE,
    _TOP_RANK,
    _W,
    _WS,
    WHEELS,
    _check_wheel,
)

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

"""The reference field's arranger: the strongest five at the back, the next five in the middle.

Every opponent of the objective's field sets a random hand this way (`baseline_batch`, in
bulk for `tools/build_tables.py`); the search shares its index arrays over a sorted hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from ...cards import DECK, Card
from ...errors import InvalidCard
from ..arrangement import Arrangement
from ..batch_evaluator import combinations, evaluate_batch5, top_suits_batch
from ..rules import SusunParams

Ints = npt.NDArray[np.intp]


# --- the static shape of a 13-card hand ---------------------------------------------------


@dataclass(frozen=True)
class _Shape:
    """Index arrays over positions 0..12 of a sorted hand, shared by every hand."""

    fives: Ints  # (1287, 5) positions of each five
    fronts: Ints  # (286, 3)
    split_front: Ints  # (36036,) front of each (front, unordered split of the other ten)
    split_a: Ints  # (36036,) one five (holds the lowest remaining position)
    split_b: Ints  # (36036,) the other five
    rest8: Ints  # (1287, 8) positions not in each five
    fives_of_8: Ints  # (56, 5) positions (into rest8) of each five of eight
    front_of_8: Ints  # (56, 3) the other three


@cache
def _shape() -> _Shape:
    fives = combinations(13, 5)
    fronts = combinations(13, 3)
    bit = 1 << np.arange(13, dtype=np.intp)
    index5 = np.full(1 << 13, -1, dtype=np.intp)
    index5[(bit[fives]).sum(axis=1)] = np.arange(len(fives))
    full = (1 << 13) - 1
    rest10 = np.array(
        [[p for p in range(13) if p not in set(f)] for f in fronts.tolist()], dtype=np.intp
    )
    picks = combinations(9, 4) + 1  # the five holding rest10[0]: it and 4 of the other 9
    mask_a = bit[rest10[:, 0]][:, None] + bit[rest10[:, picks]].sum(axis=2)  # (286, 126)
    mask_rest = full - bit[fronts].sum(axis=1)
    mask_b = mask_rest[:, None] - mask_a
    split_front = np.repeat(np.arange(len(fronts), dtype=np.intp), picks.shape[0])
    rest8 = np.array(
        [[p for p in range(13) if p not in set(f)] for f in fives.tolist()], dtype=np.intp
    )
    fives_of_8 = combinations(8, 5)
    front_of_8 = np.array(
        [[p for p in range(8) if p not in set(f)] for f in fives_of_8.tolist()], dtype=np.intp
    )
    shape = _Shape(
        fives,
        fronts,
        split_front,
        index5[mask_a.ravel()],
        index5[mask_b.ravel()],
        rest8,
        fives_of_8,
        front_of_8,
    )
    for array in vars(shape).values():
        array.flags.writeable = False
    return shape


def _sorted_indices(hand: Sequence[Card]) -> Ints:
    if len(hand) != 13 or len(set(hand)) != 13:
        raise InvalidCard(f"a hand has 13 distinct cards, got {len(set(hand))} of {len(hand)}")
    return np.array(sorted(c.index for c in hand), dtype=np.intp)


# --- the baseline arranger ----------------------------------------------------------------


def _strongest(
    hands: Ints, wheel: str, suited: bool, strengths: npt.NDArray[np.int32] | None = None
) -> Ints:
    """Per row of an (N, k) array of hands, the number of its strongest five (first of equals)."""
    n, k = hands.shape
    fives = combinations(k, 5)
    rows = hands[:, fives]  # (N, C(k, 5), 5)
    s = strengths
    if s is None:
        s = evaluate_batch5(rows.reshape(-1, 5), wheel).reshape(n, len(fives))
    best = s.argmax(axis=1)
    if suited:  # equal strengths: the higher top suit wins (only those hands need suits)
        top = s.max(axis=1)
        tied = np.flatnonzero((s == top[:, None]).sum(axis=1) > 1)
        if len(tied):
            sub = rows[tied].reshape(-1, 5)
            keys = s[tied].astype(np.intp) * 4 + top_suits_batch(sub, s[tied].ravel()).reshape(
                len(tied), -1
            )
            best[tied] = keys.argmax(axis=1)
    result: Ints = best.astype(np.intp)
    return result


def baseline_batch(
    hands: npt.ArrayLike,
    wheel: str = "low",
    suited: bool = False,
    strengths: npt.NDArray[np.int32] | None = None,
) -> Ints:
    """The baseline setting of each row of an (N, 13) array of deck indices.

    Returns (N, 13) deck indices: front (3), middle (5), back (5). The back is the strongest
    five of the thirteen, the middle the strongest five of the other eight (the first of
    equally strong fives in lexicographic order of positions, or the higher top suit when
    `suited`), the front the rest. It never fouls, except under `strict_order` when the
    middle ties the back. `strengths`: those of the (N, 1287) fives of the sorted hands, if
    already known.
    """
    shape = _shape()
    array = np.sort(np.asarray(hands, dtype=np.intp), axis=1)
    back_pos = _strongest(array, wheel, suited, strengths)
    rest = np.take_along_axis(array, shape.rest8[back_pos], axis=1)  # (N, 8)
    mid_pos = _strongest(rest, wheel, suited)
    middle = np.take_along_axis(rest, shape.fives_of_8[mid_pos], axis=1)
    front = np.take_along_axis(rest, shape.front_of_8[mid_pos], axis=1)
    back = np.take_along_axis(array, shape.fives[back_pos], axis=1)
    result: Ints = np.concatenate([front, middle, back], axis=1)
    return result


def _row(indices: Sequence[int]) -> tuple[Card, ...]:
    return tuple(DECK[i] for i in sorted(indices, reverse=True))


def baseline_arrangement(hand: Sequence[Card], params: SusunParams) -> Arrangement:
    """The reference field's setting: strongest five at the back, next five in the middle."""
    rows = baseline_batch(_sorted_indices(hand)[None, :], params.wheel, params.suit_tiebreak)[0]
    return Arrangement(_row(rows[:3].tolist()), _row(rows[3:8].tolist()), _row(rows[8:].tolist()))

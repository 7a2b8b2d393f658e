"""Shown attempt ids: a keyed permutation of [0, 2^52), its inverse, and nothing else."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.webhooks import ATTEMPT_ID_BITS, AttemptIds

IDS = AttemptIds(bytes(range(32)))
ID = st.integers(min_value=0, max_value=2**ATTEMPT_ID_BITS - 1)


@given(ID)
def test_a_shown_id_turns_back_into_its_stored_one_and_stays_in_52_bits(stored):
    shown = IDS.shown(stored)
    assert 0 <= shown < 2**52 and IDS.stored(shown) == stored and IDS.shown(IDS.stored(stored)) == stored


def test_consecutive_ids_are_shown_apart_and_another_key_shows_others():
    shown = [IDS.shown(n) for n in range(1, 1001)]
    assert len(set(shown)) == 1000
    gaps = {b - a for a, b in zip(shown, shown[1:], strict=False)}
    assert len(gaps) == 999 and not gaps & {1, -1}
    assert [AttemptIds(b"another key").shown(n) for n in range(1, 11)] != shown[:10]


@pytest.mark.parametrize("outside", [-1, 2**52, 2**62])
def test_an_id_outside_52_bits_is_refused_both_ways(outside):
    with pytest.raises(ValueError):
        IDS.shown(outside)
    with pytest.raises(ValueError):
        IDS.stored(outside)

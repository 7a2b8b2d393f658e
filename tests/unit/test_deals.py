"""Provably fair deals: the test vector of docs/rules.md#provably-fair-deals, recomputation, rejection sampling, no position bias."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator

import pytest

from service.domain import deals
from service.domain.cards import DECK, Card
from service.domain.deals import commitment, deal, shuffle
from service.domain.errors import InvalidRound

VECTOR_SEED = bytes(range(32))


def test_the_api_test_vector_reproduces() -> None:
    assert commitment(VECTOR_SEED) == ("630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd")
    hands = deal(VECTOR_SEED, "table-7", 0, 4)
    assert " ".join(map(str, hands[0])) == "7c Qc 5c 7h 9c As 5h 7d 3d 2d Kh Tc 2s"
    assert " ".join(map(str, hands[3])) == "3h Qh 4s 5d 8d 9h 3s 6c Jc 7s 3c Ah 2h"


def test_recomputing_a_revealed_deal_gives_the_same_hands() -> None:
    seed = bytes.fromhex("9f" * 32)
    assert deal(seed, "any ✓ seed", 7, 3) == deal(seed, "any ✓ seed", 7, 3)


@pytest.mark.parametrize(("client_seed", "nonce"), [("table-7", 1), ("table-8", 0), ("table-7:0", 0)])
def test_another_nonce_or_client_seed_gives_another_deal(client_seed: str, nonce: int) -> None:
    assert deal(VECTOR_SEED, client_seed, nonce, 4) != deal(VECTOR_SEED, "table-7", 0, 4)


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_players_get_thirteen_distinct_cards_from_consecutive_positions(n_players: int) -> None:
    hands = deal(VECTOR_SEED, "table-7", 0, n_players)
    deck = shuffle(VECTOR_SEED, "table-7", 0)
    assert hands == [deck[13 * k : 13 * k + 13] for k in range(n_players)]
    assert sorted(deck, key=lambda c: c.index) == list(DECK)


@pytest.mark.parametrize("n_players", [1, 5])
def test_a_deal_is_for_two_to_four_players(n_players: int) -> None:
    with pytest.raises(InvalidRound):
        deal(VECTOR_SEED, "table-7", 0, n_players)


def test_a_word_at_or_above_the_limit_is_rejected_not_reduced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # For n = 52 the limit is floor(2^32 / 52) * 52; 2^32 - 1 is above it.
    def words(*_: object) -> Iterator[int]:
        yield 2**32 - 1
        while True:
            yield 0

    monkeypatch.setattr(deals, "_words", words)
    deck = shuffle(VECTOR_SEED, "x", 0)
    # Position 51 took j = 0 (the second word), not (2^32 - 1) mod 52 = 35.
    assert deck[51] == DECK[0]


# -- position bias --------------------------------------------------------------------------

Z_999 = 3.090232306167813  # standard normal quantile for p = 0.001


def chi_square_critical(df: int, z: float = Z_999) -> float:
    """Wilson-Hilferty approximation of the chi-square quantile (accurate for large df)."""
    h = 2 / (9 * df)
    return df * (1 - h + z * math.sqrt(h)) ** 3


def position_chi_square(shuffles: int, shuffler: Callable[[int], list[Card]]) -> float:
    """Chi-square of card-by-position counts against the uniform expectation."""
    counts = [[0] * 52 for _ in range(52)]
    for i in range(shuffles):
        for position, card in enumerate(shuffler(i)):
            counts[position][card.index] += 1
    expected = shuffles / 52
    return sum((o - expected) ** 2 / expected for row in counts for o in row)


SHUFFLES = 20_000
DF = 51 * 51  # a 52 x 52 table whose rows and columns each sum to a known total


def test_the_critical_value_approximation_matches_a_known_table_value() -> None:
    # chi-square quantile at p = 0.001 for 100 degrees of freedom is 149.449
    assert chi_square_critical(100) == pytest.approx(149.449, abs=0.1)


def test_twenty_thousand_seeded_deals_show_no_position_bias() -> None:
    seed = bytes.fromhex("5a" * 32)
    stat = position_chi_square(SHUFFLES, lambda i: shuffle(seed, "chi-square", i))
    assert stat < chi_square_critical(DF)  # p > 0.001


def test_the_chi_square_test_does_find_a_biased_shuffle() -> None:
    # Sattolo's algorithm never leaves a card in place: a bias the test must catch.
    def sattolo(i: int) -> list[Card]:
        rng = random.Random(i)
        deck = list(DECK)
        for k in range(51, 0, -1):
            j = rng.randrange(k)
            deck[k], deck[j] = deck[j], deck[k]
        return deck

    assert position_chi_square(SHUFFLES // 4, sattolo) > chi_square_critical(DF)


def test_a_deal_in_play_withholds_its_hands_from_all_and_an_unused_secret_one_from_read_keys():
    from service.domain.deals import DealUse, discloses_hands

    shown = {(use, public, writer) for use in DealUse for public in (False, True) for writer in (False, True)
             if discloses_hands(use, public=public, writer=writer)}
    assert shown == {
        (DealUse.UNUSED, False, True), (DealUse.UNUSED, True, False), (DealUse.UNUSED, True, True),
        (DealUse.ENDED, False, False), (DealUse.ENDED, False, True), (DealUse.ENDED, True, False),
        (DealUse.ENDED, True, True),
    }

"""Provably fair deals (docs/rules.md#provably-fair-deals): the commitment, the HMAC byte stream and the shuffle.

Everything here is deterministic from (server_seed, client_seed, nonce), so anyone holding
a revealed server seed can recompute a deal; the service only adds the random seed.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from enum import StrEnum

from .cards import DECK, Card
from .errors import InvalidRound

HAND_SIZE = 13
MIN_PLAYERS, MAX_PLAYERS = 2, len(DECK) // HAND_SIZE  # a deal gives each player 13 of the 52
CLIENT_SEED_MAX = 128  # characters of the client's seed, mixed into every HMAC message
DEAL_ID_MAX = 64  # characters of a deal id a round or game may name (ours are 29)
_U32 = 2**32


class DealUse(StrEnum):
    """Where a deal stands, as the round or game that used it decides (docs/api.md#deals)."""

    UNUSED = "unused"  # no round or game has used it
    IN_PLAY = "in_play"  # used by a game still in play: a Susun game arranging, a Big Two game playing
    ENDED = "ended"  # used by a round, or by a game that has ended (settled, finished; voided too)


class DealStatus(StrEnum):
    """A deal's status as `GET /v1/deals` answers and filters it (docs/api.md#deals)."""

    OPEN = "open"  # neither used nor revealed: its seed is secret
    REVEALED = "revealed"  # its seed published, not used
    USED = "used"  # used by a round or a game (its seed shown once that has ended)


def status_of(used: bool, revealed: bool) -> DealStatus:
    """A deal's status from whether it was used and whether its seed was revealed (a used
    deal's seed is revealed with it).

    >>> [status_of(u, r).value for u, r in ((False, False), (False, True), (True, False), (True, True))]
    ['open', 'revealed', 'used', 'used']
    """
    return DealStatus.USED if used else DealStatus.REVEALED if revealed else DealStatus.OPEN


def discloses_hands(use: DealUse, *, public: bool, writer: bool) -> bool:
    """Whether a deal's hands (and its seed, once published) may be answered now, to a key
    of this scope (`writer`: a write key).

    Never while the game that used the deal is in play: a seed recomputes every hand. A
    deal a round or an ended game used shows all, and so does one whose seed was revealed
    (`public`: anyone can recompute its hands). An unused deal whose seed is still secret
    shows its hands to write keys only, as `POST /v1/deals` answered them: they are
    players' hands, which a read key (an auditor) sees only in stored rounds.

    >>> [(u.value, p, w) for u in DealUse for p in (False, True) for w in (False, True)
    ...  if discloses_hands(u, public=p, writer=w)]  # doctest: +NORMALIZE_WHITESPACE
    [('unused', False, True), ('unused', True, False), ('unused', True, True),
     ('ended', False, False), ('ended', False, True), ('ended', True, False), ('ended', True, True)]
    """
    if use is DealUse.IN_PLAY:
        return False
    return use is DealUse.ENDED or public or writer


def commitment(server_seed: bytes) -> str:
    """Lowercase hex SHA-256 of the server seed, published before the deal is used."""
    return hashlib.sha256(server_seed).hexdigest()


def _words(server_seed: bytes, client_seed: str, nonce: int) -> Iterator[int]:
    """4-byte big-endian unsigned integers from HMAC-SHA256 blocks i = 0, 1, 2, ..."""
    i = 0
    while True:
        message = f"{client_seed}:{nonce}:{i}".encode()
        block = hmac.new(server_seed, message, hashlib.sha256).digest()
        # 32-byte blocks hold exactly eight words, so words never straddle blocks.
        for k in range(0, len(block), 4):
            yield int.from_bytes(block[k : k + 4], "big")
        i += 1


def shuffle(server_seed: bytes, client_seed: str, nonce: int) -> list[Card]:
    """The whole shuffled deck: Fisher-Yates from position 51 down, rejection-sampled.

    Rejecting u >= floor(2^32 / n) * n keeps every j in 0..i equally likely (no modulo bias).
    """
    deck = list(DECK)
    words = _words(server_seed, client_seed, nonce)
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = (_U32 // n) * n
        u = next(words)
        while u >= limit:
            u = next(words)
        j = u % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal(server_seed: bytes, client_seed: str, nonce: int, n_players: int) -> list[list[Card]]:
    """Hands of 13 cards: player k gets shuffled positions 13k .. 13k+12 (the rest stay out).

    >>> hands = deal(bytes(range(32)), "table-7", 0, 4)
    >>> " ".join(str(c) for c in hands[0])
    '7c Qc 5c 7h 9c As 5h 7d 3d 2d Kh Tc 2s'
    """
    if not 2 <= n_players <= len(DECK) // HAND_SIZE:
        raise InvalidRound(f"a deal is for 2 to 4 players, not {n_players!r}", field="players")
    deck = shuffle(server_seed, client_seed, nonce)
    return [deck[HAND_SIZE * k : HAND_SIZE * (k + 1)] for k in range(n_players)]

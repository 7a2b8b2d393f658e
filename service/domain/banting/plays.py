"""Capsa Banting (Big Two) plays (docs/rules.md#combinations): card order, classification, comparison, bombs.

A `Play` carries a `key` that orders it against plays of the same size under the rule set it
was classified with; `beats` adds the two rules a key cannot express: sizes must match, and
the bomb (a five-card four of a kind on a single 2). `candidate_plays` lists every play a
hand holds, built from its ranks and suits rather than from all subsets, so a referee or a
random player can ask for legal moves cheaply; `tests/unit` checks it against brute force.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from itertools import combinations, product
from typing import Any

from ..cards import DECK, Card, Rank, Suit
from ..errors import InvalidCard
from .rules import BantingParams, Bombs, FlushOrder, StraightFlushOrder, Straights

# Two of the reasons a move is refused (the rest are the referee's, in game.py): a refusal's
# message starts with one of them, details may follow.
NOT_A_COMBINATION = "not a combination"
DOES_NOT_BEAT = "does not beat"


class Combination(StrEnum):
    """The kinds of play; the value is the API name."""

    SINGLE = "single"
    PAIR = "pair"
    THREE_OF_A_KIND = "three_of_a_kind"
    STRAIGHT = "straight"
    FLUSH = "flush"
    FULL_HOUSE = "full_house"
    FOUR_OF_A_KIND = "four_of_a_kind"
    STRAIGHT_FLUSH = "straight_flush"

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")


# Five-card tiers, weakest first: the first element of a five-card key.
_TIER = {
    Combination.STRAIGHT: 0,
    Combination.FLUSH: 1,
    Combination.FULL_HOUSE: 2,
    Combination.FOUR_OF_A_KIND: 3,
    Combination.STRAIGHT_FLUSH: 4,
}


def big_two_rank(rank: Rank) -> int:
    """0 for a 3 up to 11 for an ace and 12 for a 2: Big Two's rank order."""
    return (int(rank) - 3) % 13


@lru_cache(maxsize=32)
def _suit_positions(suit_order: str) -> dict[Suit, int]:
    return {Suit(letter): i for i, letter in enumerate(suit_order)}


@lru_cache(maxsize=32)
def _card_values(suit_order: str) -> dict[Card, int]:
    # Built once per suit order: the hot paths (sorting, singles) only look values up.
    pos = _suit_positions(suit_order)
    return {c: big_two_rank(c.rank) * 4 + pos[c.suit] for c in DECK}


def card_value(card: Card, params: BantingParams) -> int:
    """0..51: rank in Big Two order, then suit by `suit_order` (3d is 0 with "dchs")."""
    return _card_values(params.suit_order)[card]


def sort_cards(cards: Iterable[Card], params: BantingParams) -> tuple[Card, ...]:
    """Cards from the weakest to the strongest in Big Two order."""
    values = _card_values(params.suit_order)
    return tuple(sorted(cards, key=values.__getitem__))


@dataclass(frozen=True, slots=True)
class Play:
    """A legal combination: its kind, its cards (weakest first) and its comparison key.

    Keys compare only plays of the same size classified under the same rule set.
    """

    combination: Combination
    cards: tuple[Card, ...]
    key: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.cards)

    def __str__(self) -> str:
        return f"{self.combination.label} {' '.join(str(c) for c in self.cards)}"


@dataclass(frozen=True, slots=True)
class NotAPlay:
    """Cards that make no combination; `reason` starts with "not a combination"."""

    reason: str


# The rank sets that are straights under each `straights` rule, each with the natural rank of
# its top card and the value its key compares: natural ranks for standard and with_two (where
# A-2-3-4-5 tops at the 5 and 2-3-4-5-6 at the 6, below 3-4-5-6-7), Big Two ranks for
# consecutive (J-Q-K-A-2 the highest). Straights never wrap.
_STANDARD = {frozenset(range(t - 4, t + 1)): (t, t) for t in range(7, 15)}
_WITH_TWO = {**_STANDARD, frozenset({14, 2, 3, 4, 5}): (5, 5), frozenset({2, 3, 4, 5, 6}): (6, 6)}
# Built at import, in module code (no function: one called only at import is out of the
# mutation tests' reach); _NATURAL[b] is the natural rank (2..14) of Big Two rank b (0..12).
_NATURAL = (*range(3, 15), 2)
_CONSECUTIVE = {
    frozenset(_NATURAL[b] for b in range(top - 4, top + 1)): (_NATURAL[top], top) for top in range(4, 13)
}
STRAIGHT_RANKS: dict[str, dict[frozenset[int], tuple[int, int]]] = {
    "standard": _STANDARD,
    "with_two": _WITH_TWO,
    "consecutive": _CONSECUTIVE,
}
# Five ranks some table counts as a straight: named in the reason when these rules do not.
_ANY_STRAIGHT = set(_WITH_TWO) | set(_CONSECUTIVE)


def classify(cards: Sequence[Card], params: BantingParams) -> Play | NotAPlay:
    """The combination the cards make, or why they make none.

    >>> from service.domain.rules import resolve_rules
    >>> p = resolve_rules("capsa-banting-id", "banting").params
    >>> classify([Card.from_str(t) for t in ("9h", "9s")], p).combination.value
    'pair'
    >>> classify([Card.from_str(t) for t in ("9h", "Ts")], p).reason
    'not a combination: a pair needs two cards of one rank, not 9h Ts'
    """
    n = len(cards)
    if n == 0:
        return NotAPlay(f"{NOT_A_COMBINATION}: no cards")
    if len(set(cards)) != n:
        twice = next(c for i, c in enumerate(cards) if c in cards[:i])
        return NotAPlay(f"{NOT_A_COMBINATION}: {str(twice)!r} is given twice")
    values = _card_values(params.suit_order)
    ordered = tuple(sorted(cards, key=values.__getitem__))
    shown = " ".join(str(c) for c in ordered)
    pos = _suit_positions(params.suit_order)
    if n == 1:
        return Play(Combination.SINGLE, ordered, (values[ordered[0]],))
    if n == 2:
        low, high = ordered
        if low.rank != high.rank:
            return NotAPlay(f"{NOT_A_COMBINATION}: a pair needs two cards of one rank, not {shown}")
        # The pair's higher suit decides between pairs of one rank.
        return Play(Combination.PAIR, ordered, (big_two_rank(high.rank), pos[high.suit]))
    if n == 3:
        ranks = {c.rank for c in ordered}
        if len(ranks) != 1:
            return NotAPlay(
                f"{NOT_A_COMBINATION}: three cards must be of one rank (three of a kind), not {shown}"
            )
        (rank,) = ranks
        return Play(Combination.THREE_OF_A_KIND, ordered, (big_two_rank(rank),))
    if n == 4:
        ranks = {c.rank for c in ordered}
        if params.bomb_rule == Bombs.BARE_QUADS and len(ranks) == 1:
            (rank,) = ranks
            # A bare four of a kind is a bomb: its key is that of a five-card four of a kind.
            return Play(Combination.FOUR_OF_A_KIND, ordered, (_TIER[Combination.FOUR_OF_A_KIND], big_two_rank(rank)))
        return NotAPlay(
            f"{NOT_A_COMBINATION}: four cards are no play (a four of a kind is played with a fifth card)"
        )
    if n > 5:
        return NotAPlay(f"{NOT_A_COMBINATION}: a play has 1, 2, 3 or 5 cards, not {n}")
    return _classify_five(ordered, shown, params)


def _classify_five(ordered: tuple[Card, ...], shown: str, params: BantingParams) -> Play | NotAPlay:
    pos = _suit_positions(params.suit_order)
    counts: dict[Rank, int] = {}
    for c in ordered:
        counts[c.rank] = counts.get(c.rank, 0) + 1
    shape = sorted(counts.values(), reverse=True)
    if shape[0] == 4:
        quad = next(r for r, k in counts.items() if k == 4)
        return Play(
            Combination.FOUR_OF_A_KIND,
            ordered,
            (_TIER[Combination.FOUR_OF_A_KIND], big_two_rank(quad)),
        )
    if shape == [3, 2]:
        trips = next(r for r, k in counts.items() if k == 3)
        return Play(Combination.FULL_HOUSE, ordered, (_TIER[Combination.FULL_HOUSE], big_two_rank(trips)))
    ranks = frozenset(int(r) for r in counts)
    suits = {c.suit for c in ordered}
    suited = len(suits) == 1
    straight = STRAIGHT_RANKS[params.straight_rule].get(ranks)
    if straight is not None:
        top_rank, top = straight
        top_card = next(c for c in ordered if c.rank == top_rank)
        kind = Combination.STRAIGHT_FLUSH if suited else Combination.STRAIGHT
        if kind is Combination.STRAIGHT_FLUSH and params.straight_flushes == StraightFlushOrder.SUIT_FIRST:
            # pusoy_dos `is_higher`: straight flushes of different suits compare by suit.
            return Play(kind, ordered, (_TIER[kind], pos[top_card.suit], top))
        return Play(kind, ordered, (_TIER[kind], top, pos[top_card.suit]))
    if suited:
        # "Cards high to low" uses Big Two ranks: a 2 is the highest card of a flush.
        high_to_low = tuple(big_two_rank(c.rank) for c in reversed(ordered))
        (only,) = suits
        suit = pos[only]
        if params.flush_order == FlushOrder.SUIT_FIRST:
            key = (_TIER[Combination.FLUSH], suit, *high_to_low)
        else:
            key = (_TIER[Combination.FLUSH], *high_to_low, suit)
        return Play(Combination.FLUSH, ordered, key)
    if ranks in _ANY_STRAIGHT:
        if params.straight_rule == Straights.CONSECUTIVE:
            why = "a straight does not wrap past the 2"
        elif ranks in _WITH_TWO:
            why = "a 2 cannot be in a straight under these rules"
        else:
            why = "J-Q-K-A-2 is a straight only when straights are consecutive"
        return NotAPlay(f"{NOT_A_COMBINATION}: {why} ({shown})")
    if shape == [2, 2, 1]:
        return NotAPlay(f"{NOT_A_COMBINATION}: two pair is no play in Big Two ({shown})")
    return NotAPlay(
        f"{NOT_A_COMBINATION}: five cards must be a straight, flush, full house, four of a kind "
        f"(with any fifth card) or straight flush, not {shown}"
    )


def is_bomb(play: Play, table: Play, params: BantingParams) -> bool:
    """Whether `play` goes on `table` as a bomb, outside the same-size rule (`bombs`,
    docs/rules.md#bombs):

    - `five_card_on_two`: a five-card four of a kind on a single 2 (docs/rules.md#the-bomb);
    - `bare_quads`: a four of a kind (four cards, or five with a kicker) on any play that is no
      four of a kind, or on a lower one;
    - `none`: never.
    """
    if play.combination is not Combination.FOUR_OF_A_KIND:
        return False
    rule = params.bomb_rule
    if rule == Bombs.FIVE_CARD_ON_TWO:
        return (
            play.size == 5
            and table.combination is Combination.SINGLE
            and table.cards[0].rank == Rank.TWO
        )
    if rule == Bombs.BARE_QUADS:
        if table.combination is not Combination.FOUR_OF_A_KIND:
            return True
        # One deck holds one four of a kind of each rank: `>=` would be the same test.
        return play.key > table.key  # pragma: no mutate
    return False


def why_not_beats(play: Play, table: Play, params: BantingParams) -> str | None:
    """None when `play` may be played on `table`; otherwise the "does not beat" reason."""
    if is_bomb(play, table, params):
        return None
    if params.bomb_rule == Bombs.BARE_QUADS and table.combination is Combination.FOUR_OF_A_KIND:
        return f"{DOES_NOT_BEAT}: only a higher four of a kind beats {table}"
    if play.size != table.size:
        hint = ""
        if play.combination is Combination.FOUR_OF_A_KIND and table.size == 1:
            # Under bare_quads a four of a kind on a single is a bomb (returned above).
            if params.bomb_rule == Bombs.FIVE_CARD_ON_TWO:
                hint = "; a four of a kind bombs only a single 2"
            else:
                hint = "; these rules have no bombs"
        return (
            f"{DOES_NOT_BEAT}: a {play.size}-card {play.combination.label} cannot be played on a "
            f"{table.size}-card {table.combination.label}{hint}"
        )
    # Two plays of one deck never have one key (it would take a card they share), so `>=`
    # would be the same test.
    if play.key > table.key:  # pragma: no mutate
        return None
    return f"{DOES_NOT_BEAT}: {play} is lower than {table}"


def beats(play: Play, table: Play, params: BantingParams) -> bool:
    """Whether `play` may be played on `table`: same size and higher, or a bomb (`is_bomb`)."""
    return why_not_beats(play, table, params) is None


def evaluate_play(
    cards: Sequence[Card], table: Sequence[Card] | None, params: BantingParams
) -> dict[str, Any]:
    """The evaluate document (docs/api.md#big-two-games) `{"combination", "valid", "beats", "reason"}`.

    `beats` is null when no table play is given; false when the cards are no play. The
    table play must itself be a combination and share no card with `cards` (one deck):
    otherwise InvalidCard naming `beats` or `beats[i]`.
    """
    table_play: Play | None = None
    if table is not None:
        held = set(cards)
        for i, c in enumerate(table):
            if c in held:
                raise InvalidCard(f"{str(c)!r} is also in cards", field=f"beats[{i}]")
        classified = classify(table, params)
        if isinstance(classified, NotAPlay):
            raise InvalidCard(classified.reason, field="beats")
        table_play = classified
    play = classify(cards, params)
    if isinstance(play, NotAPlay):
        return {
            "combination": None,
            "valid": False,
            "beats": None if table_play is None else False,
            "reason": play.reason,
        }
    if table_play is None:
        return {"combination": play.combination.value, "valid": True, "beats": None, "reason": None}
    reason = why_not_beats(play, table_play, params)
    return {
        "combination": play.combination.value,
        "valid": True,
        "beats": reason is None,
        "reason": reason,
    }


def candidate_plays(hand: Iterable[Card], params: BantingParams, size: int | None = None) -> list[Play]:
    """Every play the hand holds (of `size` cards when given), each once, in no set order."""
    cards = tuple(hand)
    by_rank: dict[Rank, list[Card]] = {}
    by_suit: dict[Suit, list[Card]] = {}
    for c in cards:
        by_rank.setdefault(c.rank, []).append(c)
        by_suit.setdefault(c.suit, []).append(c)
    groups: list[Iterable[Sequence[Card]]] = []
    if size in (None, 1):
        groups.append([(c,) for c in cards])
    if size in (None, 2):
        groups.extend(combinations(g, 2) for g in by_rank.values())
    if size in (None, 3):
        groups.extend(combinations(g, 3) for g in by_rank.values())
    if size in (None, 4) and params.bomb_rule == Bombs.BARE_QUADS:
        groups.extend([tuple(g)] for g in by_rank.values() if len(g) == 4)
    if size in (None, 5):
        groups.append(_five_card_candidates(by_rank, by_suit, params))
    seen: dict[frozenset[Card], Play] = {}
    for group in groups:
        for combo in group:
            key = frozenset(combo)
            if key in seen:
                continue
            play = classify(combo, params)
            if isinstance(play, Play):
                seen[key] = play
    return list(seen.values())


def _five_card_candidates(
    by_rank: dict[Rank, list[Card]], by_suit: dict[Suit, list[Card]], params: BantingParams
) -> Iterable[Sequence[Card]]:
    for window in STRAIGHT_RANKS[params.straight_rule]:
        if all(Rank(r) in by_rank for r in window):
            yield from product(*(by_rank[Rank(r)] for r in window))
    for suited in by_suit.values():
        yield from combinations(suited, 5)
    for trips_rank, group in by_rank.items():
        for trips in combinations(group, 3):
            for pair_rank, other in by_rank.items():
                if pair_rank != trips_rank:
                    for pair in combinations(other, 2):
                        yield (*trips, *pair)
        if len(group) == 4:
            for kicker_rank, other in by_rank.items():
                if kicker_rank != trips_rank:
                    for kicker in other:
                        yield (*group, kicker)

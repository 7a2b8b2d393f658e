"""Cards: ranks, suits, parsing every accepted notation (docs/rules.md#cards-and-notation) and canonical output."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum, IntEnum

from .errors import FieldError, InvalidCard, raise_collected


class Rank(IntEnum):
    """Card rank; the value is the rank's poker strength (2..14, ace high)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14


class Suit(Enum):
    """Card suit; the value is its canonical letter."""

    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]


RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"  # also the deck order of a deal (2c 2d 2h 2s 3c ...)
_SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
_RANK_INPUT = {c: Rank(i + 2) for i, c in enumerate(RANK_CHARS)} | {"10": Rank.TEN}
_SUIT_INPUT = {s.value: s for s in Suit} | {v: k for k, v in _SUIT_SYMBOLS.items()}


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One of the 52 cards. `index` is 0..51 in deck order (rank major, suits c d h s)."""

    rank: Rank
    suit: Suit
    index: int = field(init=False, repr=False)
    text: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # Cards are hashed and compared in every duplicate check: an int makes both cheap;
        # every document prints them: the canonical text is made once per card.
        object.__setattr__(self, "index", (self.rank - 2) * 4 + SUIT_CHARS.index(self.suit.value))
        object.__setattr__(self, "text", RANK_CHARS[self.rank - 2] + self.suit.value)

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index == other.index

    @classmethod
    def from_str(cls, text: str) -> Card:
        """Parse any accepted notation.

        >>> Card.from_str('10h'), Card.from_str('a♠'), Card.from_str('TH')
        (Card.from_str('Th'), Card.from_str('As'), Card.from_str('Th'))
        """
        card = _PARSE.get(text) if isinstance(text, str) else None
        if card is None:
            raise InvalidCard(unknown_card(text))
        return card

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card.from_str({str(self)!r})"


DECK: tuple[Card, ...] = tuple(
    Card(Rank(r), Suit(s)) for r in range(2, 15) for s in SUIT_CHARS
)


def _build_parse_table() -> dict[str, Card]:
    table: dict[str, Card] = {}
    for card in DECK:
        rank_texts = [k for k, v in _RANK_INPUT.items() if v == card.rank]
        suit_texts = [k for k, v in _SUIT_INPUT.items() if v == card.suit]
        for r in rank_texts:
            for s in suit_texts:
                for rr in {r, r.lower(), r.upper()}:
                    for ss in {s, s.lower(), s.upper()}:
                        table[rr + ss] = card
    return table


_PARSE = _build_parse_table()
NOTATIONS = frozenset(_PARSE)  # every accepted way of writing a card
ACCEPTED = (
    "a card is a rank (2-9, T or 10, J, Q, K, A) then a suit (c, d, h, s or ♣ ♦ ♥ ♠), "
    "in either case: 'Qh', '10s', 'a♠'"
)


def unknown_card(text: object) -> str:
    """The message for text that is no card, naming the accepted notations."""
    return f"unknown card {text!r}: {ACCEPTED}"


def parse_cards(texts: Sequence[object], field: str) -> list[Card]:
    """Parse a list of cards, collecting every bad one with its path (`field[i]`).

    A card given twice in the list is an error at its second position.
    """
    cards = [_PARSE.get(text) if type(text) is str else None for text in texts]
    if all(cards) and len({c.index for c in cards if c is not None}) == len(cards):
        return cards  # type: ignore[return-value]  # no None: all() above (a Card is true)
    errors: list[FieldError] = []
    out: list[Card] = []
    seen: dict[int, int] = {}
    for i, (text, card) in enumerate(zip(texts, cards)):
        if card is None:
            errors.append(FieldError(f"{field}[{i}]", unknown_card(text)))
            continue
        if card.index in seen:
            errors.append(FieldError(f"{field}[{i}]", f"{card.text!r} is also at {field}[{seen[card.index]}]"))
            continue
        seen[card.index] = i
        out.append(card)
    raise_collected(errors, InvalidCard)
    return out


def canonical(cards: Iterable[Card]) -> list[str]:
    """Canonical strings of cards, in the given order."""
    return [c.text for c in cards]

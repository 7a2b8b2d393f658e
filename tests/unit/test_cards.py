"""Card notation (docs/rules.md#cards-and-notation): every accepted spelling, canonical output, errors with positions."""

import pytest

from service.domain.cards import DECK, NOTATIONS, Card, parse_cards
from service.domain.errors import InvalidCard


@pytest.mark.parametrize(
    "text, canonical",
    [("As", "As"), ("10h", "Th"), ("TH", "Th"), ("th", "Th"), ("a♠", "As"), ("Q♥", "Qh"),
     ("2♣", "2c"), ("k♦", "Kd"), ("10♦", "Td"), ("9S", "9s"), ("jC", "Jc")],
)
def test_every_accepted_notation_parses_to_the_canonical_card(text, canonical):
    assert str(Card.from_str(text)) == canonical


@pytest.mark.parametrize("text", ["", "1s", "11h", "Ax", "A", "Ahh", " As", "As ", "1", "♠A", "0s", None, 7])
def test_anything_else_is_an_unknown_card_naming_the_value(text):
    with pytest.raises(InvalidCard, match="unknown card"):
        Card.from_str(text)  # type: ignore[arg-type]


def test_repr_can_be_pasted_back():
    card = Card.from_str("Ts")
    assert repr(card) == "Card.from_str('Ts')"
    assert eval(repr(card)) == card


def test_the_deck_has_52_distinct_cards_in_deal_order():
    assert len(set(DECK)) == 52
    assert [str(c) for c in DECK[:5]] == ["2c", "2d", "2h", "2s", "3c"]
    assert all(c.index == i for i, c in enumerate(DECK))


def test_errors_name_each_bad_value_and_its_position():
    with pytest.raises(InvalidCard) as exc:
        parse_cards(["As", "Xx", "10h", "as"], "players[1].hand")
    assert [(e.field, e.message) for e in exc.value.errors] == [
        ("players[1].hand[1]", "unknown card 'Xx': a card is a rank (2-9, T or 10, J, Q, K, A) then a suit "
         "(c, d, h, s or ♣ ♦ ♥ ♠), in either case: 'Qh', '10s', 'a♠'"),
        ("players[1].hand[3]", "'As' is also at players[1].hand[0]"),
    ]


def test_every_notation_the_message_names_is_accepted():
    """The hint of an unknown card lists only notations the parser takes."""
    for text in ["Qh", "10s", "a♠", "Th", "th", "2C", "K♦"]:
        assert text in NOTATIONS, text
    with pytest.raises(InvalidCard) as exc:
        Card.from_str("Qx")
    assert str(exc.value).startswith("unknown card 'Qx': a card is a rank")

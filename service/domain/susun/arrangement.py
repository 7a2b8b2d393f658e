"""Arrangements: three rows of 3/5/5 cards, the order rule (foul / PAO) and row bonuses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..cards import Card, parse_cards
from ..errors import FieldError, InvalidArrangement, InvalidCard, raise_collected
from .evaluator import row_value
from .hands import Category, HandValue, made_rank
from .naturals import detect_natural
from .rules import RANKS, FrontVsFive, SusunParams

ROWS = ("front", "middle", "back")
ROW_SIZES = {"front": 3, "middle": 5, "back": 5}
FRONT_BEATS_MIDDLE = "front beats middle"
MIDDLE_BEATS_BACK = "middle beats back"


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A player's 13 cards set into front (3), middle (5) and back (5)."""

    front: tuple[Card, ...]
    middle: tuple[Card, ...]
    back: tuple[Card, ...]

    @property
    def rows(self) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
        return (self.front, self.middle, self.back)

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.front + self.middle + self.back

    def to_json(self) -> dict[str, list[str]]:
        return {name: [c.text for c in row] for name, row in zip(ROWS, self.rows)}

    @classmethod
    def from_strings(cls, front: str, middle: str, back: str) -> Arrangement:
        """Build from space-separated cards: `Arrangement.from_strings('Ah Ad 7c', ...)`."""
        return cls(*(tuple(Card.from_str(t) for t in row.split()) for row in (front, middle, back)))


@dataclass(frozen=True, slots=True)
class RowResult:
    """One evaluated row: its hand value and the bonus it earns if won."""

    row: str
    cards: tuple[Card, ...]
    value: HandValue
    bonus: int

    @property
    def category(self) -> Category:
        return self.value.category

    def to_json(self) -> dict[str, Any]:
        return {
            "category": self.value.category.label,
            "cards": [c.text for c in self.cards],
            "bonus": self.bonus,
        }


@dataclass(frozen=True, slots=True)
class ArrangementResult:
    """An evaluated arrangement: rows, foul and its reason, the natural it holds."""

    arrangement: Arrangement
    rows: tuple[RowResult, RowResult, RowResult]
    foul: bool
    foul_reason: str | None
    natural: str | None

    @property
    def bonus_total(self) -> int:
        return sum(r.bonus for r in self.rows)

    def to_json(self) -> dict[str, Any]:
        """The evaluate document (docs/api.md#rules-evaluate-and-suggest)."""
        return {
            "rows": {r.row: r.to_json() for r in self.rows},
            "foul": self.foul,
            "foul_reason": self.foul_reason,
            "natural": self.natural,
            "bonus_total": self.bonus_total,
        }


def row_bonus(row: str, value: HandValue, params: SusunParams) -> int:
    """The bonus a row earns if won (docs/rules.md#bonuses): `bonus_by_rank`'s entry for the
    row, category and made rank when it lists the row and category, else `bonus`'s for the
    row and category."""
    return bonus_of(row, value.category, value.key, params)


def bonus_of(row: str, category: Category, key: tuple[int, ...], params: SusunParams) -> int:
    """`row_bonus` from a category and a hand key (the suggest tables build on it)."""
    name = f"{row}.{category.label}"
    by_rank = params.bonus_by_rank.get(name)
    if by_rank is not None:
        amount = by_rank.get(RANKS[made_rank(category, key) - 2], 0)
    else:
        amount = params.bonus.get(name, 0)
    if params.royalty_flat and amount > 0:
        return 1
    return amount


def evaluate_rows(arrangement: Arrangement, params: SusunParams) -> tuple[HandValue, ...]:
    """The hand values of front, middle and back (the table evaluator; `hands` is its
    readable reference, and the tests hold the two equal on every hand)."""
    return (
        row_value(arrangement.front),
        row_value(arrangement.middle, params.wheel),
        row_value(arrangement.back, params.wheel),
    )


def front_against_five(front: HandValue, five: HandValue, params: SusunParams) -> int:
    """-1, 0 or 1 as a front is weaker than, equal to or stronger than a five-card row.

    `front_vs_five` `five_stronger`: keys compare as tuples, so when every rank the front
    has equals the five's the longer five is stronger (docs/rules.md#hand-order). `tie`: the
    five's extra kickers are not compared, so K-K-Q ties K-K-Q-3-2 and trips tie trips of
    the same rank (docs/rules.md#front-against-a-five-card-row).
    """
    if params.front_vs_five == FrontVsFive.TIE and five.key[: len(front.key)] == front.key:
        return 0
    return front.compare(five, params.suit_tiebreak)


def foul_reason(values: Sequence[HandValue], params: SusunParams) -> str | None:
    """Why the rows break the order rule, or None when they keep it."""
    front, middle, back = values
    limit = 0 if params.strict_order else 1  # a compare() result that fouls is >= limit
    if front_against_five(front, middle, params) >= limit:
        return FRONT_BEATS_MIDDLE
    if middle.compare(back, params.suit_tiebreak) >= limit:
        return MIDDLE_BEATS_BACK
    return None


def evaluate(arrangement: Arrangement, params: SusunParams) -> ArrangementResult:
    """Evaluate an arrangement under a rule set.

    A natural is detected first: its holder is never a fouler and its rows earn no
    bonus (they are not compared). A fouled hand earns no bonus either.
    """
    values = evaluate_rows(arrangement, params)
    natural = detect_natural(arrangement.rows, values, params)
    reason = None if natural else foul_reason(values, params)
    plays = natural is None and reason is None
    rows = tuple(
        RowResult(name, cards, value, row_bonus(name, value, params) if plays else 0)
        for name, cards, value in zip(ROWS, arrangement.rows, values)
    )
    return ArrangementResult(arrangement, rows, reason is not None, reason, natural)  # type: ignore[arg-type]


def parse_arrangement(
    doc: object, field: str, hand: Sequence[Card] | None = None
) -> Arrangement:
    """Parse `{"front", "middle", "back"}`; with `hand`, the rows must use exactly it."""
    if not isinstance(doc, Mapping):
        raise InvalidArrangement("must be an object with front, middle and back", field=field)
    errors: list[FieldError] = []
    unknown = sorted(set(doc) - set(ROWS))
    errors += [FieldError(f"{field}.{k}", f"unknown row {k!r}") for k in unknown]
    rows: dict[str, list[Card]] = {}
    seen: dict[int, tuple[str, int]] = {}  # card index -> (row path, position)
    for name in ROWS:
        path = f"{field}.{name}"
        texts = doc.get(name)
        if not isinstance(texts, list):
            errors.append(FieldError(path, f"the {name} must be a list of {ROW_SIZES[name]} cards"))
            continue
        if len(texts) != ROW_SIZES[name]:
            errors.append(
                FieldError(path, f"the {name} needs {ROW_SIZES[name]} cards, got {len(texts)}")
            )
        try:
            cards = parse_cards(texts, path)
        except InvalidCard as exc:
            errors += exc.errors
            continue
        for i, card in enumerate(cards):
            if card.index in seen:
                where, at = seen[card.index]
                errors.append(FieldError(f"{path}[{i}]", f"{card.text!r} is also at {where}[{at}]"))
            else:
                seen[card.index] = (path, i)
        rows[name] = cards
    raise_collected(errors, InvalidArrangement)
    arrangement = Arrangement(*(tuple(rows[n]) for n in ROWS))
    if hand is not None and set(seen) != {c.index for c in hand}:
        # 13 distinct cards in rows of the right sizes: a card not dealt stands in for one
        # unused, and each is named at its row.
        dealt = {c.index for c in hand}
        missing = [c.text for c in hand if c.index not in seen]
        raise_collected(
            [
                FieldError(f"{field}.{name}[{i}]", f"{card.text!r} is not in the dealt hand (unused: {missing})")
                for name in ROWS
                for i, card in enumerate(rows[name])
                if card.index not in dealt
            ],
            InvalidArrangement,
        )
    return arrangement

"""Money (docs/rules.md#money): minor units (CLDR's, frozen), stake parsing, pair amounts to fees and nets.

Amounts are integers of the currency's minor unit everywhere inside the service; only
the edges parse and format decimal strings, so no float ever touches money.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from .currencies import MINOR_DIGITS
from .errors import CapsaError, FieldError, InvalidMoney
from .parameters import FeeBasis

MAX_MINOR = 10**15
# The most any amount of a round may be, in minor units: every pair amount, result,
# winnings, fee and net, and the house fee. Stored amounts are 64-bit integers (9.2 x 10^18);
# this bound leaves the headroom for a few rounds' sums and is a round figure to document.
MAX_AMOUNT = 10**18
_MONEY = re.compile(r"(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?")
_CURRENCIES = frozenset(MINOR_DIGITS)


def check_currency(code: object, field: str = "currency") -> str:
    """An ISO 4217 code known to CLDR (upper case), or InvalidMoney."""
    if not isinstance(code, str) or code not in _CURRENCIES:
        raise InvalidMoney(f"unknown currency {code!r}", field=field)
    return code


def minor_digits(currency: str) -> int:
    """Digits of the currency's minor unit (IDR 0, JPY 0, USD 2), as CLDR gave them when
    the table was taken (`currencies`); 2 for a code it does not hold, as CLDR does."""
    return MINOR_DIGITS.get(currency, 2)


@lru_cache(maxsize=1)
def currencies_by_digits() -> Mapping[int, tuple[str, ...]]:
    """Every known currency grouped by its minor digits, `{0: ("ADP", ...), 2: ..., 3: ..., 4: ...}`
    (for money formatted in SQL: the verifier's)."""
    groups: dict[int, list[str]] = {}
    for code in sorted(_CURRENCIES):
        groups.setdefault(minor_digits(code), []).append(code)
    return {digits: tuple(codes) for digits, codes in sorted(groups.items())}


NOT_A_STRING = 'money is a decimal string such as "1000", not the JSON value {value!r}'


def parse_stake(text: object, currency: str, field: str) -> int:
    """A stake as a positive integer of minor units.

    Only a plain decimal string is money: a JSON number, an exponent, a sign, zero or
    a value finer than the minor unit is refused, naming the value.

    >>> parse_stake("1000.00", "IDR", "stake"), parse_stake("12.50", "USD", "stake")
    (1000, 1250)
    """
    if not isinstance(text, str):
        raise InvalidMoney(NOT_A_STRING.format(value=text), field=field)
    if not _MONEY.fullmatch(text):  # match() would take a trailing newline
        raise InvalidMoney(f"{text!r} is not a plain positive decimal amount", field=field)
    digits = minor_digits(currency)
    # By the digits as written, not Decimal arithmetic: its context keeps 28 significant
    # digits, and rounded "12.3400000000000000000000000001" to 12.34 before any check.
    whole, _, fraction = text.partition(".")
    fraction = fraction.rstrip("0")
    if len(fraction) > digits:
        raise InvalidMoney(
            f"{text!r} is finer than the minor unit of {currency} ({digits} decimals)",
            field=field,
        )
    minor: int = int(whole) * 10 ** int(digits) + int(fraction.ljust(digits, "0") or "0")
    if minor <= 0:
        raise InvalidMoney(f"{text!r} must be positive", field=field)
    if minor > MAX_MINOR:
        raise InvalidMoney(f"{text!r} is above the limit of 10^15 minor units", field=field)
    return minor


def parse_currency_and_stake(body: Mapping[str, object], errors: list[FieldError]) -> tuple[str, int]:
    """The request's `currency` and `stake` (minor units); a problem is appended to `errors`.

    On a problem the returned values are placeholders: callers raise the collected errors
    before using them.
    """
    currency, stake = "", 0  # placeholders, never read on a problem  # pragma: no mutate
    try:
        currency = check_currency(body.get("currency"))
        stake = parse_stake(body.get("stake"), currency, "stake")
    except CapsaError as exc:
        errors += exc.errors
    return currency, stake


def minor_units(text: str) -> int:
    """The minor units of a money string a document carries (exactly the currency's minor
    digits, as `format_money` writes them): "-12.50" is -1250.

    >>> minor_units("-12.50"), minor_units("1000")
    (-1250, 1000)
    """
    if "." not in text:  # pragma: no mutate (a shortcut: the replace below leaves such a text as it is)
        return int(text)
    return int(text.replace(".", "", 1))  # one point only: "1.2.3" is not money (ValueError)


def format_money(minor: int, currency: str) -> str:
    """Plain decimal string with exactly the minor-unit digits, by integer arithmetic.

    >>> format_money(1250, "USD"), format_money(-5, "USD"), format_money(-11000, "IDR")
    ('12.50', '-0.05', '-11000')
    """
    digits = minor_digits(currency)
    if digits == 0:
        return str(minor)
    sign = "-" if minor < 0 else ""
    whole, part = divmod(abs(minor), 10**digits)
    return f"{sign}{whole}.{part:0{digits}d}"


def fee_of(basis_minor: int, rate: Decimal) -> int:
    """`rate` x `basis`, rounded half-up to the minor unit; nothing on a basis <= 0.

    Exactly, in integers: a Decimal product keeps 28 significant digits, so a basis near
    10^17 times a rate of 12 decimals was rounded twice (half-even, then half-up) and could
    come out a minor unit high.

    >>> fee_of(11417500000000001, Decimal("0.999999999999")), fee_of(50, Decimal("0.03")), fee_of(-5, Decimal("0.5"))
    (11417499999988583, 2, 0)
    """
    numerator, denominator = rate.as_integer_ratio()
    product = max(basis_minor, 0) * numerator
    rounded = (2 * abs(product) + denominator) // (2 * denominator)  # half away from zero, as ROUND_HALF_UP
    return rounded if product >= 0 else -rounded


@dataclass(frozen=True, slots=True)
class PlayerMoney:
    """A player's money in minor units: result = sum of pair amounts, net = result - fee."""

    result: int
    winnings: int
    fee: int
    net: int


@dataclass(frozen=True, slots=True)
class Settlement:
    """Per-player money in seat order and the house's fee (sum of fees)."""

    players: tuple[PlayerMoney, ...]
    house_fee: int


def settle(
    n_players: int,
    pair_amounts: Sequence[tuple[int, int, int]],
    fee_rate: Decimal,
    fee_basis: str,
    pair_fields: Sequence[str] | None = None,
) -> Settlement:
    """Settle a round from `(a, b, amount_for_a)` per pair, amounts in minor units.
    `pair_fields`, one per pair, names the field whose stake made its amount (`stake`
    unless said), which an amount beyond the limit is refused on.

    Exactly: sum of result == 0 and sum of net + house_fee == 0.
    """
    result = [0] * n_players
    winnings = [0] * n_players
    for a, b, amount in pair_amounts:
        result[a] += amount
        result[b] -= amount
        winnings[a] += max(amount, 0)  # what each side of the pair won in it
        winnings[b] += max(-amount, 0)
    players = []
    for i in range(n_players):
        basis = winnings[i] if fee_basis == FeeBasis.WINNINGS else result[i]
        fee = fee_of(basis, fee_rate)
        players.append(PlayerMoney(result[i], winnings[i], fee, result[i] - fee))
    settlement = Settlement(tuple(players), sum(p.fee for p in players))
    check_amounts(pair_amounts, settlement, pair_fields)
    return settlement


def check_amounts(
    pair_amounts: Sequence[tuple[int, int, int]], settlement: Settlement, pair_fields: Sequence[str] | None = None
) -> None:
    """InvalidMoney when an amount of the round is beyond MAX_AMOUNT (10^18 minor units):
    such a round would score but could not be stored or summed. A pair's amount is refused
    on the field of its stake (`pair_fields`), a total on `stake`."""
    fields = pair_fields or ["stake"] * len(pair_amounts)
    amounts = [("a pair amount", amount, field) for (_, _, amount), field in zip(pair_amounts, fields, strict=True)]
    for p in settlement.players:
        amounts += [(what, amount, "stake") for what, amount in
                    (("a result", p.result), ("winnings", p.winnings), ("a fee", p.fee), ("a net", p.net))]
    amounts.append(("the house fee", settlement.house_fee, "stake"))
    for what, amount, field in amounts:
        if abs(amount) > MAX_AMOUNT:
            raise InvalidMoney(
                f"{what} of this round would be {amount} minor units, beyond the limit of 10^18: "
                "lower the stake",
                field=field,
            )


@dataclass(frozen=True, slots=True)
class PlayerLine:
    """A player's points and money in minor units."""

    id: str
    points: int
    result: int
    winnings: int
    fee: int
    net: int


@dataclass(frozen=True, slots=True)
class PairLine:
    """A pair's stake, points and amount (minor units), from `a`'s side."""

    a: str
    b: str
    stake: int
    points: int
    amount: int
    outcome: str

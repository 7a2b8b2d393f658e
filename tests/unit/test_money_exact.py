"""Money by exact arithmetic: a fee is the exact product rounded half up once, and a stake
finer than the minor unit is refused however many digits it has."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.errors import CapsaError
from service.domain.money import MAX_MINOR, fee_of, parse_stake


def exact_fee(basis: int, rate: Decimal) -> int:
    product = Fraction(max(basis, 0)) * Fraction(rate)
    return int(product + Fraction(1, 2)) if product >= 0 else -int(-product + Fraction(1, 2))


RATES = st.decimals(min_value=0, max_value=Decimal("0.999999999999"), places=12, allow_nan=False)


@given(st.integers(min_value=-(10**18), max_value=10**18), RATES)
def test_a_fee_is_the_exact_product_rounded_half_up_once(basis, rate):
    assert fee_of(basis, rate) == exact_fee(basis, rate)


def test_a_large_basis_at_a_twelve_decimal_rate_is_not_rounded_twice():
    # exactly 11417499999988583.499999999999: a 28-digit product made it ...584
    assert fee_of(11_417_500_000_000_001, Decimal("0.999999999999")) == 11_417_499_999_988_583
    assert fee_of(1, Decimal("0.5")) == 1 and fee_of(3, Decimal("0.5")) == 2  # half up, not to even


@pytest.mark.parametrize(
    ("text", "currency"),
    [("12.3400000000000000000000000001", "USD"), ("999999999999999.99999999999999", "IDR"),
     ("1.0000000000000000000000000004", "KWD"), ("12.345", "USD"), ("0.5", "JPY")],
)
def test_a_stake_finer_than_the_minor_unit_is_refused_however_long(text, currency):
    with pytest.raises(CapsaError, match="finer than the minor unit"):
        parse_stake(text, currency, "stake")


@given(st.integers(min_value=1, max_value=MAX_MINOR), st.sampled_from([("JPY", 0), ("USD", 2), ("KWD", 3)]),
       st.integers(min_value=0, max_value=20))
def test_a_stake_reads_its_minor_units_whatever_trailing_zeros_it_has(minor, currency_digits, zeros):
    currency, digits = currency_digits
    whole, part = divmod(minor, 10**digits)
    text = f"{whole}.{part:0{digits}d}" if digits else str(whole)
    if zeros:
        text += ("" if digits else ".") + "0" * zeros
    assert parse_stake(text, currency, "stake") == minor


def test_a_currencys_minor_digits_do_not_follow_the_installed_locale_data(monkeypatch):
    """A round's amounts mean what its currency's digits said when it was stored: newer
    CLDR data in a later Babel (which has changed digits before) must not re-read them."""
    import babel.numbers

    from service.domain import money

    monkeypatch.setattr(babel.numbers, "get_currency_precision", lambda code: 9)
    monkeypatch.setattr(money, "get_currency_precision", lambda code: 9, raising=False)
    assert money.parse_stake("10.50", "USD", "stake") == 1050
    assert money.parse_stake("1000", "IDR", "stake") == 1000
    assert money.format_money(-5, "KWD") == "-0.005"


def test_the_frozen_currency_table_is_what_cldr_said_when_it_was_taken():
    """Today's Babel agrees with the table (a Babel whose CLDR disagrees fails here, and the
    table stays as it is: see service/domain/currencies.py)."""
    from babel.numbers import get_currency_precision, list_currencies

    from service.domain.currencies import MINOR_DIGITS

    assert set(MINOR_DIGITS) == set(list_currencies())
    assert {code: get_currency_precision(code) for code in MINOR_DIGITS} == dict(MINOR_DIGITS)
    assert (MINOR_DIGITS["IDR"], MINOR_DIGITS["JPY"], MINOR_DIGITS["USD"], MINOR_DIGITS["KWD"]) == (0, 0, 2, 3)


def test_the_rule_books_back_row_example_settles_to_its_winnings_fees_and_house_fee():
    """docs/rules.md, Table fee: four players, Rp 1,000 a point, the back row alone (i a full
    house, ii a flush, iii a straight, iv a pair): i beats all three, ii beats iii and iv,
    iii beats iv. Row points +3 / +1 / -1 / -3; winnings 3,000 / 2,000 / 1,000; a 3% fee on
    winnings 90 / 60 / 30; the house 180."""
    from service.domain.money import settle

    i, ii, iii, iv = range(4)
    beats = [(i, ii), (i, iii), (i, iv), (ii, iii), (ii, iv), (iii, iv)]
    money = settle(4, [(a, b, 1_000) for a, b in beats], Decimal("0.03"), "winnings")
    assert [(p.result, p.winnings, p.fee, p.net) for p in money.players] == [
        (3_000, 3_000, 90, 2_910), (1_000, 2_000, 60, 940), (-1_000, 1_000, 30, -1_030), (-3_000, 0, 0, -3_000),
    ]
    assert money.house_fee == 180

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

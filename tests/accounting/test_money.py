"""Money in words: decimals by magnitude, so a fraction of a cent never reads as $0.0000."""

from decimal import Decimal

import pytest

from accounting.pricing.money import usd_text


@pytest.mark.parametrize(
    ("amount", "signed", "text"),
    [
        (Decimal("1234.5"), False, "$1,234.50"),
        (Decimal("0.5"), False, "$0.500"),
        (Decimal("0.062352"), True, "+$0.0624"),
        (Decimal("-0.0001234"), True, "-$0.000123"),
        (Decimal("0.000000412"), False, "$0.000000412"),
        (Decimal("0"), True, "$0.00"),
    ],
)
def test_it_shows_three_significant_digits_below_a_dollar(amount, signed, text):
    assert usd_text(amount, signed=signed) == text


@pytest.mark.parametrize(
    ("amount", "signed", "text"),
    [
        # $2.345 to cents: the digit after the cents is a 5, so half-up gives $2.35; format() alone, half-even,
        # would keep the even 4 and print $2.34.
        (Decimal("2.345"), False, "$2.35"),
        # $0.0001225 to three significant digits (6 decimals): half-up $0.000123, half-even would give $0.000122.
        (Decimal("0.0001225"), False, "$0.000123"),
        # -$0.06225 to three significant digits (4 decimals): half-up (away from zero) -$0.0623.
        (Decimal("-0.06225"), True, "-$0.0623"),
    ],
)
def test_it_rounds_shown_money_half_up_like_the_cost_model(amount, signed, text):
    assert usd_text(amount, signed=signed) == text

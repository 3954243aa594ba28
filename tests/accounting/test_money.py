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

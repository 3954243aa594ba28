"""Money as people read it: US dollars with as many decimals as the amount's magnitude needs.

Costs per million of a small workload are fractions of a cent ($0.000412) and an alarm's parts can be
smaller still, so a fixed number of decimals shows "+0.0000". Three significant digits are kept below
one dollar; cents above; never SI prefixes ("412µ").
"""

import math
from decimal import Decimal

from accounting.pricing.costing import rounded

SIGNIFICANT_DIGITS = 3
MAX_DECIMALS = 12


def usd_text(value, *, signed: bool = False) -> str:
    """ "$1,234.56", "$0.0123", "$0.000412" (signed: "+$0.000412", "-$0.0123"); "$0.00" for zero."""
    amount = Decimal(str(value))
    sign = "-" if amount < 0 else ("+" if signed and amount > 0 else "")
    magnitude = abs(amount)
    if magnitude >= 1 or magnitude == 0:
        decimals = 2
    else:
        leading_zeros = -math.floor(math.log10(magnitude)) - 1  # 0.000412 -> 3
        decimals = min(MAX_DECIMALS, max(2, leading_zeros + SIGNIFICANT_DIGITS))
    # Rounded by the one rule (half-up) before formatting: format() alone rounds half-even ($0.125 -> "$0.12").
    return f"{sign}${rounded(magnitude, Decimal(1).scaleb(-decimals)):,.{decimals}f}"


def cost_basis_text(price_kind: str, utilization) -> str:
    """How an hour is priced, in words: "cloud_on_demand at 100% utilization"."""
    return f"{price_kind} at {Decimal(str(utilization)):.0%} utilization"

"""The utilization a cost assumes: the share of paid accelerator-hours spent serving (one place).

cost per 1M = hourly / (throughput x 3600 x utilization) x 1e6, so a cost at utilization u is the cost at
100 % divided by u. The default is the setting INFERLEDGER_UTILIZATION (100 % unless configured; why:
docs/cost-model.md); a question may state its own. Every answer states the utilization it assumed, in
these words, beside its figures.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings


def default_utilization() -> Decimal:
    """The configured default (INFERLEDGER_UTILIZATION), as a Decimal in (0, 1]."""
    return Decimal(str(settings.INFERLEDGER_UTILIZATION))


def utilization_assumed(utilization) -> str:
    """What a cost at ``utilization`` assumes, in words a reader can act on."""
    share = Decimal(str(utilization))
    where = "the default, INFERLEDGER_UTILIZATION" if share == default_utilization() else "as asked"
    scale = "divide it by" if share == 1 else f"multiply it by {share.normalize():f} /"
    return (
        f"assumes {share:.0%} utilization ({where}): the share of paid accelerator-hours spent serving; "
        f"at another utilization u, {scale} u"
    )

"""Why a cost per inference moved: the change split into price, throughput and power, summing exactly.

Method (log-mean Divisia, LMDI-I). Cost per million C = H / (T * 3600 * u) * 1e6, with the hourly
cost H = P + W: P the price part (cloud price, or on-prem capex + opex), W the power part (on-prem
electricity; zero for cloud, where power is in the price), T the throughput, u the utilization.

    ln(C1/C0) = ln(H1/H0) - ln(T1/T0) - ln(u1/u0)
    ln(H1/H0) = (P1 - P0) / L(H1, H0) + (W1 - W0) / L(H1, H0)      with L(a, b) = (a - b) / ln(a / b), L(a, a) = a

so the log change splits exactly into price, power, throughput and utilization terms (utilization is
fixed within one snapshot series, so an alarm's utilization part is zero; a caller comparing two
utilizations gets its part). Each term times L(C1, C0) is its part of C1 - C0 in USD per million, and the parts add up
to C1 - C0; each term over ln(C1/C0) is its share, and the shares add up to 1. Figures use the
unrounded cost (hourly / throughput), so the parts sum to the total without rounding residue. The hourly cost
is the snapshot's stored total (never re-added from its rounded parts); what is shown is rounded half-up, as
the cost model rounds.
"""

from dataclasses import dataclass
from decimal import Decimal, localcontext

from accounting.pricing.costing import PER_MILLION_QUANTUM, rounded

FACTORS = ("price", "throughput", "utilization", "power")
STORED_QUANTUM = PER_MILLION_QUANTUM  # as snapshots store costs per million
SHARE_QUANTUM = Decimal("0.0001")


def _shown(value: Decimal, quantum: Decimal) -> str:
    """A figure as the answer shows it: rounded by the cost model's one rule (costing.rounded, half-up)."""
    return str(rounded(value, quantum))


@dataclass(frozen=True)
class CostState:
    price_usd_per_hour: Decimal  # the stored total less its power part: capex + opex + cloud
    power_usd_per_hour: Decimal
    throughput_per_s: Decimal
    utilization: Decimal = Decimal("1")

    @property
    def hourly_usd(self) -> Decimal:
        return self.price_usd_per_hour + self.power_usd_per_hour

    @property
    def cost_per_million_usd(self) -> Decimal:
        return self.hourly_usd / (self.throughput_per_s * 3600 * self.utilization) * 1_000_000

    @classmethod
    def of_snapshot(cls, snapshot) -> "CostState":
        return cls(
            price_usd_per_hour=snapshot.total_usd_per_hour - snapshot.power_usd_per_hour,
            power_usd_per_hour=snapshot.power_usd_per_hour,
            throughput_per_s=Decimal(str(snapshot.throughput_per_s)),
            utilization=snapshot.utilization,
        )


@dataclass(frozen=True)
class Attribution:
    before_usd_per_million: Decimal
    after_usd_per_million: Decimal
    change_usd_per_million: Decimal
    parts_usd_per_million: dict[str, Decimal]
    shares: dict[str, Decimal]

    def as_dict(self) -> dict:
        # Twelve decimals: the costs per million of small workloads are fractions of a cent, and their parts
        # smaller still (six decimals wrote a $0.0000004 part as 0.000000).
        return {
            "method": "log-mean Divisia (LMDI-I)",
            "before_usd_per_million": _shown(self.before_usd_per_million, STORED_QUANTUM),
            "after_usd_per_million": _shown(self.after_usd_per_million, STORED_QUANTUM),
            "change_usd_per_million": _shown(self.change_usd_per_million, STORED_QUANTUM),
            "factors": {
                name: {
                    "usd_per_million": _shown(self.parts_usd_per_million[name], STORED_QUANTUM),
                    "share": _shown(self.shares[name], SHARE_QUANTUM),
                }
                for name in FACTORS
            },
        }


def _log_mean(a: Decimal, b: Decimal) -> Decimal:
    return a if a == b else (a - b) / (a / b).ln()


def attribute(before: CostState, after: CostState) -> Attribution:
    """Split after - before into price, throughput, utilization and power parts that sum to the total."""
    with localcontext() as context:
        context.prec = 40
        cost_before, cost_after = before.cost_per_million_usd, after.cost_per_million_usd
        hourly_mean = _log_mean(after.hourly_usd, before.hourly_usd)
        logs = {
            "price": (after.price_usd_per_hour - before.price_usd_per_hour) / hourly_mean,
            "power": (after.power_usd_per_hour - before.power_usd_per_hour) / hourly_mean,
            "throughput": -(after.throughput_per_s / before.throughput_per_s).ln(),
            "utilization": -(after.utilization / before.utilization).ln(),
        }
        total_log = (cost_after / cost_before).ln()
        cost_mean = _log_mean(cost_after, cost_before)
        parts = {name: logs[name] * cost_mean for name in FACTORS}
        shares = {name: (logs[name] / total_log if total_log else Decimal("0")) for name in FACTORS}
        return Attribution(cost_before, cost_after, cost_after - cost_before, parts, shares)

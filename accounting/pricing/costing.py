"""The cost model (see DESIGN.md, "Cost model"): plain functions over Decimal money, no database.

Rounding, stated once: intermediate arithmetic keeps full Decimal precision (28 significant digits);
results are rounded half-up to
  - 6 decimal places for hourly costs (USD per hour),
  - 12 decimal places for cost per million inferences (PER_MILLION_QUANTUM): a cheap workload costs
    fractions of a cent per million ($0.0006), where a step of 4 decimals would be a 17 % move; a step of
    1e-12 is below a millionth of any cost this model produces (above $1e-6 per million), so rounding is
    never a visible or alarming change,
  - 2 decimal places (cents) for monthly, annual and savings figures.
Measured floats (throughput, power) enter through `Decimal(str(value))`, so 0.1 stays 0.1.
"""

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal

HOURS_PER_YEAR = Decimal("8766")  # 365.25 days, as DESIGN.md's amortization formula states
HOURS_PER_MONTH = Decimal("730")
SECONDS_PER_HOUR = Decimal("3600")
MILLION = Decimal("1000000")

HOURLY_QUANTUM = Decimal("0.000001")
PER_MILLION_DECIMAL_PLACES = 12  # of every stored or served cost per million (models, serializers)
PER_MILLION_MAX_DIGITS = 24  # up to $10^12 per million, far above any figure
PER_MILLION_QUANTUM = Decimal(1).scaleb(-PER_MILLION_DECIMAL_PLACES)
CENTS = Decimal("0.01")


def rounded(value: Decimal, quantum: Decimal) -> Decimal:
    """The one rounding of money (and of the fractions beside it): half-up to ``quantum``. Every figure this
    package serves or stores is rounded here; Decimal's own default (half-even) is never used for money."""
    return value.quantize(quantum, rounding=ROUND_HALF_UP)


def per_million_rounded(value: Decimal) -> Decimal:
    """A cost per million, rounded to PER_MILLION_QUANTUM (half-up)."""
    return rounded(value, PER_MILLION_QUANTUM)


def to_decimal(value, name: str) -> Decimal:
    """A number as Decimal, refusing NaN, infinities and non-numbers with a message naming `name`."""
    if isinstance(value, Decimal):
        number = value
    elif isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"{name} must be a number, got {value!r}")
    else:
        try:
            number = Decimal(str(value).strip())
        except ArithmeticError:
            raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not number.is_finite():
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number


def _positive(value, name: str) -> Decimal:
    number = to_decimal(value, name)
    if number <= 0:
        raise ValueError(f"{name} must be greater than zero, got {value}")
    return number


def _non_negative(value, name: str) -> Decimal:
    number = to_decimal(value, name)
    if number < 0:
        raise ValueError(f"{name} must not be negative, got {value}")
    return number


def _utilization(value, name: str = "utilization") -> Decimal:
    number = to_decimal(value, name)
    if not (0 < number <= 1):
        raise ValueError(f"{name} must be in (0, 1], got {value}")
    return number


@dataclass(frozen=True)
class HourlyCost:
    """What one accelerator costs per hour, split by where the money goes."""

    capex_usd_per_hour: Decimal
    opex_usd_per_hour: Decimal
    power_usd_per_hour: Decimal
    cloud_usd_per_hour: Decimal
    total_usd_per_hour: Decimal
    power_w: Decimal | None
    power_source: str  # "measured", "tdp" or "included in cloud price"

    def as_dict(self) -> dict:
        return {
            "capex_usd_per_hour": self.capex_usd_per_hour,
            "opex_usd_per_hour": self.opex_usd_per_hour,
            "power_usd_per_hour": self.power_usd_per_hour,
            "cloud_usd_per_hour": self.cloud_usd_per_hour,
            "total_usd_per_hour": self.total_usd_per_hour,
            "power_w": self.power_w,
            "power_source": self.power_source,
        }


def _hourly(value: Decimal) -> Decimal:
    return rounded(value, HOURLY_QUANTUM)


def onprem_hourly_cost(
    *,
    accelerator_price_usd,
    host_capex_share_usd,
    amortization_years,
    opex_fraction_per_year,
    usd_per_kwh,
    pue,
    measured_power_w=None,
    tdp_w=None,
) -> HourlyCost:
    """capex/(years*8766) + capex*opex_fraction/8766 + power_w/1000*pue*usd_per_kwh.

    capex is the accelerator's price plus its share of the host. Power is the measured mean at the
    operating point when there is one, else the TDP, and the result says which was used.
    """
    capex_usd = _positive(accelerator_price_usd, "accelerator_price_usd") + _non_negative(
        host_capex_share_usd, "host_capex_share_usd"
    )
    years = _positive(amortization_years, "amortization_years")
    opex_fraction = _non_negative(opex_fraction_per_year, "opex_fraction_per_year")
    tariff = _non_negative(usd_per_kwh, "usd_per_kwh")
    pue_value = to_decimal(pue, "pue")
    if pue_value < 1:
        raise ValueError(f"pue must be at least 1, got {pue}")
    if measured_power_w is not None:
        power_w, power_source = _positive(measured_power_w, "measured_power_w"), "measured"
    elif tdp_w is not None:
        power_w, power_source = _positive(tdp_w, "tdp_w"), "tdp"
    else:
        raise ValueError("on-prem cost needs measured_power_w or tdp_w: neither was given")

    capex_hourly = capex_usd / (years * HOURS_PER_YEAR)
    opex_hourly = capex_usd * opex_fraction / HOURS_PER_YEAR
    power_hourly = power_w / 1000 * pue_value * tariff
    return HourlyCost(
        capex_usd_per_hour=_hourly(capex_hourly),
        opex_usd_per_hour=_hourly(opex_hourly),
        power_usd_per_hour=_hourly(power_hourly),
        cloud_usd_per_hour=Decimal("0").quantize(HOURLY_QUANTUM),
        total_usd_per_hour=_hourly(capex_hourly + opex_hourly + power_hourly),
        power_w=power_w,
        power_source=power_source,
    )


def cloud_hourly_cost(*, instance_price_usd_per_hour, accelerators_per_instance) -> HourlyCost:
    """The instance's hourly price shared equally by its accelerators (power is in the price)."""
    instance_price = _positive(instance_price_usd_per_hour, "instance_price_usd_per_hour")
    per_instance = _positive(accelerators_per_instance, "accelerators_per_instance")
    hourly = _hourly(instance_price / per_instance)
    zero = Decimal("0").quantize(HOURLY_QUANTUM)
    return HourlyCost(
        capex_usd_per_hour=zero,
        opex_usd_per_hour=zero,
        power_usd_per_hour=zero,
        cloud_usd_per_hour=hourly,
        total_usd_per_hour=hourly,
        power_w=None,
        power_source="included in cloud price",
    )


def cost_per_million(*, hourly_usd, throughput_per_s, utilization=Decimal("1")) -> Decimal:
    """hourly / (throughput * 3600 * utilization) * 1e6, in USD per million inferences (or tokens)."""
    hourly = _non_negative(hourly_usd, "hourly_usd")
    throughput = _positive(throughput_per_s, "throughput_per_s")
    share = _utilization(utilization)
    return per_million_rounded(hourly / (throughput * SECONDS_PER_HOUR * share) * MILLION)


def energy_j_per_inference(*, power_w, throughput_per_s) -> Decimal:
    """Mean watts divided by inferences per second = joules per inference."""
    return _positive(power_w, "power_w") / _positive(throughput_per_s, "throughput_per_s")


@dataclass(frozen=True)
class Capacity:
    units: int  # deployment units (systems of accelerators_per_unit accelerators)
    accelerators_per_unit: int
    accelerators: int
    monthly_usd: Decimal
    annual_usd: Decimal
    headroom_fraction: Decimal  # spare capacity at the target rate, as a share of what the units provide


def capacity(*, target_qps, throughput_per_s, max_utilization, hourly_usd, accelerators_per_unit=1) -> Capacity:
    """Deployment units for a target rate, all figures in the same unit of work.

    throughput_per_s and hourly_usd are per accelerator; a result measured on N accelerators is bought in
    units of N: units = ceil(target / (throughput * N * max_utilization)), accelerators = units * N,
    monthly = accelerators * hourly * 730.
    """
    target = _positive(target_qps, "target_qps")
    throughput = _positive(throughput_per_s, "throughput_per_s")
    ceiling = _utilization(max_utilization, "max_utilization")
    hourly = _non_negative(hourly_usd, "hourly_usd")
    per_unit = int(_positive(accelerators_per_unit, "accelerators_per_unit"))
    unit_throughput = throughput * per_unit
    units = int((target / (unit_throughput * ceiling)).to_integral_value(rounding=ROUND_CEILING))
    units = max(units, 1)
    accelerators = units * per_unit
    monthly = accelerators * hourly * HOURS_PER_MONTH
    headroom = 1 - target / (units * unit_throughput)
    return Capacity(
        units=units,
        accelerators_per_unit=per_unit,
        accelerators=accelerators,
        monthly_usd=rounded(monthly, CENTS),
        annual_usd=rounded(monthly * 12, CENTS),
        headroom_fraction=rounded(headroom, Decimal("0.0001")),
    )


def annual_savings(*, cost_per_million_before, cost_per_million_after, annual_volume) -> Decimal:
    """(before - after) per million x annual volume / 1e6, in USD; negative means the change costs more."""
    before = _non_negative(cost_per_million_before, "cost_per_million_before")
    after = _non_negative(cost_per_million_after, "cost_per_million_after")
    volume = _non_negative(annual_volume, "annual_volume")
    return rounded((before - after) * volume / MILLION, CENTS)

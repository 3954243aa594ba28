"""Accounting's stored records: cost snapshots (the history of cost per inference) and regression alarms.

A snapshot is written once and never updated: it keeps every input that produced its figure (run,
operating point, price row, assumption set, power source, utilization), so any figure can be traced
and recomputed. A new price or a new run adds snapshots; old ones stay.
"""

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounting.pricing import costing
from accounting.pricing.money import cost_basis_text, usd_text
from hardware_catalog.models import Accelerator, OnPremAssumptions, Price
from results.models import BenchmarkRun, OperatingPoint


class CostSnapshot(models.Model):
    """One cost-per-inference figure for an (offering, workload, SLA), in force from `effective_at`."""

    accelerator = models.ForeignKey(Accelerator, on_delete=models.PROTECT, related_name="cost_snapshots")
    run = models.ForeignKey(BenchmarkRun, on_delete=models.CASCADE, related_name="cost_snapshots")
    point = models.ForeignKey(OperatingPoint, on_delete=models.CASCADE, related_name="cost_snapshots")
    price = models.ForeignKey(Price, on_delete=models.PROTECT, related_name="cost_snapshots")
    assumptions = models.ForeignKey(
        OnPremAssumptions, null=True, blank=True, on_delete=models.PROTECT, related_name="cost_snapshots"
    )
    model_class = models.CharField(max_length=32)
    workload_name = models.CharField(max_length=64)
    price_kind = models.CharField(max_length=32)
    sla_p99_ms = models.DecimalField(
        max_digits=12, decimal_places=3, null=True, blank=True, help_text="Whole-request p99 bound; null: none."
    )
    sla_ttft_p99_ms = models.DecimalField(
        max_digits=12, decimal_places=3, null=True, blank=True, help_text="LLM workloads: TTFT p99 bound; null: none."
    )
    sla_tpot_p99_ms = models.DecimalField(
        max_digits=12, decimal_places=3, null=True, blank=True, help_text="LLM workloads: TPOT p99 bound; null: none."
    )
    utilization = models.DecimalField(max_digits=7, decimal_places=6)
    unit = models.CharField(
        max_length=16, help_text="The workload's unit of work: inferences, samples or output_tokens"
    )
    throughput_per_s = models.FloatField()
    latency_p99_ms = models.FloatField()
    power_w = models.DecimalField(max_digits=12, decimal_places=3, null=True, blank=True)
    power_source = models.CharField(max_length=32)
    capex_usd_per_hour = models.DecimalField(max_digits=20, decimal_places=6)
    opex_usd_per_hour = models.DecimalField(max_digits=20, decimal_places=6)
    power_usd_per_hour = models.DecimalField(max_digits=20, decimal_places=6)
    cloud_usd_per_hour = models.DecimalField(max_digits=20, decimal_places=6)
    total_usd_per_hour = models.DecimalField(max_digits=20, decimal_places=6)
    # Fractions of a cent for cheap workloads: 12 decimals keep every figure's relative precision.
    cost_per_million_usd = models.DecimalField(
        max_digits=costing.PER_MILLION_MAX_DIGITS, decimal_places=costing.PER_MILLION_DECIMAL_PLACES
    )
    # The figure's interval: the cost at the high and at the low end of its point's throughput interval over its
    # rounds (accounting.rankings.intervals). Null where the point has none (a published result, a run measured
    # before intervals were stored): no interval is made up for them.
    cost_per_million_low_usd = models.DecimalField(
        max_digits=costing.PER_MILLION_MAX_DIGITS, decimal_places=costing.PER_MILLION_DECIMAL_PLACES,
        null=True, blank=True, help_text="Cost per million at the high end of the point's throughput interval.",
    )  # fmt: skip
    cost_per_million_high_usd = models.DecimalField(
        max_digits=costing.PER_MILLION_MAX_DIGITS, decimal_places=costing.PER_MILLION_DECIMAL_PLACES,
        null=True, blank=True, help_text="Cost per million at the low end of the point's throughput interval.",
    )  # fmt: skip
    effective_at = models.DateTimeField(
        help_text="When this combination of run, price and assumptions came into force."
    )
    series_key = models.CharField(
        max_length=64,
        help_text="Digest of (accelerator, workload, scenario, backend, precision, offering, SLA, system).",
    )
    inputs_digest = models.CharField(max_length=64, help_text="Digest of every input; equal inputs, equal figure.")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["series_key", "effective_at", "id"]
        constraints = [
            # recompute_costs and repeated signals are no-ops: one snapshot per set of inputs.
            models.UniqueConstraint(fields=["inputs_digest"], name="snapshot_inputs_unique"),
            models.CheckConstraint(condition=models.Q(cost_per_million_usd__gte=0), name="snapshot_cost_ge_0"),
            # An interval is both ends or none, and holds its figure: low <= cost <= high.
            models.CheckConstraint(
                condition=models.Q(cost_per_million_low_usd__isnull=True, cost_per_million_high_usd__isnull=True)
                | models.Q(
                    cost_per_million_low_usd__lte=models.F("cost_per_million_usd"),
                    cost_per_million_high_usd__gte=models.F("cost_per_million_usd"),
                ),
                name="snapshot_cost_interval_holds_cost",
            ),
        ]
        indexes = [
            # The regression check: the previous N snapshots of one series, newest first.
            models.Index(fields=["series_key", "-effective_at"], name="snapshot_series_eff_idx"),
            # cost-series: one accelerator's workload under one price kind, in time order.
            models.Index(
                fields=["accelerator", "workload_name", "price_kind", "effective_at"], name="snapshot_acc_wl_idx"
            ),
        ]

    def __str__(self):
        return f"{self.accelerator_id}/{self.workload_name} {self.price_kind}: {usd_text(self.cost_per_million_usd)}/M"

    @property
    def sla(self):
        """The SLA this figure was computed under (accounting.sla.Sla; Sla() is none)."""
        from accounting.sla import Sla

        return Sla(p99_ms=self.sla_p99_ms, ttft_p99_ms=self.sla_ttft_p99_ms, tpot_p99_ms=self.sla_tpot_p99_ms)

    @property
    def cost_interval_usd(self) -> tuple[Decimal, Decimal] | None:
        """(low, high) cost per million over the point's rounds; None where the run has no interval."""
        if self.cost_per_million_low_usd is None or self.cost_per_million_high_usd is None:
            return None
        return (self.cost_per_million_low_usd, self.cost_per_million_high_usd)

    @property
    def sla_label(self) -> str:
        return str(self.sla) if self.sla else "no SLA (best throughput)"

    @property
    def cost_basis(self) -> str:
        """How the hour is priced: the price kind and the utilization it is spread over."""
        return cost_basis_text(self.price_kind, self.utilization)


# An open alarm: nobody acknowledged it and the rules in force still raise it (not withdrawn). The same fields, and
# so the same rule, on a cost alarm and on a metered deployment's (metering.MeteredAlarm).
OPEN_ALARM = models.Q(acknowledged_at__isnull=True, withdrawn_at__isnull=True)


class CostAlarm(models.Model):
    """A snapshot that rose above the trailing median of its series, with the change explained."""

    snapshot = models.OneToOneField(CostSnapshot, on_delete=models.CASCADE, related_name="alarm")
    baseline = models.ForeignKey(CostSnapshot, on_delete=models.CASCADE, related_name="baseline_for_alarms")
    window_size = models.PositiveSmallIntegerField()
    threshold_fraction = models.DecimalField(max_digits=6, decimal_places=4)
    change_fraction = models.DecimalField(max_digits=12, decimal_places=6)
    attribution = models.JSONField(help_text="USD per million and share of the change, by price, throughput and power.")
    explanation = models.TextField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Set by accounting.history.alarms.recheck_open_alarms when the rules in force no longer raise the alarm: kept, not
    # deleted, so what was once shown stays traceable.
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # GET /alarms/?acknowledged=false: open alarms, newest first.
            models.Index(fields=["acknowledged_at", "-created_at"], name="alarm_open_created_idx"),
        ]

    def __str__(self):
        return f"alarm on snapshot {self.snapshot_id}: +{self.change_fraction:.1%}"

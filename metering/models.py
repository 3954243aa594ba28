"""A production deployment (its Prometheus and its declared hardware) and the periods metered from it."""

from decimal import Decimal

from django.conf import settings
from django.core.validators import MinValueValidator, RegexValidator
from django.db import models
from django.utils import timezone

from accounting.models import CostSnapshot
from accounting.pricing import costing
from hardware_catalog.models import Accelerator, OnPremAssumptions, Price, PriceKind

from .engines import ENGINE_CHOICES
from .promql import SELECTOR

PER_MILLION_DIGITS, PER_MILLION_PLACES = costing.PER_MILLION_MAX_DIGITS, costing.PER_MILLION_DECIMAL_PLACES
COUNT_DIGITS, COUNT_PLACES = 24, 3  # counters read from Prometheus are floats; tokens are whole


class Deployment(models.Model):
    """A running service InferLedger meters: where its metrics are, and the hardware it is declared to run on."""

    name = models.SlugField(max_length=64, unique=True)
    prometheus_url = models.URLField(help_text="Base URL of the Prometheus that scrapes it (its /api/v1/query).")
    selector = models.CharField(
        max_length=500,
        blank=True,
        validators=[RegexValidator(SELECTOR, 'label matchers as inside {...}, e.g. job="vllm",namespace="prod"')],
        help_text='PromQL label matchers picking the deployment\'s series, e.g. job="vllm".',
    )
    engine = models.CharField(max_length=16, choices=ENGINE_CHOICES)
    workload_name = models.CharField(max_length=64, help_text="The workload it serves: its unit, its benchmarks.")
    accelerator = models.ForeignKey(Accelerator, on_delete=models.PROTECT, related_name="deployments")
    accelerator_count = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    price_kind = models.CharField(max_length=32, choices=PriceKind.choices, help_text="Cost basis of its hours.")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["name"]
        constraints = [
            # Zero accelerators would make every metered hour free.
            models.CheckConstraint(condition=models.Q(accelerator_count__gte=1), name="deployment_count_ge_1"),
        ]

    def __str__(self):
        return self.name


class MeteredPeriod(models.Model):
    """What a deployment served over [start, end) and what those hours cost on its declared hardware.

    Written once; every input is kept: the counters read (with their queries), the price row and assumption set,
    and the benchmark snapshot the prediction comes from.
    """

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="periods")
    start = models.DateTimeField()
    end = models.DateTimeField()
    requests = models.DecimalField(max_digits=COUNT_DIGITS, decimal_places=COUNT_PLACES)
    prompt_tokens = models.DecimalField(null=True, blank=True, max_digits=COUNT_DIGITS, decimal_places=COUNT_PLACES)
    generation_tokens = models.DecimalField(null=True, blank=True, max_digits=COUNT_DIGITS, decimal_places=COUNT_PLACES)
    unit = models.CharField(max_length=16, help_text="The workload's unit of work: output_tokens or inferences.")
    units_served = models.DecimalField(max_digits=COUNT_DIGITS, decimal_places=COUNT_PLACES)
    counters = models.JSONField(help_text="Each counter read: its query, value at start and at end.")
    price = models.ForeignKey(Price, on_delete=models.PROTECT, related_name="metered_periods")
    assumptions = models.ForeignKey(
        OnPremAssumptions, null=True, blank=True, on_delete=models.PROTECT, related_name="metered_periods"
    )
    usd_per_accelerator_hour = models.DecimalField(max_digits=20, decimal_places=6)
    cost_usd = models.DecimalField(max_digits=20, decimal_places=6, help_text="Every declared accelerator, all period.")
    cost_per_million_units_usd = models.DecimalField(
        null=True, blank=True, max_digits=PER_MILLION_DIGITS, decimal_places=PER_MILLION_PLACES
    )
    predicted = models.ForeignKey(
        CostSnapshot, null=True, blank=True, on_delete=models.SET_NULL, related_name="metered_periods",
        help_text="The benchmark snapshot the prediction comes from (null: no benchmark of this workload there).",
    )  # fmt: skip
    predicted_cost_per_million_units_usd = models.DecimalField(
        null=True, blank=True, max_digits=PER_MILLION_DIGITS, decimal_places=PER_MILLION_PLACES
    )
    utilization = models.DecimalField(
        max_digits=12, decimal_places=6, null=True, blank=True,
        help_text="Units served per second over the benchmark's capacity of the declared accelerators.",
    )  # fmt: skip
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["deployment", "-end"]
        constraints = [
            # A scheduled run and a manual one for the same day store one period, not two.
            models.UniqueConstraint(fields=["deployment", "start", "end"], name="metered_period_unique"),
            models.CheckConstraint(
                condition=models.Q(end__gt=models.F("start")), name="metered_period_end_after_start"
            ),
        ]

    def __str__(self):
        return f"{self.deployment} {self.start:%Y-%m-%d %H:%M}–{self.end:%Y-%m-%d %H:%M}"

    @property
    def period_s(self) -> float:
        return (self.end - self.start).total_seconds()

    @property
    def gap_usd(self):
        """Actual minus predicted cost per million units: what serving below the benchmark's capacity costs."""
        if self.cost_per_million_units_usd is None or self.predicted_cost_per_million_units_usd is None:
            return None
        return self.cost_per_million_units_usd - self.predicted_cost_per_million_units_usd

    @property
    def served_per_accelerator_s(self):
        """Units served per second on each declared accelerator: the throughput the period's cost divides by."""
        return self.units_served / Decimal(str(self.period_s)) / self.deployment.accelerator_count


class MeteredAlarm(models.Model):
    """A metered period whose cost per million units rose beyond the alarm threshold and above the interval of the
    deployment's earlier periods (metering.regressions), with the change explained."""

    period = models.OneToOneField(MeteredPeriod, on_delete=models.CASCADE, related_name="alarm")
    baseline = models.ForeignKey(MeteredPeriod, on_delete=models.CASCADE, related_name="baseline_for_alarms")
    window_size = models.PositiveSmallIntegerField()
    threshold_fraction = models.DecimalField(max_digits=6, decimal_places=4)
    change_fraction = models.DecimalField(max_digits=12, decimal_places=6)
    # The trailing median's interval over the earlier periods (metering.regressions.trailing_interval); null from one.
    baseline_interval_low_usd = models.DecimalField(
        max_digits=PER_MILLION_DIGITS, decimal_places=PER_MILLION_PLACES, null=True, blank=True
    )
    baseline_interval_high_usd = models.DecimalField(
        max_digits=PER_MILLION_DIGITS, decimal_places=PER_MILLION_PLACES, null=True, blank=True
    )
    attribution = models.JSONField(help_text="USD per million and share of the change, by price, throughput, "
                                   "utilization; and the cause in words.")  # fmt: skip
    explanation = models.TextField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Set by manage.py recheck_alarms when the rules in force no longer raise it (metering.regressions), with why;
    # the row is kept, as the alarm was seen.
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # GET /metered-alarms/?acknowledged=false and the /metrics count: open alarms, newest first.
            models.Index(fields=["acknowledged_at", "-created_at"], name="metered_alarm_open_created_idx"),
        ]

    def __str__(self):
        return f"alarm on metered period {self.period_id}: +{self.change_fraction:.1%}"

"""What hardware exists and what it costs, over time.

Prices are facts observed at a time: a new price is a new row, and no row is ever updated, so every
past cost can be recomputed from the rows that were in force then.
"""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone


def identity_change_error(changes: dict[str, tuple[str, str]]) -> str:
    named = ", ".join(f"{name} {stored!r} -> {now!r}" for name, (stored, now) in changes.items())
    return (
        f"an accelerator's vendor, model and kind are fixed once created (its prices and runs are stored under "
        f"them): {named} refused. Add the right accelerator instead."
    )


class AcceleratorKind(models.TextChoices):
    GPU = "gpu", "GPU"
    CPU = "cpu", "CPU"
    OTHER = "accelerator", "Other accelerator"


class Accelerator(models.Model):
    """One kind of device that can run inference (a GPU model, an AI accelerator, or a CPU slice).

    Its identity (IDENTITY_FIELDS) is fixed once created: prices, runs and published results are stored
    against it, and the catalog files find it by vendor and model. Renaming a T4 to "MI355X" would move
    their history under another device's name; a wrong identity is fixed by adding the right accelerator.
    Specs (memory, TFLOPS, TDP...) are not history and may be brought up to date.
    """

    IDENTITY_FIELDS = ("vendor", "model", "kind")

    vendor = models.CharField(max_length=64)
    model = models.CharField(max_length=128)
    kind = models.CharField(max_length=16, choices=AcceleratorKind.choices, default=AcceleratorKind.GPU)
    architecture = models.CharField(max_length=128, blank=True)
    form_factor = models.CharField(max_length=160, blank=True)
    memory_gib = models.FloatField(null=True, blank=True)
    memory_bandwidth_gbps = models.FloatField(null=True, blank=True)
    fp32_tflops = models.FloatField(null=True, blank=True)
    tf32_tflops_dense = models.FloatField(null=True, blank=True)
    fp16_tflops_dense = models.FloatField(null=True, blank=True)
    bf16_tflops_dense = models.FloatField(null=True, blank=True)
    fp8_tflops_dense = models.FloatField(null=True, blank=True)
    int8_tops_dense = models.FloatField(null=True, blank=True)
    tdp_w = models.FloatField(null=True, blank=True)
    launch_year = models.PositiveSmallIntegerField(null=True, blank=True)
    vcpu_count = models.PositiveSmallIntegerField(null=True, blank=True)
    # A local CPU is priced like the cloud CPU slice of its size: prices are looked up on that row.
    priced_as = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="priced_for")
    source = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["vendor", "model"]
        constraints = [
            # load_catalog and the agents' device matching look accelerators up by (vendor, model).
            models.UniqueConstraint(fields=["vendor", "model"], name="accelerator_vendor_model_unique"),
        ]

    def __str__(self):
        return f"{self.vendor} {self.model}"

    def save(self, *args, **kwargs):
        changes = self.identity_changes()
        if changes:
            raise ValueError(f"{identity_change_error(changes)} (accelerator {self.pk})")
        super().save(*args, **kwargs)

    def identity_changes(self) -> dict[str, tuple[str, str]]:
        """{field: (stored, now)} for each identity field this unsaved state changes; empty for a new row."""
        if self.pk is None:
            return {}
        stored = Accelerator.objects.filter(pk=self.pk).values(*self.IDENTITY_FIELDS).first()
        if stored is None:
            return {}
        return {name: (stored[name], getattr(self, name)) for name in self.IDENTITY_FIELDS
                if stored[name] != getattr(self, name)}  # fmt: skip

    @property
    def pricing_accelerator(self) -> "Accelerator":
        return self.priced_as or self

    def peak_tflops(self, precision: str) -> float | None:
        """Dense peak compute for a precision name used by the harness (fp32, tf32, bf16, fp16, fp8, int8)."""
        field = {
            "fp32": "fp32_tflops",
            "tf32": "tf32_tflops_dense",
            "fp16": "fp16_tflops_dense",
            "bf16": "bf16_tflops_dense",
            "fp8": "fp8_tflops_dense",
            "int8": "int8_tops_dense",
        }.get(precision)
        return getattr(self, field) if field else None


class PriceKind(models.TextChoices):
    PURCHASE = "purchase", "Purchase"
    CLOUD_ON_DEMAND = "cloud_on_demand", "Cloud on-demand"
    CLOUD_SPOT = "cloud_spot", "Cloud spot"
    CLOUD_RESERVED_1Y = "cloud_reserved_1y", "Cloud reserved (1 year)"
    # All-in cost per accelerator-hour of owning or contracting the chip (hardware_catalog/data/tco_2026.csv).
    OWNED_HYPERSCALER_4Y = "owned_hyperscaler_4y", "Owned by a hyperscaler (4 years, all-in)"
    OWNED_NEOCLOUD_4Y = "owned_neocloud_4y", "Owned by a neocloud (4 years, all-in)"
    RENTED_3Y_CONTRACT = "rented_3y_contract", "Rented on a 3-year contract (all-in)"


class PriceUnit(models.TextChoices):
    PER_INSTANCE_HOUR = "per_instance_hour", "per instance-hour"
    PER_UNIT = "per_unit", "per unit (purchase)"
    PER_ACCELERATOR_HOUR = "per_accelerator_hour", "per accelerator-hour (all-in)"


class PriceQuerySet(models.QuerySet):
    def current(self):
        """Rows no correction has replaced (a corrected row stays stored, cited by what used it)."""
        return self.filter(correction__isnull=True)

    def in_force(self, at=None):
        """The rows in force at `at` (default now): for each offering, the latest row with effective_from <= at,
        as corrected.

        An offering is (accelerator, kind, provider, region, instance type): `Price.OFFERING_FIELDS`. Done in one
        query with a NOT EXISTS on a newer row, so it works the same on SQLite and PostgreSQL. The one statement of
        the rule: every other "price in force" (selectors.prices_in_force, ...) filters through it.
        """
        at = at or timezone.now()
        same_offering = {name: models.OuterRef(name) for name in Price.OFFERING_FIELDS}
        newer = Price.objects.current().filter(
            **same_offering, effective_from__lte=at, effective_from__gt=models.OuterRef("effective_from")
        )
        return self.current().filter(effective_from__lte=at).exclude(models.Exists(newer))

    def for_accelerator(self, accelerator: Accelerator):
        return self.filter(accelerator=accelerator.pricing_accelerator)


# The window a price may take effect in (docs/cost-model.md, "Dates a price may take effect"): none before 2000
# (no inference accelerator was priced earlier: 0001-01-01 is a slip), none more than a year ahead (a price
# announced for a later date). A row dated 9999-12-31 would take effect after every real price of its
# offering and so, prices being append-only in time, block them all.
PRICE_EFFECTIVE_FROM_EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
PRICE_EFFECTIVE_FROM_MAX_AHEAD = timedelta(days=366)


def effective_from_window_error(effective_from: datetime, now: datetime | None = None) -> str | None:
    """Why ``effective_from`` is outside the window a price may take effect in; None when inside."""
    latest = (now or timezone.now()) + PRICE_EFFECTIVE_FROM_MAX_AHEAD
    if effective_from < PRICE_EFFECTIVE_FROM_EARLIEST:
        earliest = _utc(PRICE_EFFECTIVE_FROM_EARLIEST)
        return f"{_utc(effective_from)} is before {earliest}, the earliest a price may take effect"
    if effective_from > latest:
        return (
            f"{_utc(effective_from)} is more than {PRICE_EFFECTIVE_FROM_MAX_AHEAD.days} days ahead (after "
            f"{_utc(latest)}): a price may be recorded at most that long before it takes effect"
        )
    return None


class Price(models.Model):
    """One observed price for one offering, effective from a time. Never updated: a change is a new row.

    Append-only in time: a new row of an offering must take effect after the offering's latest stored row,
    so the price in force at a past time never changes after the fact. A wrong stored row is fixed by a
    correction: a new row that ``corrects`` it (same offering and effective_from), with a reason, recorded
    by someone at ``created_at``; the corrected row stays stored (docs/cost-model.md).
    """

    OFFERING_FIELDS = ("accelerator_id", "kind", "provider", "region", "instance_type")

    accelerator = models.ForeignKey(Accelerator, on_delete=models.PROTECT, related_name="prices")
    kind = models.CharField(max_length=32, choices=PriceKind.choices)
    provider = models.CharField(max_length=128)
    region = models.CharField(max_length=64, blank=True)
    instance_type = models.CharField(max_length=128, blank=True)
    accelerators_per_instance = models.PositiveSmallIntegerField(default=1)
    price_usd = models.DecimalField(max_digits=14, decimal_places=6)
    unit = models.CharField(max_length=32, choices=PriceUnit.choices)
    effective_from = models.DateTimeField()
    as_of = models.CharField(max_length=64, blank=True, help_text="When the price was observed (ISO-8601 interval).")
    source = models.TextField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    recorded_by = models.CharField(
        max_length=150, blank=True, help_text="Who recorded the row: a user, or the import that added it."
    )
    corrects = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="correction",
        help_text="The stored row this one corrects (same offering and effective_from); empty for a new price.",
    )
    correction_reason = models.TextField(blank=True, help_text="Why the corrected row was wrong.")

    objects = PriceQuerySet.as_manager()

    class Meta:
        ordering = ["accelerator", "kind", "provider", "region", "instance_type", "-effective_from"]
        constraints = [
            # One price per offering per instant: re-importing a file can never create a second copy. A correction
            # shares its corrected row's instant; `corrects` is one-to-one, so each row has at most one.
            models.UniqueConstraint(
                fields=["accelerator", "kind", "provider", "region", "instance_type", "effective_from"],
                condition=Q(corrects__isnull=True),
                name="price_offering_effective_unique",
            ),
            # A correction is an explicit act: it says why.
            models.CheckConstraint(
                condition=Q(corrects__isnull=True) | ~Q(correction_reason=""), name="price_correction_has_reason"
            ),
            # A price is positive and bounded; the upper bound also rejects NaN on PostgreSQL numeric.
            models.CheckConstraint(
                condition=Q(price_usd__gt=0) & Q(price_usd__lt=Decimal("100000000")),
                name="price_usd_positive_bounded",
            ),
            models.CheckConstraint(condition=Q(accelerators_per_instance__gte=1), name="price_accels_ge_1"),
        ]
        indexes = [
            # price_in_force: filter by offering, then the latest effective_from.
            models.Index(fields=["accelerator", "kind", "effective_from"], name="price_accel_kind_eff_idx"),
        ]

    def __str__(self):
        return f"{self.accelerator} {self.kind} {self.provider} {self.instance_type} ${self.price_usd}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("Prices are never overwritten: add a new Price row with a later effective_from.")
        super().save(*args, **kwargs)

    def offering(self) -> dict:
        return {name: getattr(self, name) for name in self.OFFERING_FIELDS}

    def history_error(self) -> tuple[str, str] | None:
        """(field, why) this row, not yet stored, cannot join its offering's history; None when it can."""
        window_error = effective_from_window_error(self.effective_from)
        if window_error is not None:
            return "effective_from", window_error
        if self.corrects_id is not None:
            return self._correction_error()
        latest = Price.objects.filter(**self.offering()).aggregate(latest=models.Max("effective_from"))["latest"]
        if latest is not None and self.effective_from <= latest:
            return "effective_from", (
                f"{_utc(self.effective_from)} is not after {_utc(latest)}, the latest stored price of this offering: "
                "prices are append-only in time, so that a past as_of answer never changes. To fix a stored price, "
                "record a correction of that row (corrects, with a correction_reason)."
            )
        return None

    def _correction_error(self) -> tuple[str, str] | None:
        corrected = self.corrects
        if not self.correction_reason.strip():
            return "correction_reason", "a correction says why the corrected row was wrong"
        if Price.objects.filter(corrects=corrected).exists():
            return "corrects", f"price {corrected.pk} is already corrected (by price {corrected.correction.pk})"
        if corrected.offering() != self.offering() or corrected.effective_from != self.effective_from:
            return "corrects", (
                f"a correction keeps the offering and effective_from of the row it corrects "
                f"({corrected}, effective from {_utc(corrected.effective_from)})"
            )
        return None

    def clean(self):
        super().clean()
        if self.pk is None and self.accelerator_id and self.effective_from and self.kind:
            error = self.history_error()
            if error is not None:
                raise ValidationError({error[0]: error[1]})

    @property
    def is_purchase(self) -> bool:
        return self.kind == PriceKind.PURCHASE

    @property
    def usd_per_accelerator(self) -> Decimal:
        """Per accelerator: USD per hour for cloud rows, USD per unit for purchase rows."""
        return self.price_usd / self.accelerators_per_instance


class OnPremAssumptions(models.Model):
    """A named, versioned set of on-premises assumptions. Never edited: a change is a new version."""

    name = models.CharField(max_length=64, default="default")
    version = models.PositiveIntegerField(default=1)
    amortization_years = models.DecimalField(max_digits=6, decimal_places=2)
    usd_per_kwh = models.DecimalField(max_digits=8, decimal_places=4)
    pue = models.DecimalField(max_digits=4, decimal_places=2)
    opex_fraction_per_year = models.DecimalField(max_digits=5, decimal_places=4)
    host_capex_share_usd = models.DecimalField(
        max_digits=12, decimal_places=2, help_text="Share of the host server's price carried by each accelerator."
    )
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            # Snapshots cite (name, version): the pair must name exactly one set.
            models.UniqueConstraint(fields=["name", "version"], name="onprem_name_version_unique"),
            models.CheckConstraint(condition=Q(amortization_years__gt=0), name="onprem_amortization_gt_0"),
            models.CheckConstraint(condition=Q(pue__gte=1), name="onprem_pue_ge_1"),
            models.CheckConstraint(condition=Q(usd_per_kwh__gte=0), name="onprem_tariff_ge_0"),
        ]
        verbose_name_plural = "on-premises assumptions"

    def __str__(self):
        return f"{self.name} v{self.version}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("Assumption sets are versioned: create a new version instead of editing this one.")
        super().save(*args, **kwargs)


def _utc(moment) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"

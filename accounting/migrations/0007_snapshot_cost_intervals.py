"""Snapshots keep their figure's cost interval: the cost per million at the high and at the low end of their point's
throughput interval over its rounds (results 0004), as accounting.history.snapshots now stores it. Stored snapshots
whose point has an interval get theirs; the others (published results, runs measured before intervals) stay null."""

from decimal import ROUND_HALF_UP, Decimal

from django.db import migrations, models

QUANTUM = Decimal(1).scaleb(-12)  # accounting.pricing.costing.PER_MILLION_QUANTUM, frozen as of this migration


def _cost_at(hourly: Decimal, throughput: float, utilization: Decimal) -> Decimal:
    # accounting.pricing.costing.cost_per_million, frozen: hourly / (throughput x 3600 x utilization) x 1e6, half-up.
    per_million = hourly / (Decimal(str(throughput)) * 3600 * utilization) * 1_000_000
    return per_million.quantize(QUANTUM, rounding=ROUND_HALF_UP)


def backfill(apps, schema_editor):
    """As accounting.rankings.intervals.cost_interval_per_million computes it for a new snapshot: the point's interval
    scaled to the snapshot's throughput in its unit, the high throughput giving the low cost."""
    CostSnapshot = apps.get_model("accounting", "CostSnapshot")
    rows = CostSnapshot.objects.filter(
        point__throughput_low_per_s__gt=0, point__throughput_high_per_s__isnull=False, point__throughput_per_s__gt=0
    ).values_list("pk", "cost_per_million_usd", "total_usd_per_hour", "utilization", "throughput_per_s",
                  "point__throughput_per_s", "point__throughput_low_per_s", "point__throughput_high_per_s")  # fmt: skip
    changed = []
    for pk, cost, hourly, utilization, unit_throughput, median, low, high in rows.iterator(chunk_size=2000):
        scale = unit_throughput / median
        cost_low, cost_high = _cost_at(hourly, high * scale, utilization), _cost_at(hourly, low * scale, utilization)
        if cost_low <= cost <= cost_high:  # an interval that does not hold its figure is not stored (as snapshots)
            changed.append(CostSnapshot(pk=pk, cost_per_million_low_usd=cost_low, cost_per_million_high_usd=cost_high))
    CostSnapshot.objects.bulk_update(changed, ["cost_per_million_low_usd", "cost_per_million_high_usd"],
                                     batch_size=2000)  # fmt: skip


class Migration(migrations.Migration):
    dependencies = [
        ("accounting", "0006_series_per_system"),
        ("hardware_catalog", "0004_longer_descriptions"),
        ("results", "0004_point_intervals_and_validity"),
    ]

    operations = [
        migrations.AddField(
            model_name="costsnapshot",
            name="cost_per_million_high_usd",
            field=models.DecimalField(
                blank=True,
                decimal_places=12,
                max_digits=24,
                null=True,
                help_text="Cost per million at the low end of the point's throughput interval.",
            ),
        ),
        migrations.AddField(
            model_name="costsnapshot",
            name="cost_per_million_low_usd",
            field=models.DecimalField(
                blank=True,
                decimal_places=12,
                max_digits=24,
                null=True,
                help_text="Cost per million at the high end of the point's throughput interval.",
            ),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="costsnapshot",
            constraint=models.CheckConstraint(
                condition=models.Q(cost_per_million_high_usd__isnull=True, cost_per_million_low_usd__isnull=True)
                | models.Q(
                    cost_per_million_high_usd__gte=models.F("cost_per_million_usd"),
                    cost_per_million_low_usd__lte=models.F("cost_per_million_usd"),
                ),
                name="snapshot_cost_interval_holds_cost",
            ),
        ),
    ]

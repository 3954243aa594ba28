"""Costs per million kept to 12 decimals (4 made one rounding step a 17 % move at $0.0006 per million).

Snapshots stored before this were rounded to 4 decimals; they are refilled from their own stored inputs
(total USD per hour, throughput, utilization), so an unchanged re-run compares equal to them rather than
differing by a rounding step.
"""

from django.db import migrations, models

from accounting.pricing import costing


def refill_costs(apps, schema_editor):
    CostSnapshot = apps.get_model("accounting", "CostSnapshot")
    for snapshot in CostSnapshot.objects.iterator():
        snapshot.cost_per_million_usd = costing.cost_per_million(
            hourly_usd=snapshot.total_usd_per_hour,
            throughput_per_s=snapshot.throughput_per_s,
            utilization=snapshot.utilization,
        )
        snapshot.save(update_fields=["cost_per_million_usd"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounting", "0003_snapshots_point_at_results"),
    ]

    operations = [
        migrations.AlterField(
            model_name="costsnapshot",
            name="cost_per_million_usd",
            field=models.DecimalField(decimal_places=12, max_digits=24),
        ),
        migrations.RunPython(refill_costs, migrations.RunPython.noop),
    ]

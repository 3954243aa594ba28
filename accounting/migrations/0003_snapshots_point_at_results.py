"""Cost snapshots' foreign keys follow BenchmarkRun and OperatingPoint to ``results`` (state only: same tables)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounting", "0002_snapshot_llm_sla"),
        ("results", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="costsnapshot",
                    name="point",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="cost_snapshots",
                        to="results.operatingpoint",
                    ),
                ),
                migrations.AlterField(
                    model_name="costsnapshot",
                    name="run",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="cost_snapshots",
                        to="results.benchmarkrun",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]

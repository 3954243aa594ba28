"""BenchmarkRun, OperatingPoint, PublishedResult and QuarantinedPayload now belong to ``results``.

State only: results/0001 took them over with their tables (``db_table``) and rows; nothing is dropped here.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("agents", "0006_endpoints"),
        ("accounting", "0003_snapshots_point_at_results"),
        ("results", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="OperatingPoint"),
                migrations.DeleteModel(name="PublishedResult"),
                migrations.DeleteModel(name="QuarantinedPayload"),
                migrations.DeleteModel(name="BenchmarkRun"),
            ],
            database_operations=[],
        ),
    ]

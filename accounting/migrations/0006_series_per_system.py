"""Series name their system: a stored snapshot's series key gains the system its run was measured on (the agent
host, or the published submitter's system), as accounting.history.snapshots.series_key now computes it, so a series
never mixes two systems' results. Snapshots of measured runs without an agent keep their key."""

import hashlib

from django.db import migrations, models


def _digest(*parts) -> str:
    return hashlib.sha256("|".join("" if part is None else str(part) for part in parts).encode()).hexdigest()


def _system(run, published) -> str:
    # The rule of accounting.history.snapshots.system_of, frozen as of this migration.
    if run.origin == "measured":
        return f"agent:{run.agent_id}" if run.agent_id else ""
    record = published.get(run.pk)
    name = f"{record[0]}/{record[1]}" if record else run.external_source
    return f"published:{name} x{run.accelerator_count}"


def rekey(apps, schema_editor):
    CostSnapshot = apps.get_model("accounting", "CostSnapshot")
    BenchmarkRun = apps.get_model("results", "BenchmarkRun")
    PublishedResult = apps.get_model("results", "PublishedResult")
    published = {run_id: (submitter, system) for run_id, submitter, system in
                 PublishedResult.objects.values_list("run_id", "submitter", "system")}  # fmt: skip
    systems = {run.pk: _system(run, published) for run in BenchmarkRun.objects.only(
        "pk", "origin", "agent_id", "external_source", "accelerator_count")}  # fmt: skip
    changed = []
    for snapshot in CostSnapshot.objects.only("pk", "series_key", "run_id").iterator(chunk_size=2000):
        system = systems.get(snapshot.run_id, "")
        if system:
            snapshot.series_key = _digest(snapshot.series_key, system)
            changed.append(snapshot)
    CostSnapshot.objects.bulk_update(changed, ["series_key"], batch_size=2000)


class Migration(migrations.Migration):
    dependencies = [
        ("accounting", "0005_alarm_withdrawn"),
        ("results", "0001_initial"),
    ]

    operations = [
        migrations.AlterField(
            model_name="costsnapshot",
            name="series_key",
            field=models.CharField(
                help_text="Digest of (accelerator, workload, scenario, backend, precision, offering, SLA, system).",
                max_length=64,
            ),
        ),
        migrations.RunPython(rekey, migrations.RunPython.noop),
    ]

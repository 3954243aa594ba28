from django.core.management.base import BaseCommand

from accounting.history.alarms import check_regressions
from accounting.history.snapshots import recompute_all


class Command(BaseCommand):
    help = "Rebuild every cost snapshot from runs, prices and assumption sets; idempotent (stored ones stay)."

    def handle(self, *args, **options):
        created = recompute_all()
        alarms = check_regressions(created)
        self.stdout.write(f"{len(created)} snapshot(s) added, {len(alarms)} alarm(s) raised")

from accounting.history.alarms import check_regressions
from accounting.history.snapshots import recompute_all
from inferledger.commands import InputCheckedCommand


class Command(InputCheckedCommand):
    help = "Rebuild every cost snapshot from runs, prices and assumption sets; idempotent (stored ones stay)."

    def handle(self, *args, **options):
        created = recompute_all()
        alarms = check_regressions(created)
        self.stdout.write(f"{len(created)} snapshot(s) added, {len(alarms)} alarm(s) raised")

from accounting.history.alarms import recheck_open_alarms
from inferledger.commands import InputCheckedCommand


class Command(InputCheckedCommand):
    help = (
        "Judge every open alarm again under the rules in force and withdraw (not delete) those they no longer "
        "raise: a rise within the threshold or the measurement's uncertainty (overlapping cost intervals), or a "
        "second alarm for one change. Run it after an upgrade that changes the rules (accounting 0004 stored costs "
        "to 12 decimals: alarms raised by the old 4-decimal rounding are withdrawn; accounting 0007 gave snapshots "
        "their cost intervals: alarms within them are withdrawn). Idempotent."
    )

    def handle(self, *args, **options):
        withdrawn = recheck_open_alarms()
        for alarm in withdrawn:
            self.stdout.write(f"alarm {alarm.pk} withdrawn: {alarm.withdrawn_reason}")
        self.stdout.write(f"{len(withdrawn)} alarm(s) withdrawn")

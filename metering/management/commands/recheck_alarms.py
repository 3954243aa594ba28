from accounting.history.alarms import recheck_open_alarms
from inferledger.commands import InputCheckedCommand
from metering.regressions import recheck_open_alarms as recheck_open_metered_alarms


class Command(InputCheckedCommand):
    # Here, in metering, because it judges both kinds of alarm: accounting's (benchmark and published figures) and the
    # metered deployments' (metering stands on accounting, not the reverse).
    help = (
        "Judge every open alarm again under the rules in force and withdraw (not delete) those they no longer "
        "raise: a rise within the threshold or the measurement's uncertainty (overlapping cost intervals), or a "
        "second alarm for one change. Run it after an upgrade that changes the rules (accounting 0004 stored costs "
        "to 12 decimals: alarms raised by the old 4-decimal rounding are withdrawn; accounting 0007 gave snapshots "
        "their cost intervals: alarms within them are withdrawn; metering 0003: a metered day is compared with the "
        "same weekday, so days raised against the busier weekdays before them are withdrawn). Idempotent."
    )

    def handle(self, *args, **options):
        cost_alarms = recheck_open_alarms()
        for alarm in cost_alarms:
            self.stdout.write(f"alarm {alarm.pk} withdrawn: {alarm.withdrawn_reason}")
        metered_alarms = recheck_open_metered_alarms()
        for alarm in metered_alarms:
            self.stdout.write(f"metered alarm {alarm.pk} withdrawn: {alarm.withdrawn_reason}")
        self.stdout.write(
            f"{len(cost_alarms) + len(metered_alarms)} alarm(s) withdrawn "
            f"({len(cost_alarms)} cost, {len(metered_alarms)} metered)"
        )

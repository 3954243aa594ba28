"""Signal receivers: keep the cost history current when runs, prices or assumption sets arrive.

Connected in AccountingConfig.ready(). Each receiver calls one service and then the regression check;
snapshots are idempotent, so a repeated signal adds nothing.
"""

from accounting.history.alarms import check_regressions
from accounting.history.published import snapshots_for_published
from accounting.history.snapshots import snapshots_for_assumptions, snapshots_for_price, snapshots_for_run
from accounting.rankings.cache import forget_data_version


def on_run_ingested(sender, run, **kwargs):
    check_regressions(snapshots_for_run(run))


def on_published_stored(sender, run_ids, **kwargs):
    """Published results arrive as history, not as a change: their snapshots raise no alarm (a newer round
    of the same system is a new submission, not a regression anyone can act on)."""
    snapshots_for_published(run_ids)
    forget_data_version()


def on_price_saved(sender, instance, created, raw=False, **kwargs):
    if created and not raw:
        check_regressions(snapshots_for_price(instance))


def on_assumptions_saved(sender, instance, created, raw=False, **kwargs):
    if created and not raw:
        check_regressions(snapshots_for_assumptions(instance))

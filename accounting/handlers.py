"""Signal receivers: keep the cost history current when runs, prices or assumption sets arrive.

Connected in AccountingConfig.ready(). Each receiver calls one service and then the regression check;
snapshots are idempotent, so a repeated signal adds nothing.
"""

import logging

from accounting.history.alarms import check_regressions
from accounting.history.published import snapshots_for_published
from accounting.history.snapshots import snapshots_for_assumptions, snapshots_for_price
from accounting.rankings.cache import forget_data_version
from accounting.tasks import price_run

logger = logging.getLogger(__name__)


def on_run_ingested(sender, run, **kwargs):
    """Price the run in a control task of its own, after ingest committed it (in-process without a broker): a
    failure to price never reaches ingest, so a stored run is never reported as quarantined for it."""
    try:
        price_run.delay(str(run.pk))
    except Exception:  # a broker outage: the run is stored; recompute_costs prices it
        logger.exception("run %s is stored; queuing its pricing failed (`manage.py recompute_costs` prices it)", run.pk)


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

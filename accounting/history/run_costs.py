"""Price a stored run: its cost snapshots and the regression check they may raise (one service, two callers:
the control task that runs after ingest commits, and `manage.py recompute_costs`).

Pricing is not part of storing: a run is stored (or quarantined) by ingest on its own, and priced after its
transaction has committed. A failure to price therefore leaves the run stored and listed, with no snapshot
yet; the failure is logged with the run's id, and `recompute_costs` prices it once the cause is fixed
(snapshots are idempotent, so pricing a run twice adds nothing).
"""

from __future__ import annotations

import logging

from accounting.history.alarms import check_regressions
from accounting.history.snapshots import snapshots_for_run
from results.models import BenchmarkRun

logger = logging.getLogger(__name__)


def run_price(*, run_id) -> int:
    """Snapshot the stored run on every offering and check them for regressions; returns the snapshots added
    (0 when the run is gone). Raises what costing raises: the caller decides how a failure is reported."""
    run = BenchmarkRun.objects.filter(pk=run_id).first()
    if run is None:
        return 0
    try:
        snapshots = snapshots_for_run(run)
        check_regressions(snapshots)
    except Exception:
        logger.exception(
            "run %s is stored but could not be priced; `manage.py recompute_costs` prices it once the cause is fixed",
            run_id,
        )
        raise
    return len(snapshots)

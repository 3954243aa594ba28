"""Celery tasks of accounting: thin control-plane tasks that take ids and call one service."""

from accounting.history.run_costs import run_price
from inferledger.control_tasks import control_task


@control_task("accounting.price_run")
def price_run(self, run_id: str) -> int:
    """Price a run ingest has stored and committed (accounting.history.run_costs); waits out a database outage."""
    return run_price(run_id=run_id)

"""Where a figure came from, said the same way by every answer (API rows, dashboard tables, charts, CSVs).

A run is *measured* (by an InferLedger agent, or `manage.py bench` here) or *published* (an MLPerf result
imported by results.mlperf, stored with origin ``external`` and its PublishedResult: round, division,
submitter, system).
"""

from results.models import BenchmarkRun, PublishedResult, RunOrigin

ORIGIN_LABELS = {RunOrigin.MEASURED: "measured", RunOrigin.EXTERNAL: "published"}


def origin_label(origin: str) -> str:
    """'measured' or 'published'."""
    return ORIGIN_LABELS.get(origin, origin)


def published_of(run: BenchmarkRun) -> PublishedResult | None:
    """The run's published record (None for a measured run, or a published run imported without one)."""
    if run.origin != RunOrigin.EXTERNAL:
        return None
    try:
        return run.published
    except PublishedResult.DoesNotExist:
        return None


def published_label(published: PublishedResult) -> str:
    """'MLPerf v5.1 closed, Dell, XE9680_H200_SXM_141GBx8_TRT': round, division, submitter, system."""
    return f"MLPerf {published.round} {published.division}, {published.submitter}, {published.system}"


def source_label(
    origin: str, external_source: str, agent_name: str | None = None, published: PublishedResult | None = None
) -> str:
    """Where a figure came from: 'published: MLPerf v4.1 closed, Dell, <system>' or 'measured on agent gpu01'."""
    if origin == RunOrigin.EXTERNAL:
        where = published_label(published) if published is not None else (external_source or "MLPerf")
        return f"published: {where}"
    return (
        f"measured on agent {agent_name}"
        if agent_name
        else "measured here (no agent: manage.py bench or a direct ingest)"
    )


def run_source(run: BenchmarkRun) -> str:
    """`source_label` of one run (its agent and published record loaded, or one query each)."""
    agent = run.agent.name if run.origin == RunOrigin.MEASURED and run.agent_id else None
    return source_label(run.origin, run.external_source, agent, published_of(run))


def published_by_source(runs) -> dict[str, PublishedResult]:
    """For the published runs among ``runs`` (a queryset): external_source -> one of its PublishedResults
    (round, division, submitter and system are the same for every result of one source). One query."""
    records = (
        PublishedResult.objects.filter(run__in=runs.filter(origin=RunOrigin.EXTERNAL))
        .select_related("run")
        .only("round", "division", "submitter", "system", "run__external_source")
    )
    return {record.run.external_source: record for record in records}

"""Shared test settings: LoadGen runs short enough for a unit test suite."""

from agents.harness.scenarios import RunSettings

FAST = RunSettings(
    min_duration_ms=200,
    min_query_count=16,
    warmup_queries=3,
    performance_sample_count=8,
    offline_batch_sizes=(1, 4),
    server_load_fractions=(0.5,),
    server_max_batch_size=4,
    accuracy_batch_size=2,
    preset="test",
)

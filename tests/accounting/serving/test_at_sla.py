"""The serving fronts read under an LLM SLA, the SLA decided by accounting.sla (hand-computed values)."""

from decimal import Decimal

import pytest

from accounting.serving.at_sla import read_at_sla
from accounting.serving.front import Refused
from accounting.sla import Sla
from tests.accounting.serving.test_front import A, B, C, point


def test_it_reads_at_an_sla_from_the_points_meeting_ttft_only():
    slow_start = point("B-slow", 100.0, 7200.0, ttft_p99_ms=2500.0)  # would beat B, but TTFT p99 > 2 s

    sla = read_at_sla([A, B, C, slow_start], Sla(ttft_p99_ms=Decimal(2000), tpot_p99_ms=Decimal(100)))

    assert sla.reading.exact and sla.reading.lower.key == "B"  # 1000 / 100 ms = 10 tok/s/user
    assert ("B-slow", "TTFT p99 2500 ms > 2000 ms") in [(p.key, why) for p, why in sla.front.excluded]


def test_it_reads_the_most_productive_point_meeting_an_sla_that_every_point_beats():
    # TPOT p99 <= 400 ms asks 1000 / 400 = 2.5 tok/s/user; the slowest point, A, serves 5 (TPOT 200 ms):
    # every point meets the SLA, so the reading is A's 8000 / 8 = 1000 tok/s per accelerator, as measured.
    sla = read_at_sla([A, B, C], Sla(ttft_p99_ms=Decimal(2000), tpot_p99_ms=Decimal(400)))

    assert sla.reading.exact and sla.reading.lower.key == "A"
    assert sla.reading.output_tokens_per_s_per_accelerator == 1000.0


def test_it_refuses_an_sla_no_point_meets_with_the_rankings_reason():
    # Fastest TPOT is C's 50 ms: TPOT <= 40 ms is met by none.
    with pytest.raises(Refused, match="no operating point meets TTFT p99 <= 2000 ms and TPOT p99 <= 40 ms"):
        read_at_sla([A, B, C], Sla(ttft_p99_ms=Decimal(2000), tpot_p99_ms=Decimal(40)))

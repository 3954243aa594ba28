"""The serving front and its reading, with hand-computed values (no database, no Django)."""

import pytest

from accounting.serving.front import (
    InteractivitySource,
    Refused,
    ServingPoint,
    best_covered_target,
    combine_runs,
    front_curve,
    pareto_front,
    read_at_interactivity,
)

MEASURED = InteractivitySource.MEASURED_TPOT_P99


def point(key, tpot_ms, replica_tps, *, accelerators=8, ttft_p99_ms=500.0, **fields):
    source = None if tpot_ms is None else fields.pop("source", MEASURED)
    return ServingPoint(
        key=key, label=f"system {key}", output_tokens_per_s=replica_tps, accelerators_per_replica=accelerators,
        tpot_ms=tpot_ms, interactivity_source=source, ttft_p99_ms=ttft_p99_ms, **fields,
    )  # fmt: skip


# Per accelerator (8 per replica): A 5 tok/s/user at 1000 tok/s, B 10 at 800, C 20 at 200.
A = point("A", 200.0, 8000.0)
B = point("B", 100.0, 6400.0)
C = point("C", 50.0, 1600.0)
DOMINATED = point("D", 125.0, 4800.0)  # 8 tok/s/user at 600: B is faster per user and more productive
OFFLINE = point("O", None, 9600.0, scenario="offline")


def test_it_derives_interactivity_and_throughput_per_accelerator():
    assert A.interactivity_tps_per_user == 5.0  # 1000 / 200 ms
    assert A.output_tokens_per_s_per_accelerator == 1000.0  # 8000 / 8 accelerators


def test_it_keeps_the_three_efficient_points_in_rising_interactivity():
    front = pareto_front([C, OFFLINE, A, DOMINATED, B])

    assert [p.key for p in front.points] == ["A", "B", "C"]
    reasons = dict((p.key, why) for p, why in front.excluded)
    assert reasons["D"] == "dominated by system B (B)"
    assert reasons["O"].startswith("no TPOT measured or bounded (offline)")
    assert front.interactivity_range == (5.0, 20.0)


def test_it_keeps_one_of_two_identical_points():
    twin = point("B2", 100.0, 6400.0)

    front = pareto_front([twin, B])

    assert [p.key for p in front.points] == ["B"]
    assert front.excluded[0][0].key == "B2"


def test_it_reads_a_target_between_two_points_with_pchip():
    # Front (x tok/s/user, y tok/s/accelerator): (5, 1000), (10, 800), (20, 200).
    # Secants: d0 = (800-1000)/5 = -40, d1 = (200-800)/10 = -60; h0 = 5, h1 = 10.
    # PCHIP slope at x=10: weighted harmonic mean, (w1+w2)/m1 = w1/d0 + w2/d1 with w1 = 2h1+h0 = 25,
    #   w2 = h1+2h0 = 20: 45/m1 = -25/40 - 20/60 = -23/24, m1 = -1080/23.
    # Slope at x=5 (three-point end formula): ((2h0+h1)d0 - h0 d1)/(h0+h1) = (-800+300)/15 = -100/3.
    # Hermite at t = 0.5 on [5, 10]: 0.5*1000 + 0.125*5*m0 + 0.5*800 - 0.125*5*m1
    #   = 900 - 125/6 + 675/23 = 900 + 1175/138 = 908.5145 tok/s per accelerator.
    reading = read_at_interactivity(pareto_front([A, B, C]), 7.5)

    assert reading.output_tokens_per_s_per_accelerator == pytest.approx(900 + 1175 / 138, rel=1e-12)
    assert (reading.lower.key, reading.upper.key) == ("A", "B")
    assert not reading.exact
    assert "PchipInterpolator" in reading.method


def test_it_stays_between_the_bracketing_points_everywhere():
    front = pareto_front([A, B, C])
    for tenth in range(50, 201):
        target = tenth / 10
        value = read_at_interactivity(front, target).output_tokens_per_s_per_accelerator
        assert 200.0 - 1e-9 <= value <= 1000.0 + 1e-9
        if target >= 10:
            assert value <= 800.0 + 1e-9


def test_it_returns_a_measured_point_exactly_without_interpolating():
    reading = read_at_interactivity(pareto_front([A, B, C]), 10)

    assert reading.exact
    assert reading.output_tokens_per_s_per_accelerator == 800.0
    assert reading.lower is reading.upper is B


def test_it_refuses_a_target_above_the_front_with_its_reason():
    with pytest.raises(Refused) as refused:
        read_at_interactivity(pareto_front([A, B, C]), 25)

    assert refused.value.reason == (
        "target 25 tokens/s per user is above the fastest measured interactivity 20 (system C); refusing to extrapolate"
    )


def test_it_refuses_a_target_below_the_front_with_its_reason():
    with pytest.raises(Refused, match=r"below the slowest measured interactivity 5 \(system A\); refusing"):
        read_at_interactivity(pareto_front([A, B, C]), 4)


def test_it_refuses_when_no_point_has_an_interactivity():
    with pytest.raises(Refused, match="no point with a known interactivity.*offline"):
        read_at_interactivity(pareto_front([OFFLINE]), 5)


def test_it_labels_an_interactivity_taken_from_the_scenario_bound():
    bound = point("S", 200.0, 8000.0, source=InteractivitySource.TPOT_BOUND)

    assert "not a measured figure" in bound.interactivity_source
    assert bound.interactivity_tps_per_user == 5.0


def test_it_reads_an_interval_from_several_rounds():
    rounds = point("B", 100.0, 6400.0, output_tokens_per_s_values=(6000.0, 6400.0, 6800.0))

    reading = read_at_interactivity(pareto_front([A, rounds, C]), 10)

    assert reading.interval == (750.0, 850.0)  # 6000 / 8 and 6800 / 8


def test_it_rejects_a_point_without_throughput():
    with pytest.raises(ValueError, match="output_tokens_per_s must be a finite number greater than zero"):
        point("X", 100.0, 0.0)


def test_it_imports_nothing_from_django():
    import subprocess
    import sys
    from pathlib import Path

    code = "import accounting.serving.front, accounting.serving.economics, sys; assert 'django' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[3], check=True)


def test_it_defaults_to_the_target_most_fronts_can_be_read_at():
    other = pareto_front([point("E", 125.0, 4000.0), point("F", 40.0, 1000.0)])  # 8 .. 25 tok/s/user
    lone = pareto_front([point("G", 20.0, 800.0)])  # 50 tok/s/user only

    # Ends: 5, 20 (A..C), 8, 25 (E..F), 50. Covered by two fronts: 8 and 20; the slower wins.
    assert best_covered_target([pareto_front([A, B, C]), other, lone]) == 8.0
    assert best_covered_target([pareto_front([OFFLINE])]) is None


def test_it_draws_the_curve_it_reads_from():
    front = pareto_front([A, B, C])

    curve = front_curve(front, samples=11)

    assert curve[0] == (5.0, 1000.0) and curve[-1] == (20.0, 200.0)
    assert (10.0, 800.0) in curve  # measured points lie on it
    for x, y in curve:  # the drawn curve is the one the readings come from
        assert y == pytest.approx(read_at_interactivity(front, x).output_tokens_per_s_per_accelerator, rel=1e-12)


def test_it_combines_several_runs_of_one_point_into_their_medians_and_range():
    runs = [point("R1", 100.0, 6000.0), point("R2", 125.0, 6800.0), point("R3", 80.0, 6400.0, ttft_p99_ms=900.0)]

    combined = combine_runs(runs, key="runs R1,R2,R3", label="system X (3 runs)")

    assert combined.output_tokens_per_s == 6400.0  # median of 6000, 6800, 6400
    assert combined.tpot_ms == 100.0  # median of 100, 125, 80 ms
    assert combined.ttft_p99_ms == 900.0  # the worst run's
    assert combined.interval_per_accelerator == (750.0, 850.0)  # 6000 / 8 .. 6800 / 8
    assert combined.interactivity_source == InteractivitySource.MEASURED_TPOT_P99

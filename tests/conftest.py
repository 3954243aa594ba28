from datetime import UTC, datetime
from decimal import Decimal

import pytest
from rest_framework.test import APIClient


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user(username="analyst", password="pw-analyst-123")


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

    load_accelerators()
    import_prices(SHIPPED_PRICES_CSV)


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

from datetime import UTC, datetime

import pytest

pytestmark = pytest.mark.django_db


def test_it_lists_the_shipped_accelerators_with_specs(api, catalog):
    response = api.get("/api/v1/accelerators/")
    assert response.status_code == 200
    assert response.data["count"] >= 14
    h100 = next(row for row in response.data["results"] if row["model"] == "H100 SXM5 80GB")
    assert h100["fp8_tflops_dense"] == 1979 and h100["memory_bandwidth_gbps"] == 3350


def test_it_filters_accelerators_by_vendor_and_architecture_and_searches_models(api, catalog):
    amd = api.get("/api/v1/accelerators/?vendor=amd").data["results"]
    assert [row["model"] for row in amd] == ["MI300X"]
    hopper = api.get("/api/v1/accelerators/?architecture=Hopper").data["results"]
    assert {row["model"] for row in hopper} == {"H100 SXM5 80GB", "H100 PCIe 80GB", "H200 SXM 141GB"}
    found = api.get("/api/v1/accelerators/?search=A100").data["results"]
    assert len(found) == 4


def test_it_returns_the_price_in_force_on_a_date_when_a_later_price_exists(api, make_accelerator, make_price):
    gpu = make_accelerator()
    old = make_price(gpu, "2.00", effective_from=datetime(2024, 1, 1, tzinfo=UTC))
    make_price(gpu, "1.50", effective_from=datetime(2025, 1, 1, tzinfo=UTC))
    make_price(gpu, "0.40", kind="cloud_spot", effective_from=datetime(2024, 1, 1, tzinfo=UTC))
    response = api.get(f"/api/v1/prices/?accelerator={gpu.pk}&kind=cloud_on_demand&as_of=2024-07-01")
    assert response.status_code == 200
    assert [row["id"] for row in response.data["results"]] == [old.pk]
    assert response.data["results"][0]["price_usd"] == "2.000000"
    assert response.data["results"][0]["currency"] == "USD"


def test_it_says_which_parameter_is_wrong_in_as_of(api, catalog):
    response = api.get("/api/v1/prices/?as_of=yesterday")
    assert response.status_code == 400
    assert "as_of" in response.data


def test_it_refuses_anonymous_users_with_401(anonymous_api, catalog):
    assert anonymous_api.get("/api/v1/accelerators/").status_code == 401
    assert anonymous_api.get("/api/v1/prices/").status_code == 401


def test_it_lets_only_staff_write(api, staff_api, make_accelerator):
    gpu = make_accelerator()
    body = {
        "accelerator": gpu.pk,
        "kind": "cloud_on_demand",
        "provider": "X",
        "price_usd": "1.25",
        "unit": "per_instance_hour",
        "effective_from": "2025-05-01T00:00:00Z",
        "source": "quote",
    }
    assert api.post("/api/v1/prices/", body, format="json").status_code == 403
    created = staff_api.post("/api/v1/prices/", body, format="json")
    assert created.status_code == 201, created.data
    again = staff_api.post("/api/v1/prices/", body, format="json")
    assert again.status_code == 400 and "effective_from" in str(again.data)


def test_it_has_no_way_to_change_or_delete_a_price(staff_api, make_accelerator, make_price):
    price = make_price(make_accelerator(), "2.00")
    assert staff_api.patch(f"/api/v1/prices/{price.pk}/", {"price_usd": "9"}, format="json").status_code == 405
    assert staff_api.delete(f"/api/v1/prices/{price.pk}/").status_code == 405


def test_it_rejects_a_negative_price_naming_the_field(staff_api, make_accelerator):
    body = {
        "accelerator": make_accelerator().pk,
        "kind": "cloud_on_demand",
        "provider": "X",
        "price_usd": "-1",
        "unit": "per_instance_hour",
        "effective_from": "2025-05-01T00:00:00Z",
        "source": "quote",
    }
    response = staff_api.post("/api/v1/prices/", body, format="json")
    assert response.status_code == 400 and "price_usd" in response.data


def test_zero_accelerators_per_instance_is_a_validation_error_naming_the_field_not_a_duplicate(
    staff_api, make_accelerator
):
    body = {
        "accelerator": make_accelerator().pk,
        "kind": "cloud_on_demand",
        "provider": "X",
        "instance_type": "x.large",
        "accelerators_per_instance": 0,
        "price_usd": "4.00",
        "unit": "per_instance_hour",
        "effective_from": "2025-05-01T00:00:00Z",
        "source": "quote",
    }
    response = staff_api.post("/api/v1/prices/", body, format="json")
    assert response.status_code == 400 and set(response.data) == {"accelerators_per_instance"}
    assert "greater than or equal to 1" in str(response.data["accelerators_per_instance"])


def test_it_authenticates_with_a_token(catalog, staff):
    from knox.models import AuthToken
    from rest_framework.test import APIClient

    _, token = AuthToken.objects.create(user=staff)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/v1/accelerators/").status_code == 200
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert client.get("/api/v1/accelerators/").status_code == 401

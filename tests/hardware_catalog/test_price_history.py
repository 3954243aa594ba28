from datetime import UTC, datetime

import pytest

from hardware_catalog.models import Price

pytestmark = pytest.mark.django_db


def test_it_never_overwrites_a_price(make_accelerator, make_price):
    price = make_price(make_accelerator(), "2.00")
    price.price_usd = "3.00"
    with pytest.raises(ValueError, match="never overwritten"):
        price.save()


def test_it_finds_the_price_in_force_at_a_time(make_accelerator, make_price):
    gpu = make_accelerator()
    old = make_price(gpu, "2.00", effective_from=datetime(2024, 1, 1, tzinfo=UTC))
    new = make_price(gpu, "1.50", effective_from=datetime(2025, 1, 1, tzinfo=UTC))
    assert list(Price.objects.in_force(datetime(2024, 6, 1, tzinfo=UTC))) == [old]
    assert list(Price.objects.in_force(datetime(2025, 6, 1, tzinfo=UTC))) == [new]
    assert list(Price.objects.in_force(datetime(2023, 6, 1, tzinfo=UTC))) == []


def test_it_keeps_offerings_apart_when_finding_prices_in_force(make_accelerator, make_price):
    gpu = make_accelerator()
    spot = make_price(gpu, "0.50", kind="cloud_spot")
    on_demand = make_price(gpu, "2.00")
    other_region = make_price(gpu, "2.10", region="eu-test-1")
    assert set(Price.objects.in_force(datetime(2026, 1, 1, tzinfo=UTC))) == {spot, on_demand, other_region}


@pytest.mark.parametrize(
    "cpu_model, vendor, model",
    [
        ("AMD EPYC 7B13", "AMD", "EPYC 7B13 (2 vCPU)"),
        ("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", "Intel", "Xeon Platinum 8375C (2 vCPU)"),
        ("Neoverse-N1", "Neoverse-N1", "Neoverse-N1 (2 vCPU)"),
    ],
)
def test_it_registers_the_local_cpu_priced_as_the_cloud_slice_of_its_size(catalog, cpu_model, vendor, model):
    from hardware_catalog.services import register_local_cpu

    cpu = register_local_cpu(cpu_model=cpu_model, vcpu_count=2)
    assert (cpu.vendor, cpu.model, cpu.kind) == (vendor, model, "cpu")
    assert cpu.priced_as.model == "x86-64 CPU (2 vCPU)"
    assert Price.objects.for_accelerator(cpu).filter(kind="cloud_on_demand").exists()
    assert register_local_cpu(cpu_model=cpu_model, vcpu_count=2) == cpu


# Prices are append-only in time per offering; a fix is an explicit, recorded correction (issue #17).
JAN_2025, MAR_2025 = datetime(2025, 1, 1, tzinfo=UTC), datetime(2025, 3, 1, tzinfo=UTC)
JUN_2025, JAN_2026 = datetime(2025, 6, 1, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def offering(make_accelerator, make_price):
    gpu = make_accelerator()
    first = make_price(gpu, "0.526", effective_from=JAN_2025)
    make_price(gpu, "0.600", effective_from=JAN_2026)
    return gpu, first


def _body(gpu, price_usd, effective_from, **more) -> dict:
    body = {"accelerator": gpu.pk, "kind": "cloud_on_demand", "provider": "TestCloud", "region": "us-test-1",
            "instance_type": "t.1", "accelerators_per_instance": 1, "price_usd": price_usd,
            "unit": "per_instance_hour", "effective_from": effective_from.isoformat(), "source": "test"}  # fmt: skip
    return body | more


def _in_force_usd(at) -> str:
    return str(Price.objects.in_force(at).get().price_usd)


@pytest.mark.parametrize("effective_from", [MAR_2025, datetime(2019, 1, 1, tzinfo=UTC), JAN_2026],
                         ids=["between two rows", "years back", "at the latest row"])  # fmt: skip
def test_the_api_refuses_a_back_dated_price_so_a_past_answer_never_changes(staff_api, offering, effective_from):
    gpu, _ = offering
    assert _in_force_usd(JUN_2025) == "0.526000"
    response = staff_api.post("/api/v1/prices/", _body(gpu, "5.26", effective_from), format="json")
    assert response.status_code == 400
    assert "is not after 2026-01-01 00:00 UTC, the latest stored price of this offering" in str(
        response.data["effective_from"]
    )
    assert _in_force_usd(JUN_2025) == "0.526000" and Price.objects.count() == 2


def test_the_api_adds_a_later_price_and_records_who(staff_api, staff, offering):
    gpu, _ = offering
    response = staff_api.post("/api/v1/prices/", _body(gpu, "0.55", datetime(2026, 6, 1, tzinfo=UTC)), format="json")
    assert response.status_code == 201, response.data
    assert response.data["recorded_by"] == staff.username and response.data["corrects"] is None


def test_a_correction_is_an_explicit_recorded_act(staff_api, staff, offering):
    gpu, first = offering
    body = _body(gpu, "0.500", JAN_2025, corrects=first.pk, correction_reason="the quote was for a 3-year term")
    response = staff_api.post("/api/v1/prices/", body, format="json")
    assert response.status_code == 201, response.data
    correction = Price.objects.get(pk=response.data["id"])
    assert correction.recorded_by == staff.username and correction.created_at
    assert _in_force_usd(JUN_2025) == "0.500000"  # the corrected figure, from the correction on
    assert Price.objects.filter(pk=first.pk).exists()  # the corrected row stays, for what cited it

    again = staff_api.post("/api/v1/prices/", body | {"price_usd": "0.4"}, format="json")
    assert again.status_code == 400 and "already corrected" in str(again.data["corrects"])


@pytest.mark.parametrize(
    ("change", "field", "says"),
    [
        ({"correction_reason": ""}, "correction_reason", "says why"),
        ({"effective_from": MAR_2025.isoformat()}, "corrects", "keeps the offering and effective_from"),
        ({"region": "eu-test-1"}, "corrects", "keeps the offering and effective_from"),
    ],
)
def test_a_correction_must_say_why_and_keep_its_rows_place(staff_api, offering, change, field, says):
    gpu, first = offering
    body = _body(gpu, "0.500", JAN_2025, corrects=first.pk, correction_reason="typo") | change
    response = staff_api.post("/api/v1/prices/", body, format="json")
    assert response.status_code == 400 and says in str(response.data[field]), response.data


def test_the_admin_form_refuses_a_back_dated_price(offering):
    from django.core.exceptions import ValidationError

    gpu, _ = offering
    back_dated = Price(accelerator=gpu, kind="cloud_on_demand", provider="TestCloud", region="us-test-1",
                       instance_type="t.1", price_usd="5.26", unit="per_instance_hour", effective_from=MAR_2025,
                       source="admin")  # fmt: skip
    with pytest.raises(ValidationError, match="append-only in time"):
        back_dated.full_clean()  # what the admin's add form runs


def test_the_admin_add_page_shows_the_back_dated_error(client, django_user_model, offering):
    gpu, _ = offering
    client.force_login(django_user_model.objects.create_superuser("root", password="pw-root-123"))
    form = _body(gpu, "5.26", MAR_2025) | {"effective_from_0": "2025-03-01", "effective_from_1": "00:00:00"}
    response = client.post("/admin/hardware_catalog/price/add/", form)
    assert response.status_code == 200  # the form again, with the error
    assert b"append-only in time" in response.content and Price.objects.count() == 2

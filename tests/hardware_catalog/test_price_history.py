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

"""An accelerator's vendor, model and kind are fixed once created (issue #26, item 7).

Before: staff could PUT/PATCH an accelerator's identity under its stored prices and runs (the fuzz run
renamed a T4 to "NVIDIA MI355X"), after which the shipped prices.csv no longer loaded; nothing recorded it.
"""

import pytest
from django.core.management import call_command

from hardware_catalog.models import Accelerator

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.mark.parametrize(
    "change",
    [{"model": "MI355X"}, {"vendor": "AMD"}, {"kind": "cpu"}, {"vendor": "NVIDIA", "model": "MI355X"}],
    ids=["model", "vendor", "kind", "vendor+model"],
)
def test_the_api_refuses_to_change_an_accelerators_identity(staff_api, catalog, change):
    t4 = Accelerator.objects.get(vendor="NVIDIA", model="T4")
    response = staff_api.patch(f"/api/v1/accelerators/{t4.pk}/", change, format="json")
    changed = {name for name, value in change.items() if getattr(t4, name) != value}
    assert response.status_code == 400 and set(response.json()) == changed
    assert "fixed once created" in next(iter(response.json().values()))[0]
    t4.refresh_from_db()
    assert (t4.vendor, t4.model, t4.kind) == ("NVIDIA", "T4", "gpu")


def test_a_put_that_renames_a_t4_is_refused_and_the_shipped_prices_still_load(staff_api, catalog):
    t4 = Accelerator.objects.get(vendor="NVIDIA", model="T4")
    body = staff_api.get(f"/api/v1/accelerators/{t4.pk}/").json() | {"vendor": "NVIDIA", "model": "MI355X"}
    assert staff_api.put(f"/api/v1/accelerators/{t4.pk}/", body, format="json").status_code == 400
    call_command("load_catalog", verbosity=0)  # the shipped accelerators and prices load again, unchanged


def test_specs_are_not_identity_and_may_be_updated(staff_api, catalog):
    t4 = Accelerator.objects.get(vendor="NVIDIA", model="T4")
    response = staff_api.patch(f"/api/v1/accelerators/{t4.pk}/", {"memory_gib": 16.0, "model": "T4"}, format="json")
    assert response.status_code == 200 and response.json()["memory_gib"] == 16.0


def test_saving_a_changed_identity_is_refused_below_the_api(catalog):
    t4 = Accelerator.objects.get(vendor="NVIDIA", model="T4")
    t4.model = "MI355X"
    with pytest.raises(ValueError, match="fixed once created"):
        t4.save()


def test_the_admin_change_form_shows_identity_read_only(client, django_user_model, catalog):
    client.force_login(django_user_model.objects.create_superuser("root", password="pw-root-123"))
    t4 = Accelerator.objects.get(vendor="NVIDIA", model="T4")
    form = client.get(f"/admin/hardware_catalog/accelerator/{t4.pk}/change/").content.decode()
    assert 'name="memory_gib"' in form
    assert 'name="model"' not in form and 'name="vendor"' not in form and 'name="kind"' not in form

"""The LLM serving chart in headless Chromium: fronts, the target line, read-outs, hover on a reading."""

import pytest

from tests.accounting.conftest import make_run  # noqa: F401 - the fixture that stores runs
from tests.accounting.serving.data import make_sweep

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_it_draws_the_fronts_the_target_and_the_readings(make_accelerator, make_price, make_run, browser):  # noqa: F811
    make_sweep(make_accelerator, make_price, make_run)

    browser.visit(
        "/serving/?workload=llama3.1-8b&interactivity_tps_per_user=15&price_kind=cloud_on_demand",
        screenshot="serving-measured-sweep", min_charts=1,
    )  # fmt: skip

    chart = browser.page.locator("#serving-chart")
    assert chart.locator(".scatterlayer .trace").count() >= 4  # two fronts and two readings
    assert "target 15.00 tok/s per user" in chart.inner_text()
    assert browser.page.locator("#table-readout tbody tr").count() == 2
    assert "↔" in browser.page.locator("#table-readout").inner_text()


def test_it_draws_llama2_70b_fronts_from_the_shipped_published_results(shipped_data, browser):
    browser.visit(
        "/serving/?workload=llama2-70b-99&interactivity_tps_per_user=10&price_kind=cloud_on_demand",
        screenshot="serving-llama2-70b-published", min_charts=1,
    )  # fmt: skip

    readouts = browser.page.locator("#table-readout tbody tr")
    assert readouts.count() >= 4
    assert "published: MLPerf v" in browser.page.locator("#table-readout").inner_text()
    origins = browser.page.locator("#table-readout tbody tr td:last-child").all_inner_texts()
    assert origins and set(origins) == {"published"}
    # Hovering a reading (a diamond on the target line) shows the two points it was read between.
    diamond = browser.page.locator("#serving-chart .scatterlayer .trace").last.locator("path.point").first
    box = diamond.bounding_box()  # plotly's drag layer takes the pointer: move the mouse there
    browser.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    hover = browser.page.locator("#serving-chart .hoverlayer")
    hover.get_by_text("interpolated between", exact=False).wait_for(timeout=5_000)
    browser.check(screenshot="serving-llama2-70b-hover", min_charts=1)

"""Driving headless Chromium (Debian's /usr/bin/chromium) with Playwright against a live server.

Every page visited is checked the same way: no console errors or uncaught exceptions, every plotly
chart drawn (its `.main-svg` is in the DOM), and no request to any host but the live server; anything
else is aborted by a route, so a page that needs a CDN fails here. Screenshots go to
test-artifacts/screenshots/, which CI keeps.
"""

import os
from pathlib import Path
from urllib.parse import urlparse

import pytest

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
ALL_CHARTS_DRAWN = """() => {
  const charts = [...document.querySelectorAll('.plotly-graph-div')];
  return charts.every(chart => chart.querySelector('svg.main-svg'));
}"""


def require_chromium() -> None:
    if CHROMIUM.exists():
        return
    reason = f"headless Chromium not found at {CHROMIUM}: install it with `apt-get install -y chromium` (.ci/run does)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and the browser tests need it: {reason}", pytrace=False)
    pytest.skip(reason)


class Browser:
    """One logged-in browser context on the live server, recording errors and outside requests."""

    def __init__(self, playwright_browser, base_url: str):
        self.base_url = base_url.rstrip("/")
        self.context = playwright_browser.new_context(viewport={"width": 1440, "height": 1000})
        self.errors: list[str] = []
        self.outside_requests: list[str] = []
        self.context.route("**/*", self._only_local)
        self.page = self.context.new_page()
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        self.page.on("request", self._note_request)

    def _note_request(self, request) -> None:
        host = urlparse(request.url).hostname
        if request.url.startswith(("http://", "https://")) and host not in LOCAL_HOSTS:
            self.outside_requests.append(request.url)

    def _only_local(self, route) -> None:
        url = route.request.url
        if url.startswith(("http://", "https://")) and urlparse(url).hostname not in LOCAL_HOSTS:
            self.outside_requests.append(url)
            route.abort("blockedbyclient")
        else:
            route.continue_()

    def log_in(self, username: str, password: str) -> None:
        self.page.goto(f"{self.base_url}/accounts/login/")
        self.page.fill("input[name=username]", username)
        self.page.fill("input[name=password]", password)
        self.page.click("button[type=submit]")
        self.page.wait_for_load_state("load")
        assert "/accounts/login/" not in self.page.url, "login failed"

    def visit(self, path: str, *, screenshot: str, min_charts: int = 0) -> None:
        response = self.page.goto(f"{self.base_url}{path}")
        assert response is not None and response.status == 200, f"{path}: HTTP {response and response.status}"
        self.check(screenshot=screenshot, min_charts=min_charts)

    def check(self, *, screenshot: str, min_charts: int = 0) -> None:
        self.page.wait_for_load_state("networkidle")
        self.page.wait_for_function(ALL_CHARTS_DRAWN, timeout=15_000)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / f"{screenshot}.png"), full_page=True)
        charts = self.page.locator(".plotly-graph-div").count()
        assert charts >= min_charts, f"{self.page.url}: {charts} charts, expected at least {min_charts}"
        assert not self.errors, f"{self.page.url}: console errors {self.errors}"
        assert not self.outside_requests, f"{self.page.url}: tried to reach {self.outside_requests}"

    def close(self) -> None:
        self.context.close()


CHARTS = """() => [...document.querySelectorAll('.plotly-graph-div')].map(el => {
  const full = el._fullLayout || {};
  const axis = name => full[name] ? {type: full[name].type, range: full[name].range,
                                     title: (full[name].title && full[name].title.text) || ''} : null;
  return {
    id: el.id,
    title: (full.title && full.title.text) || '',
    x: axis('xaxis'),
    y: axis('yaxis'),
    annotations: (full.annotations || []).map(a => a.text || ''),
    units: [...new Set(el.data.map(t => t.meta && t.meta.unit).filter(Boolean))],
    ticks: [...el.querySelectorAll('.xtick text, .ytick text')].map(t => t.textContent),
  };
})"""


def charts(page) -> list[dict]:
    """Every plotly chart on the page as plotly itself laid it out (figure JSON, not pixels)."""
    return page.evaluate(CHARTS)


def _date(text: str):
    from datetime import datetime

    return datetime.fromisoformat(str(text).replace(" ", "T")[:19])


def assert_charts_hold_up(page) -> list[dict]:
    """The chart defects of issue 16, on every chart of the page: no SI-prefixed tick ("600µ"); one unit per
    y-axis, named in its title; a time axis spanning at least a day unless the chart says it has one date."""
    from datetime import timedelta

    found = charts(page)
    for chart in found:
        where = f"{page.url} #{chart['id']}"
        assert not [tick for tick in chart["ticks"] if "µ" in tick], f"{where}: ticks {chart['ticks']}"
        assert len(chart["units"]) <= 1, f"{where}: units {chart['units']} share one y-axis"
        for unit in chart["units"]:
            assert unit.replace("_", " ") in chart["y"]["title"], f"{where}: y-axis {chart['y']['title']!r} ≠ {unit}"
        if chart["x"] and chart["x"]["type"] == "date":
            start, end = (_date(value) for value in chart["x"]["range"])
            one_date = any(text.startswith("One date only") for text in chart["annotations"])
            assert end - start >= timedelta(days=1) or one_date, f"{where}: x spans {end - start}, not said"
    return found


LABEL_BOXES = """(id) => [...document.querySelectorAll(`#${id} .textpoint text`)]
  .filter(t => t.textContent).map(t => { const b = t.getBoundingClientRect();
    return {text: t.textContent, left: b.left, right: b.right, top: b.top, bottom: b.bottom}; })"""


def _overlapping(boxes: list[dict]) -> list[tuple[str, str]]:
    """Pairs of on-screen boxes (each with its text) that intersect."""
    return [
        (a["text"], b["text"])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]
    ]


def overlapping_labels(page, chart_id: str) -> list[tuple[str, str]]:
    """Pairs of text labels drawn on top of each other in one chart (as laid out on screen)."""
    boxes = page.evaluate(LABEL_BOXES, chart_id)
    return _overlapping(boxes)


CHART_PARTS = """(id) => ['.gtitle', '.g-xtitle', '.g-ytitle', '.legend'].flatMap(selector =>
  [...document.querySelectorAll(`#${id} ${selector}`)].map(node => { const b = node.getBoundingClientRect();
    return {text: selector, left: b.left, right: b.right, top: b.top, bottom: b.bottom}; }))
  .filter(b => b.right > b.left && b.bottom > b.top)"""


def overlapping_chart_parts(page, chart_id: str) -> list[tuple[str, str]]:
    """Pairs among a chart's title, axis titles and legend drawn on top of each other (as laid out on screen)."""
    boxes = page.evaluate(CHART_PARTS, chart_id)
    assert {box["text"] for box in boxes} >= {".gtitle", ".g-xtitle", ".g-ytitle"}, boxes
    return _overlapping(boxes)

"""A real Prometheus (Debian's `prometheus` package) for a test: its own config, data directory and free port.

The system service is never used; each test's server scrapes only the targets the test names, every second.
"""

import json
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

SCRAPE_INTERVAL_S = 1


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class PrometheusServer:
    process: subprocess.Popen
    url: str
    log_path: Path

    def query(self, promql: str, at: float | None = None) -> list[dict]:
        params = {"query": promql} | ({"time": f"{at:.3f}"} if at is not None else {})
        answer = httpx.get(f"{self.url}/api/v1/query", params=params, timeout=10).json()
        assert answer["status"] == "success", answer
        return answer["data"]["result"]

    def wait_for_scrape_after(self, job: str, moment: float, timeout_s: float = 30) -> None:
        """Until a scrape of `job` that started after `moment` (a UNIX time) has been stored."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            targets = httpx.get(f"{self.url}/api/v1/targets", timeout=10).json()["data"]["activeTargets"]
            for target in targets:
                if target["labels"]["job"] == job and target["health"] == "up":
                    scraped = target["lastScrape"]
                    if _unix(scraped) > moment:
                        return
            time.sleep(0.2)
        raise AssertionError(f"Prometheus did not scrape {job} after {moment}: {self.log_tail()}")

    def log_tail(self) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-20:])

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)


def _unix(rfc3339: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).timestamp()


def start_prometheus(directory: Path, scrape_configs: list[dict]) -> PrometheusServer:
    """Prometheus scraping `scrape_configs` (as in prometheus.yml), or skip/fail naming the package."""
    binary = shutil.which("prometheus")
    if binary is None:
        import os

        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true and Debian's prometheus package is not installed", pytrace=False)
        pytest.skip("no prometheus binary (apt-get install -y prometheus)")
    config = {"global": {"scrape_interval": f"{SCRAPE_INTERVAL_S}s", "scrape_timeout": "1s"},
              "scrape_configs": scrape_configs}  # fmt: skip
    config_path = directory / "prometheus.yml"
    config_path.write_text(json.dumps(config))  # JSON is YAML
    port = free_port()
    log_path = directory / "prometheus.log"
    process = subprocess.Popen(
        [
            binary,
            f"--config.file={config_path}",
            f"--storage.tsdb.path={directory / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=log_path.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    server = PrometheusServer(process, f"http://127.0.0.1:{port}", log_path)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"prometheus exited with {process.returncode}: {server.log_tail()}")
        try:
            if httpx.get(f"{server.url}/-/ready", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    server.stop()
    raise AssertionError(f"prometheus was not ready in 30 s: {server.log_tail()}")

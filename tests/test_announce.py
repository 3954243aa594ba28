"""make run says "Serving" only once the server answers (inferledger/announce.py), and says so when it never does."""

import http.server
import socket
import subprocess
import sys
import threading
from pathlib import Path

ANNOUNCE = Path(__file__).resolve().parents[1] / "inferledger" / "announce.py"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def announce(url: str, timeout_s: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ANNOUNCE), url, "--timeout", str(timeout_s)], capture_output=True, text=True, timeout=60
    )


def test_it_says_serving_once_the_server_answers_even_with_an_error_status():
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)  # answers 501 to GET
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        result = announce(url, timeout_s=30)
    finally:
        server.shutdown()
    assert result.returncode == 0
    assert result.stdout.startswith(f"Serving InferLedger on {url}")


def test_it_says_the_server_never_answered_instead_of_serving():
    url = f"http://127.0.0.1:{free_port()}/"  # nothing listens there
    result = announce(url, timeout_s=1)
    assert result.returncode == 1
    assert "Serving InferLedger" not in result.stdout
    assert f"did not answer on {url} within 1 s" in result.stdout

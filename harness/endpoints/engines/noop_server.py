"""A no-op OpenAI-compatible and v2 server (stdlib only): answers at once, so what a client measures against it
is the client's own cost per request (plus a loopback round trip). ``benchmarks/endpoint_client.py`` uses it to
measure our client's overhead; the tests use it to check that failed requests are counted.

Paths: ``/v1/completions`` and ``/v1/chat/completions`` stream ``max_tokens`` one-token chunks and a usage
chunk; ``/v2/models/{name}/infer`` echoes a one-element output; ``/fail/...`` answers 500, and ``/flaky/...``
answers 500 to every other request. Requests whose
``Authorization`` header differs from ``api_key`` (when one is set) get 401.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as real servers set it: with Nagle on, each small chunk after the headers waits for the
    # client's delayed ACK (about 40 ms on Linux), and the no-op server would measure that, not the client.
    disable_nagle_algorithm = True
    api_key = ""
    flaky_count = [0]

    def log_message(self, *args):  # quiet: the benchmark times this server
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # noqa: N802 - the stdlib's name
        if self.path == "/metrics":
            self._send(200, b"# no metrics\n", "text/plain")
        else:
            self._send(200, b'{"data": [{"id": "noop"}]}')

    def do_POST(self):  # noqa: N802 - the stdlib's name
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if self.api_key and self.headers.get("Authorization") != f"Bearer {self.api_key}":
            self._send(401, b'{"error": "unauthorised"}')
        elif self.path.startswith("/fail") or (self.path.startswith("/flaky") and self._flaky()):
            self._send(500, b'{"error": "failing on purpose"}')
        elif self.path.startswith("/v2/models/"):
            self._send(
                200,
                json.dumps({"outputs": [{"name": "out", "shape": [1], "datatype": "FP32", "data": [0.0]}]}).encode(),
            )
        elif self.path.removeprefix("/flaky") in ("/v1/completions", "/v1/chat/completions"):
            self._stream(body, chat=self.path.endswith("chat/completions"))
        else:
            self._send(404, b'{"error": "no such path"}')

    def _flaky(self) -> bool:
        self.flaky_count[0] += 1
        return self.flaky_count[0] % 2 == 0

    def _stream(self, body: dict, chat: bool) -> None:
        tokens = int(body.get("max_tokens") or 1)
        prompt = body.get("prompt")
        prompt_tokens = len(prompt) if isinstance(prompt, list) else 8
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        choice = (lambda: {"delta": {"content": "x"}, "index": 0}) if chat else (lambda: {"text": "x", "index": 0})
        events = [{"choices": [choice()]} for _ in range(tokens)]
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": tokens, "total_tokens": prompt_tokens + tokens}
        events.append({"choices": [], "usage": usage})
        for event in events:
            self._chunk(f"data: {json.dumps(event)}\n\n".encode())
        self._chunk(b"data: [DONE]\n\n")
        self._chunk(b"")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # a client closing its kept-alive connection is normal
        pass


class NoopServer:
    """``with NoopServer(port) as server: ...`` serves on 127.0.0.1:port in a thread."""

    def __init__(self, port: int, api_key: str = ""):
        handler = type("Handler", (_Handler,), {"api_key": api_key, "flaky_count": [0]})
        self.httpd = _Server(("127.0.0.1", port), handler)
        self.url = f"http://127.0.0.1:{port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="noop-server", daemon=True)

    def __enter__(self) -> NoopServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def main() -> None:
    """Serve in a process of its own (``python -m harness.endpoints.engines.noop_server PORT``), so that a
    client measured against it does not share its interpreter lock or its CPU accounting."""
    import sys
    import time

    with NoopServer(int(sys.argv[1])):
        print("ready", flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()

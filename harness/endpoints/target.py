"""An endpoint under test: a running inference server, its protocol, and what each request asks of it.

The API key is a secret: it is held in a field that never appears in ``repr``, in ``to_public_dict`` (what
a result payload and a log may show) or in the URL shown anywhere (credentials in a URL are removed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from workloads.registry import DECLARED_NAME_PATTERN

PROTOCOLS = ("openai-completions", "openai-chat", "oip-v2")
ENDPOINT_SCENARIOS = ("concurrency-sweep", "server")
NAME_PATTERN = DECLARED_NAME_PATTERN  # workloads.registry: endpoints, traces and model files alike
SECRET_QUERY_KEYS = re.compile(r"(key|token|secret|password|sig|auth)", re.IGNORECASE)


def redact_url(url: str) -> str:
    """The URL without user info and with secret-looking query values masked."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    query = "&".join(
        f"{k}=***" if SECRET_QUERY_KEYS.search(k) else f"{k}={v}"
        for k, _, v in (pair.partition("=") for pair in parts.query.split("&") if pair)
    )
    return urlunsplit((parts.scheme, host, parts.path, query, ""))


@dataclass(frozen=True)
class Endpoint:
    """A server to benchmark. ``name`` makes the workload id ``endpoint:<name>``: an endpoint's runs rank only
    against runs of the same declared endpoint workload."""

    name: str
    protocol: str
    url: str  # base URL: http://host:port (the protocol's paths are appended)
    model: str
    prompt_tokens: int = 128
    output_tokens: int = 64
    api_key: str = field(default="", repr=False)
    # Prometheus metrics of the server (vLLM, KServe: <url>/metrics; Triton: port 8002); "" to not scrape.
    metrics_url: str = ""
    # vLLM's extension: generate exactly ``output_tokens`` (no early end of sequence), so every request
    # does the same work; servers that reject unknown fields can turn it off.
    ignore_eos: bool = True
    # Open Inference Protocol: the input tensor's name, shape (batch first), datatype.
    v2_input_name: str = "input-0"
    v2_input_shape: tuple[int, ...] = (1, 4)
    v2_datatype: str = "FP32"
    # The hardware the server runs on, as the catalog names it ("NVIDIA H100 SXM5 80GB"), and how many serve it:
    # the result states it, and the control plane prices the run on it ("" = not declared: the agent's device).
    accelerator: str = ""
    accelerator_count: int = 1

    def __post_init__(self):
        errors = endpoint_errors(self)
        if errors:
            raise ValueError("; ".join(f"endpoint.{k}: {v}" for k, v in errors.items()))

    @property
    def workload_id(self) -> str:
        return f"endpoint:{self.name}"

    @property
    def is_generative(self) -> bool:
        return self.protocol != "oip-v2"

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def to_public_dict(self) -> dict:
        """Everything but the secret: what a payload, an API answer or a log line may carry."""
        return {
            "name": self.name,
            "protocol": self.protocol,
            "url": redact_url(self.url),
            "model": self.model,
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "metrics_url": redact_url(self.metrics_url) if self.metrics_url else "",
            "authenticated": bool(self.api_key),
        } | ({"accelerator": self.accelerator, "accelerator_count": self.accelerator_count} if self.accelerator else {})

    @classmethod
    def from_dict(cls, data: dict) -> Endpoint:
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError("; ".join(f"endpoint.{key}: unknown field" for key in unknown))
        values = dict(data)
        if "v2_input_shape" in values:
            values["v2_input_shape"] = tuple(values["v2_input_shape"])
        return cls(**values)


# The stored declaration's spelling of the Open Inference Protocol input (agents.Endpoint.v2_input).
DECLARATION_ONLY_FIELDS = ("v2_input",)
V2_INPUT_FIELDS = ("name", "shape", "datatype")


def endpoint_errors(endpoint) -> dict[str, str]:
    """Each problem of an endpoint declaration (an Endpoint or a dict), keyed by field."""
    get = endpoint.get if isinstance(endpoint, dict) else lambda k, d=None: getattr(endpoint, k, d)
    errors = {}
    if isinstance(endpoint, dict):
        known = (*Endpoint.__dataclass_fields__, *DECLARATION_ONLY_FIELDS)
        errors |= {key: f"unknown field; known: {', '.join(known)}" for key in endpoint if key not in known}
        v2_input = endpoint.get("v2_input")
        if v2_input is not None and not (isinstance(v2_input, dict) and set(v2_input) <= set(V2_INPUT_FIELDS)):
            errors["v2_input"] = f"a mapping of {', '.join(V2_INPUT_FIELDS)} only"
    if not isinstance(get("name"), str) or not NAME_PATTERN.match(get("name") or ""):
        errors["name"] = "must be 1-48 lowercase letters, digits, '.', '_' or '-'"
    if get("protocol") not in PROTOCOLS:
        errors["protocol"] = f"unknown {get('protocol')!r}; known: {', '.join(PROTOCOLS)}"
    url = get("url")
    if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
        errors["url"] = "must be an http(s) URL with a host"
    elif get("api_key") and urlsplit(url).username:
        # Both are sent as the request's one Authorization header (Bearer, Basic): no request could be made.
        errors["api_key"] = (
            "cannot be combined with credentials in url (user:password@): both are sent as the one Authorization "
            "header; give the API key or the URL credentials, not both"
        )
    if not isinstance(get("model"), str) or not get("model"):
        errors["model"] = "must name the served model"
    count = get("accelerator_count", 1)
    if not (isinstance(count, int) and not isinstance(count, bool) and 1 <= count <= 1024):
        errors["accelerator_count"] = "must be a whole number from 1 to 1024"
    for key in ("prompt_tokens", "output_tokens"):
        value = get(key, 1)
        if not (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 131_072):
            errors[key] = "must be a whole number from 1 to 131072"
    return errors

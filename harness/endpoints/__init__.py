"""Endpoint systems-under-test: LoadGen drives a running inference server over HTTP.

``EndpointItem`` + ``run_endpoint_item`` measure an OpenAI-compatible (``/v1/completions``,
``/v1/chat/completions``, streamed) or Open Inference Protocol v2 (``/v2/models/{name}/infer``) server in
the Server or concurrency-sweep scenario and return an ``inferledger.result/1`` payload.
"""

from .target import PROTOCOLS, Endpoint, endpoint_errors, redact_url

__all__ = ["PROTOCOLS", "Endpoint", "endpoint_errors", "redact_url"]

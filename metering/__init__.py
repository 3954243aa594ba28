"""Production metering: what a running deployment actually served and cost, read from its Prometheus; and the
Prometheus export of InferLedger's own figures (``GET /metrics``)."""

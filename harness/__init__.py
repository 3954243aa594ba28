"""InferLedger benchmark harness: measures inference latency, throughput and energy with MLPerf LoadGen.

The harness is a plain library (no Django) so an agent host can run it without the web service.
Entry points: ``harness.suite`` (plan and run suites), ``harness.result``
(the ``inferledger.result/1`` payload schema) and ``python -m harness`` (command line).
"""

SCHEMA_ID = "inferledger.result/1"

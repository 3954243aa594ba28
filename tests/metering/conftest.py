from tests.accounting.conftest import make_run  # noqa: F401  (stored runs for the benchmark's prediction)

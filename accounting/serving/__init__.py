"""LLM serving economics: fronts of throughput per accelerator against interactivity, and costs read
at a target interactivity (see docs/serving.md). ``front`` and ``economics`` are Django-free."""

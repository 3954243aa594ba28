"""The on-host job runner: what an agent host does with a job (plan its items, run them with the harness,
report each result) and what it says about itself (its inventory). Django-free, like the harness: the
Celery task in ``agents.tasks`` is the only Django-aware caller (import contract in .importlinter).
"""

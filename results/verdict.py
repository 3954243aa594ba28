"""The accuracy guard's verdict as a user reads it, from a payload's ``accuracy`` object.

Torch-free and Django-free on purpose: the web process (run pages, ranking reasons) and ``manage.py bench``
describe a stored run's verdict without loading the guard itself (``harness.accuracy``, which needs
torch). It lives with the results rather than in the harness so that ``accounting`` reads results, not the fleet.
"""

from __future__ import annotations


def describe_accuracy(accuracy: dict | None) -> str:
    """The guard's verdict with the figures it rests on (a payload's ``accuracy``; None for the fp32 reference)."""
    if accuracy is None:
        return "fp32 reference (no guard)"
    relation, verdict = ("<=", "passed") if accuracy["passed"] else (">", "failed")
    text = (
        f"{verdict}: max abs error {accuracy['max_abs_error']:.3g} {relation} tolerance {accuracy['tolerance']:.3g}"
        f" against {accuracy['reference_precision']}"
    )
    if accuracy.get("top1_agreement") is not None:
        text += f", top-1 agreement {accuracy['top1_agreement']:.1%}"
    return text

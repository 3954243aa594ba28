"""Declaring a user workload on the control plane: a model file on an agent host, stored for jobs to name.

The declaration is validated by ``workloads.user`` without opening the file (it is on the agent host, which
checks it when a job runs); a bad one is refused naming every bad field, and nothing is stored unless it all
checks.
"""

from __future__ import annotations

from pathlib import Path

from django.db import IntegrityError, transaction

import workloads as registry

from .models import UserWorkload


def user_workload_validate(declaration) -> registry.UserWorkloadSpec:
    """The declaration as a spec; raises UserWorkloadError naming each bad field (the path must be absolute).

    The file is on the agent host; where it is also here (the embedded default's one host), it is checked
    against the declaration now (an ONNX graph's inputs), not first at run time."""
    spec = registry.parse_spec(declaration, base_dir=None, check_files=False)
    if Path(spec.path).exists():
        errors = registry.file_errors(spec)
        if errors:
            raise registry.UserWorkloadError(errors)
    return spec


def user_workload_differences(spec: registry.UserWorkloadSpec) -> dict[str, tuple]:
    """{field: (declared, in ``spec``)} where ``spec`` declares other work than the stored declaration of its name
    (``UserWorkload.IDENTITY_FIELDS``); empty when its name is not declared or declared the same."""
    record = UserWorkload.objects.filter(name=spec.name).first()
    return record.differences_from(spec) if record is not None else {}


def user_workload_declare(declaration) -> UserWorkload:
    """Validate and store a declaration under its name; raises UserWorkloadError, storing nothing, when it
    does not check or the name is taken (a declared workload is never replaced: its runs would mix)."""
    spec = user_workload_validate(declaration)
    taken = registry.UserWorkloadError([("name", f"{spec.name!r} is already declared (as {spec.id})")])
    if UserWorkload.objects.filter(name=spec.name).exists():
        raise taken
    fields = spec.to_dict()
    try:
        with transaction.atomic():
            return UserWorkload.objects.create(
                name=spec.name, title=spec.title, format=spec.format, path=spec.path, unit=spec.unit,
                inputs=fields["inputs"], llm=fields.get("llm"),
            )  # fmt: skip
    except IntegrityError:  # declared by a concurrent request since the check above
        raise taken from None

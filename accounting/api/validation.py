"""What every accounting view does around its calculation: validate the question, and answer a question the
calculation refuses with a 400 that names the field (the views stay thin; the rules live in the calculations)."""

from collections.abc import Iterator
from contextlib import contextmanager

from rest_framework.exceptions import ValidationError

from accounting.errors import FieldError


def validated(serializer_class, data) -> dict:
    """`data` through the serializer: its validated data, or a 400 naming every invalid field."""
    form = serializer_class(data=data)
    form.is_valid(raise_exception=True)
    return form.validated_data


@contextmanager
def refused_as_400(*errors: type[ValueError], field: str = "non_field_errors") -> Iterator[None]:
    """Raise any of `errors` as a 400: under the field a FieldError names, else under `field`."""
    try:
        yield
    except errors as exc:
        raise ValidationError({exc.field if isinstance(exc, FieldError) else field: [str(exc)]}) from None

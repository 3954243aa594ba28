"""The one error shape of a question the accounting cannot answer because of one of its inputs."""


class FieldError(ValueError):
    """An input that makes the question unanswerable; `field` names it (the API answers 400 under that name)."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)

import pytest


@pytest.fixture
def analyst(user):
    """The user whose tokens and sessions these tests revoke: tests/conftest.py's `user` ("analyst")."""
    return user

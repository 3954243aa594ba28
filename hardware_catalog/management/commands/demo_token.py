import os
import secrets
from pathlib import Path

from django.contrib.auth import get_user_model
from knox.auth import TokenAuthentication
from knox.models import AuthToken
from rest_framework.exceptions import AuthenticationFailed

from inferledger.commands import InputCheckedCommand


def still_valid(token: str, user) -> bool:
    """Whether ``token`` still authenticates as ``user`` (not expired, not revoked, e.g. by a password change)."""
    try:
        authenticated, _ = TokenAuthentication().authenticate_credentials(token.encode())
    except AuthenticationFailed:
        return False
    return authenticated.pk == user.pk


class Command(InputCheckedCommand):
    help = (
        "Create (once) the local 'demo' staff user and print an API token for it. For the embedded default only. "
        "Tokens are stored as digests, so the token printed is remembered in --token-file (readable by its owner "
        "only) and printed again on the next run while it still works; --rotate revokes it and issues a new one."
    )

    def add_arguments(self, parser):
        parser.add_argument("--username", default="demo")
        parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="Where the server will listen.")
        parser.add_argument(
            "--token-file",
            type=Path,
            default=None,
            help="Remember the token here and print it again while it works (make run: var/demo-token).",
        )
        parser.add_argument("--rotate", action="store_true", help="Revoke the user's tokens and issue a new one.")

    def handle(self, *args, username, base_url, token_file, rotate, **options):
        User = get_user_model()
        user, created = User.objects.get_or_create(username=username, defaults={"is_staff": True, "is_superuser": True})
        if created:
            password = secrets.token_urlsafe(12)
            user.set_password(password)
            user.save()
            self.stdout.write(f"Created user '{username}' (staff) with password: {password}")
        token = self._kept_token(token_file, user) if not rotate else None
        if token is None:
            AuthToken.objects.filter(user=user).delete()
            _, token = AuthToken.objects.create(user=user)
            if token_file is not None:
                self._remember(token_file, token)
            self.stdout.write(f"API token for '{username}': {token}")
        else:
            self.stdout.write(
                f"API token for '{username}': {token} "
                "(kept from the last run; a new one: make run ROTATE_TOKEN=1, or demo_token --rotate)"
            )
        self.stdout.write(f'  curl -H "Authorization: Token {token}" {base_url.rstrip("/")}/api/v1/accelerators/')

    @staticmethod
    def _kept_token(token_file: Path | None, user) -> str | None:
        if token_file is None or not token_file.is_file():
            return None
        token = token_file.read_text().strip()
        return token if token and still_valid(token, user) else None

    @staticmethod
    def _remember(token_file: Path, token: str) -> None:
        token_file.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(token + "\n")

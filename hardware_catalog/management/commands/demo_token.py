import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from knox.models import AuthToken


class Command(BaseCommand):
    help = (
        "Create (once) the local 'demo' staff user and issue a fresh API token for it. For the embedded "
        "default only: tokens are stored as digests, so a new one is printed each time."
    )

    def add_arguments(self, parser):
        parser.add_argument("--username", default="demo")
        parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="Where the server will listen.")

    def handle(self, *args, username, base_url, **options):
        User = get_user_model()
        user, created = User.objects.get_or_create(username=username, defaults={"is_staff": True, "is_superuser": True})
        if created:
            password = secrets.token_urlsafe(12)
            user.set_password(password)
            user.save()
            self.stdout.write(f"Created user '{username}' (staff) with password: {password}")
        AuthToken.objects.filter(user=user).delete()
        _, token = AuthToken.objects.create(user=user)
        self.stdout.write(f"API token for '{username}': {token}")
        self.stdout.write(f'  curl -H "Authorization: Token {token}" {base_url.rstrip("/")}/api/v1/accelerators/')

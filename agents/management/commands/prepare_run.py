from pathlib import Path

from django.core.management import call_command
from django.core.management.base import CommandError

from inferledger.commands import InputCheckedCommand


class Command(InputCheckedCommand):
    help = (
        "Everything `make run` does before serving, in one process (one Django start-up instead of six): "
        "migrate, load the catalog and the shipped published results, withdraw open alarms the rules in force no "
        "longer raise (recheck_alarms: a database kept from an earlier release), collect static files, print the demo "
        "user's token (the same one as last time while it works: --rotate-token for a new one) and queue the quick "
        "suite once for the built-in local agent (with a broker set and no agent on it yet, it says why it did not)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="Where the server will listen.")
        parser.add_argument(
            "--token-file", type=Path, default=Path("var/demo-token"), help="Where the demo token is remembered."
        )
        parser.add_argument("--rotate-token", action="store_true", help="Revoke the demo token and issue a new one.")

    def handle(self, *args, base_url, token_file, rotate_token, **options):
        call_command("migrate", interactive=False, verbosity=1)
        call_command("load_catalog")
        call_command("load_published_results")
        call_command("recheck_alarms")
        call_command("collectstatic", interactive=False, verbosity=0)
        call_command("demo_token", base_url=base_url, token_file=token_file, rotate=rotate_token, stdout=self.stdout)
        try:
            call_command("enqueue", suite="quick", once=True, stdout=self.stdout)
        except CommandError as exc:  # e.g. a broker is set and no agent is online on it yet: serve anyway
            self.stderr.write(f"The quick suite was not queued: {exc}")

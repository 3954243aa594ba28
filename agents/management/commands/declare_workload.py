"""Declare a user workload for jobs from the same YAML/TOML file `bench --workload-file` reads."""

from django.core.management.base import CommandError

import workloads as registry
from agents.user_workloads import user_workload_declare
from inferledger.commands import InputCheckedCommand


class Command(InputCheckedCommand):
    atomic = True  # every file of the run, or nothing
    help = (
        "Store a user workload declared in a YAML/TOML file so that jobs can name it (user_workload). A relative "
        "path in it is taken from the file's folder; the file itself is checked on the agent host when a job runs."
    )

    def add_arguments(self, parser):
        parser.add_argument("spec", help="The declaration (.yaml, .yml or .toml)")

    def handle(self, *args, spec, **options):
        try:
            declaration = registry.load_spec_file(spec, check_files=False)
            record = user_workload_declare(declaration.to_dict())
        except registry.UserWorkloadError as exc:
            raise CommandError(f"{spec}: {exc}") from None
        self.stdout.write(f"Declared {record.workload_id} ({record.format} {record.path}); jobs name it "
                          f"as user_workload={record.name!r}")  # fmt: skip

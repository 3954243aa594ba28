import socket

from django.core.management.base import CommandError

from agents.jobs import job_create
from agents.jobspec import JobSpecError
from agents.models import Agent, Job, JobState, UserWorkload
from hardware_catalog.models import Accelerator
from harness.names import SUITES
from inferledger.commands import InputCheckedCommand
from results.models import BenchmarkRun

# Spec field -> the option that sets it, to name the option in errors.
OPTION_FOR = {
    "workloads": "--workload",
    "sizes": "--size",
    "scenarios": "--scenario",
    "backends": "--backend",
    "precisions": "--precision",
    "offline_batch_sizes": "--batch-size",
    "server_load_fractions": "--load-fraction",
    "min_duration_ms": "--min-duration-ms",
    "time_limit_s": "--time-limit-s",
    "user_workload": "--user-workload",
}


class Command(InputCheckedCommand):
    help = "Queue a benchmark job for an agent (or any online agent with an accelerator) and print its id."

    def add_arguments(self, parser):
        target = parser.add_mutually_exclusive_group()
        target.add_argument("--agent", help="Agent name.")
        target.add_argument("--accelerator", type=int, help="Catalog accelerator id: any online agent with it.")
        parser.add_argument("--suite", choices=SUITES, default="quick")
        for option, help_text in [
            ("workload", "Model class"),
            ("size", "Workload size"),
            ("scenario", "Scenario"),
            ("backend", "Backend"),
            ("precision", "Precision"),
        ]:
            parser.add_argument(f"--{option}", action="append", default=[], help=f"{help_text} (repeatable).")
        parser.add_argument("--batch-size", type=int, action="append", default=[], help="Offline sweep (repeatable).")
        parser.add_argument("--load-fraction", type=float, action="append", default=[],
                            help="Server offered rate as a fraction of capacity (repeatable).")  # fmt: skip
        parser.add_argument("--min-duration-ms", type=int)
        parser.add_argument("--user-workload", metavar="NAME", help="A declared user workload (declare_workload).")
        parser.add_argument("--time-limit-s", type=int, default=1800)
        parser.add_argument(
            "--once",
            action="store_true",
            help="Do nothing if this suite already has a queued, running or finished job or results on this host "
            "(make run uses it so a restart does not measure again).",
        )

    def handle(self, *args, **options):
        if options["once"] and _already_queued_or_measured(options["suite"]):
            self.stdout.write(f"The {options['suite']} suite is already queued or measured on this host; not queued.")
            return
        spec = {
            "suite": options["suite"],
            "workloads": options["workload"],
            "sizes": options["size"],
            "scenarios": options["scenario"],
            "backends": options["backend"],
            "precisions": options["precision"],
            "offline_batch_sizes": options["batch_size"],
            "server_load_fractions": options["load_fraction"],
            "min_duration_ms": options["min_duration_ms"],
            "time_limit_s": options["time_limit_s"],
        }
        try:
            if options["user_workload"]:
                spec["user_workload"] = UserWorkload.objects.get(name=options["user_workload"])
            agent = Agent.objects.get(name=options["agent"]) if options["agent"] else None
            accelerator = Accelerator.objects.get(pk=options["accelerator"]) if options["accelerator"] else None
            job = job_create(spec=spec, agent=agent, accelerator=accelerator)
        except (Agent.DoesNotExist, Accelerator.DoesNotExist, UserWorkload.DoesNotExist) as exc:
            raise CommandError(str(exc)) from None
        except JobSpecError as exc:
            problems = "; ".join(f"{OPTION_FOR.get(field, field)}: {msg}" for field, msg in exc.errors.items())
            raise CommandError(problems) from None
        job.refresh_from_db()
        self.stdout.write(f"job {job.pk} on agent {job.agent}: {job.state}")


def _already_queued_or_measured(suite: str) -> bool:
    host = socket.gethostname()
    jobs = Job.objects.filter(suite=suite, agent__hostname=host).exclude(
        state__in=[JobState.FAILED, JobState.CANCELLED]
    )
    measured = BenchmarkRun.objects.measured().filter(environment__hostname=host, settings__preset=suite)
    return jobs.exists() or measured.exists()

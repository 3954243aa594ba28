import shlex

from django.conf import settings
from django.core.management.base import CommandError

from harness.host.inventory import agent_queue
from inferledger.commands import InputCheckedCommand


def worker_argv(name: str, loglevel: str = "INFO") -> list[str]:
    """The Celery worker command line of an agent: its own queue, one job at a time, one message reserved."""
    return [
        "worker",
        "--queues", agent_queue(name),
        "--hostname", f"{agent_queue(name)}@%h",
        "--concurrency", "1",
        "--prefetch-multiplier", "1",
        "--loglevel", loglevel,
    ]  # fmt: skip


class Command(InputCheckedCommand):
    help = (
        "Start this host's benchmarking agent: a Celery worker on the queue agent.NAME that registers the host's "
        "devices, heartbeats and runs the jobs sent to it. Equivalent to: "
        "celery -A inferledger worker --queues agent.NAME --hostname agent.NAME@%h --concurrency 1 "
        "--prefetch-multiplier 1. It needs only CELERY_BROKER_URL (no database credentials)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="Agent name (letters, digits, - and _).")
        parser.add_argument("--loglevel", default="INFO")
        parser.add_argument(
            "--once", action="store_true",
            help="Without a broker: register, run the jobs queued for this agent now, then exit.",
        )  # fmt: skip

    def handle(self, *args, name, loglevel, once=False, **options):
        if not name.replace("-", "").replace("_", "").isalnum():
            raise CommandError("--name may contain only letters, digits, '-' and '_'")
        if not settings.CELERY_BROKER_URL:
            from agents.local_runner import serve_local_agent

            self.stdout.write(
                f"No CELERY_BROKER_URL: this host is the built-in agent '{name}'; it runs the jobs queued for it "
                "in this process, one at a time, until stopped (the embedded default). Set CELERY_BROKER_URL "
                "to run a Celery worker instead."
            )
            serve_local_agent(name=name, once=once)
            return
        argv = worker_argv(name, loglevel)
        self.stdout.write(f"Starting agent {name}: celery -A inferledger {shlex.join(argv)}")
        from inferledger.celery import app

        app.worker_main(argv=argv)

from django.core.management.base import CommandError

from agents.registry import agent_enroll
from inferledger.commands import InputCheckedCommand


class Command(InputCheckedCommand):
    help = (
        "Issue the signing secret of agent NAME (replacing any earlier one) and print it. Set it on the agent "
        "host as INFERLEDGER_AGENT_SECRET: the control plane accepts the agent's registration, heartbeats and "
        "results only when signed with it."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="Agent name (letters, digits, - and _), as given to run_agent --name.")

    def handle(self, *args, name, **options):
        if not name.replace("-", "").replace("_", "").isalnum():
            raise CommandError("the name may contain only letters, digits, '-' and '_'")
        agent, secret = agent_enroll(name=name)
        self.stderr.write(f"Agent {agent.name} enrolled; set this on its host (any earlier secret no longer works):")
        self.stdout.write(f"INFERLEDGER_AGENT_SECRET={secret}")

import dataclasses
import os
import socket
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError
from django.utils.text import slugify

import workloads as registry
from agents.jobspec import spec_errors
from agents.models import Endpoint
from agents.user_workloads import user_workload_differences
from harness.endpoints.run import run_endpoint_items
from harness.endpoints.target import ENDPOINT_SCENARIOS, PROTOCOLS
from harness.host.plan import plan_items
from harness.names import SCENARIOS, SIZES
from harness.suite import SUITES, Failure, Skip, plan_suite, plan_user_workload, run_suite
from harness.telemetry.host import HOST_CHECK_MODES, HOST_CHECKS_ENV
from inferledger.commands import InputCheckedCommand
from results.ingest import QUARANTINED, STORED, ingest_result
from results.models import BenchmarkRun
from results.verdict import describe_accuracy

BAR_WIDTH = 28


class ProgressBar:
    """One line redrawn in place on a terminal; one line per item elsewhere (CI logs, pipes)."""

    def __init__(self, stream):
        self.stream = stream  # a management command's OutputWrapper
        self.interactive = stream.isatty()
        self.last_item = None

    def __call__(self, event: dict):
        fraction = event.get("fraction") or 0.0
        filled = int(round(fraction * BAR_WIDTH))
        where = f"{event.get('workload') or ''} {event.get('scenario') or ''} {event.get('point') or ''}".strip()
        line = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {fraction * 100:5.1f}%  {where}"
        if self.interactive:
            self.stream.write(f"\r{line[:110]:<110}", ending="")
            self.stream.flush()
        elif event.get("item") != self.last_item:
            self.stream.write(line)
            self.stream.flush()
        self.last_item = event.get("item")

    def finish(self):
        if self.interactive:
            self.stream.write("")


class Command(InputCheckedCommand):
    help = (
        "Run the standardized inference suite on this machine's CPU (or GPU), in-process, ingest the results "
        "and print a summary. The quick suite takes a few minutes on 2 cores."
    )

    def add_arguments(self, parser):
        parser.add_argument("--suite", choices=SUITES, default="quick")
        parser.add_argument(
            "--workload",
            action="append",
            help="Model class (e.g. encoder) or registry workload id (e.g. bert-large-99) to run (repeatable); "
            "default every class (the quick suite leaves recommendation out unless named).",
        )
        parser.add_argument(
            "--size",
            action="append",
            choices=SIZES,
            help="tiny (smoke-test stand-ins, the default) or reference (the published models: ResNet-50, "
            "BERT-large, Llama-3.1-8B, DLRM-v2, the risk MLP); repeatable. A reference that does not fit "
            "this host's memory is skipped with the figure it needs.",
        )
        parser.add_argument(
            "--scenario",
            action="append",
            choices=(*SCENARIOS, *[name for name in ENDPOINT_SCENARIOS if name not in SCENARIOS]),
            help="Scenario (repeatable); default all three (an endpoint: concurrency-sweep, server).",
        )
        parser.add_argument(
            "--rounds", type=int, help="Rounds per point (default the suite's; 1 for a slow reference on a CPU)."
        )
        parser.add_argument("--min-query-count", type=int, help="LoadGen's minimum queries per point.")
        parser.add_argument("--backend", action="append", help="Backend (repeatable); default the suite's.")
        parser.add_argument("--precision", action="append", help="Precision (repeatable); default the suite's.")
        parser.add_argument(
            "--out", type=Path, help="Where LoadGen logs and result JSON go (default var/bench/<time>)."
        )
        endpoint = parser.add_argument_group(
            "endpoint", "Benchmark a running inference server instead of the suite (its runs: workload endpoint:<name>)"
        )
        endpoint.add_argument("--endpoint", metavar="NAME", help="A stored endpoint (API /endpoints/) to measure.")
        endpoint.add_argument("--endpoint-url", help="Or declare one here: its base URL, e.g. http://127.0.0.1:8000.")
        endpoint.add_argument("--endpoint-protocol", choices=PROTOCOLS, default="openai-completions")
        endpoint.add_argument("--endpoint-model", help="The served model's name.")
        endpoint.add_argument("--endpoint-name", help="The declared endpoint's name (default: the model's).")
        endpoint.add_argument(
            "--endpoint-metrics-url",
            default="",
            help="Its Prometheus metrics (vLLM, KServe: <url>/metrics; Triton: port 8002).",
        )
        endpoint.add_argument(
            "--endpoint-api-key-env",
            metavar="VAR",
            help="Read the API key from this environment variable (never argv)",
        )
        endpoint.add_argument("--prompt-tokens", type=int, default=128)
        endpoint.add_argument("--output-tokens", type=int, default=64)
        endpoint.add_argument("--rate", type=float, action="append", help="Server scenario: offered queries/s.")
        endpoint.add_argument("--concurrency-max", type=int, help="Concurrency sweep: the highest level.")
        endpoint.add_argument("--ttft-slo-ms", type=float, help="Goodput: TTFT bound per request.")
        endpoint.add_argument("--tpot-slo-ms", type=float, help="Goodput: TPOT bound per request.")
        endpoint.add_argument("--min-duration-ms", type=int, help="Per point (default: the suite's).")
        parser.add_argument(
            "--workload-file",
            type=Path,
            metavar="SPEC",
            help="A user workload declared in a YAML/TOML file (an ONNX, TorchScript, torch.export or Hugging "
            "Face model with its inputs and unit): runs it instead of the suite, as workload user:<name>.",
        )
        parser.add_argument(
            "--once",
            action="store_true",
            help="Do nothing if this host already has results from this suite (make run uses it on restarts).",
        )
        parser.add_argument(
            "--host-checks",
            choices=HOST_CHECK_MODES,
            help="The machine's fitness checks around each point: enforce (a point measured on an unfit host is "
            "stored not valid) or record (a shared host: state and reasons recorded only); default "
            "INFERLEDGER_HOST_CHECKS.",
        )

    def handle(self, *args, suite, workload, backend, precision, out, once=False, size=None, scenario=None, **options):
        if options.get("host_checks"):
            os.environ[HOST_CHECKS_ENV] = options["host_checks"]  # read by the harness where each point is judged
        if options.get("endpoint") or options.get("endpoint_url"):
            return self._endpoint(suite, out, scenario, options)
        overrides = {"rounds": options.get("rounds"), "min_query_count": options.get("min_query_count")}
        overrides = {name: value for name, value in overrides.items() if value is not None}
        if options.get("workload_file"):
            try:
                # Other work under a declared id is named first; then the file is checked against the declaration.
                _refuse_other_work_under_a_declared_id(
                    registry.load_spec_file(options["workload_file"], check_files=False)
                )
                spec = registry.load_spec_file(options["workload_file"])
                items = plan_user_workload(spec, suite, backends=backend, precisions=precision, scenarios=scenario)
                items = [dataclasses.replace(item, settings=item.settings.with_(**overrides)) for item in items]
            except ValueError as exc:
                raise CommandError(f"{options['workload_file']}: {exc}") from None
            out = out or _default_out_dir()
            out.mkdir(parents=True, exist_ok=True)
            self.stdout.write(f"Running {spec.id} ({spec.format} {spec.path}): {len(items)} items; results in {out}")
            return self._run(run_suite(items, out, progress=ProgressBar(self.stdout)))
        if once and _already_measured(suite):
            self.stdout.write(
                f"This host already has {suite}-suite results; skipping (run `manage.py bench` to re-measure)."
            )
            return
        try:
            items = plan_suite(suite, workloads=workload, backends=backend, precisions=precision, sizes=size)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        try:
            items = [
                dataclasses.replace(item, settings=item.settings.with_(**overrides))
                for item in items
                if not scenario or item.scenario in scenario
            ]
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if not items:
            raise CommandError("nothing to run: the filters matched no suite item")
        out = out or _default_out_dir()
        out.mkdir(parents=True, exist_ok=True)
        self.stdout.write(f"Running the {suite} suite: {len(items)} items; logs and results in {out}")
        self._run(run_suite(items, out, progress=ProgressBar(self.stdout)))

    def _endpoint(self, suite, out, scenario, options):
        """Measure a running server: a stored endpoint by name, or one declared on the command line."""
        if options.get("endpoint"):
            record = Endpoint.objects.filter(name=options["endpoint"]).first()
            if record is None:
                raise CommandError(f"--endpoint: no endpoint named {options['endpoint']!r}")
            declaration = record.as_spec()
        else:
            if not options.get("endpoint_model"):
                raise CommandError("--endpoint-model: required with --endpoint-url")
            key_env = options.get("endpoint_api_key_env")
            if key_env and key_env not in os.environ:
                raise CommandError(f"--endpoint-api-key-env: {key_env} is not set")
            declaration = {
                "name": options.get("endpoint_name") or slugify(options["endpoint_model"])[:48],
                "protocol": options["endpoint_protocol"], "url": options["endpoint_url"],
                "model": options["endpoint_model"], "metrics_url": options["endpoint_metrics_url"],
                "api_key": os.environ.get(key_env, "") if key_env else "",
                "prompt_tokens": options["prompt_tokens"], "output_tokens": options["output_tokens"],
            }  # fmt: skip
        spec = {"suite": suite, "endpoint": declaration, "scenarios": scenario or [],
                "server_rates_qps": options.get("rate") or [], "concurrency_max": options.get("concurrency_max"),
                "ttft_slo_ms": options.get("ttft_slo_ms"), "tpot_slo_ms": options.get("tpot_slo_ms"),
                "min_duration_ms": options.get("min_duration_ms"), "rounds": options.get("rounds"),
                "min_query_count": options.get("min_query_count")}  # fmt: skip
        errors = spec_errors(spec, time_limit_max_s=settings.INFERLEDGER_JOB_TIME_LIMIT_MAX_S)
        if errors:
            raise CommandError("; ".join(f"{field}: {message}" for field, message in errors.items()))
        items = plan_items(spec)
        out = out or _default_out_dir()
        out.mkdir(parents=True, exist_ok=True)
        public = items[0].endpoint.to_public_dict()
        self.stdout.write(f"Measuring {public['url']} ({public['protocol']}, {public['model']}): {len(items)} items")
        self._run(run_endpoint_items(items, out, progress=ProgressBar(self.stdout)))

    def _run(self, results):
        bar_stream = self.stdout
        stored, skipped, failed, quarantined, started = [], [], [], [], datetime.now(UTC)
        for result in results:
            if isinstance(result, Skip):
                skipped.append(result)
                continue
            if isinstance(result, Failure):
                failed.append(result)
                self.stderr.write(f"\nfailed {result.workload} {result.scenario} {result.backend}/{result.precision}:")
                self.stderr.write(result.traceback)
                continue
            outcome = ingest_result(result, source="bench")
            if outcome.status == QUARANTINED:
                quarantined.append(outcome.reason)
            elif outcome.status == STORED:
                stored.append(outcome.run)
        if bar_stream.isatty():
            bar_stream.write("")
        elapsed_s = (datetime.now(UTC) - started).total_seconds()
        self._summary(stored, skipped, failed, quarantined, elapsed_s)
        problems = [f"{len(failed)} item(s) failed"] if failed else []
        problems += [f"{len(quarantined)} result(s) failed validation and were quarantined"] if quarantined else []
        if problems:
            raise CommandError("; ".join(problems))

    def _summary(self, runs, skipped, failed, quarantined, elapsed_s):
        header = f"{'workload':<22}{'scenario':<18}{'backend/precision':<20}{'point':<16}{'per s':>11}"
        header += f"{'p50 ms':>10}{'p99 ms':>10}  loadgen"
        self.stdout.write("\n" + header)
        self.stdout.write("-" * len(header))
        for run in runs:
            for point in run.points.all():
                throughput = point.output_tokens_per_s or point.throughput_per_s
                self.stdout.write(
                    f"{run.workload_name:<22}{run.scenario:<18}{run.backend + '/' + run.precision:<20}{point.label:<16}"
                    f"{throughput:>11.1f}{point.latency_p50_ms:>10.3f}{point.latency_p99_ms:>10.3f}  "
                    f"{'VALID' if point.loadgen_valid else 'INVALID'}"
                )
        for run in runs:
            if run.accuracy_passed is False:
                self.stdout.write(f"not ranked: {run}: accuracy guard {describe_accuracy(run.accuracy)}")
            for reason in run.not_valid_reasons:
                self.stdout.write(f"not ranked: {run}: {reason}")
        for skip in skipped:
            self.stdout.write(f"skipped {skip.workload} {skip.scenario} {skip.backend}/{skip.precision}: {skip.reason}")
        for failure in failed:
            self.stderr.write(f"failed {failure.workload} {failure.scenario} {failure.backend}/{failure.precision}: "
                              f"{failure.error}")  # fmt: skip
        for reason in quarantined:
            self.stderr.write(f"quarantined: {reason}")
        self.stdout.write(
            f"\n{len(runs)} runs stored, {len(skipped)} skipped, {len(quarantined)} quarantined, {len(failed)} failed"
            f" in {elapsed_s:.0f} s"
        )


def _refuse_other_work_under_a_declared_id(spec: registry.UserWorkloadSpec) -> None:
    """One id is one workload: a file declaring other work under a declared name would rank against its runs."""
    differences = user_workload_differences(spec)
    if differences:
        fields = "; ".join(f"{field}: declared {declared!r}, this file {given!r}"
                           for field, (declared, given) in differences.items())  # fmt: skip
        raise ValueError(
            f"{spec.id} is already declared (declare_workload or the API) for other work ({fields}); "
            "one id is one workload: give this one another name"
        )


def _already_measured(suite: str) -> bool:
    return (
        BenchmarkRun.objects.measured()
        .filter(environment__hostname=socket.gethostname(), settings__preset=suite)
        .exists()
    )


def _default_out_dir() -> Path:
    base = Path(settings.BASE_DIR) / "var" / "bench"
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError:
        base = Path(tempfile.gettempdir()) / "inferledger-bench"
    return base / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")

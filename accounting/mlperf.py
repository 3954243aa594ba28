"""Import published MLPerf Inference results (an MLCommons submission tree) as external runs.

Layout read: <division>/<submitter>/systems/<system>.json and
<division>/<submitter>/results/<system>/<benchmark>/<scenario>/performance/run_1/mlperf_log_{summary,detail}.txt,
parsed by agents.harness.loadgen_logs (the one LoadGen parser). Only VALID Offline and Server results
are imported, divided per accelerator (accelerators_per_node x number_of_nodes). Accelerator names go
through MLPERF_ACCELERATOR_ALIASES or an exact catalog name; anything else is reported, not guessed.
Run ids are uuid5 over the file's path in the tree and its SHA-256, so re-importing adds nothing.
"""

import hashlib
import json
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from django.db import transaction
from django.db.models import Value
from django.db.models.functions import Concat, Lower

from agents.harness.loadgen_logs import read_run_dir
from agents.models import BenchmarkRun, OperatingPoint, RunOrigin
from hardware_catalog.models import Accelerator

RUN_NAMESPACE = uuid.UUID("6f1c0b7e-5a53-4d0e-9a51-6d4c3b1e7f20")
SCENARIOS = {"Offline": "offline", "Server": "server"}
# MLPerf benchmark (accuracy suffix -99 / -99.9 removed) -> our model class.
BENCHMARK_CLASSES = {
    "resnet50": "cv-classification",
    "bert": "encoder",
    "gptj": "llm-decoder",
    "llama2-70b": "llm-decoder",
    "llama2-70b-interactive": "llm-decoder",
    "llama3.1-405b": "llm-decoder",
    "mixtral-8x7b": "llm-decoder",
}
# accelerator_model_name as submitters write it (lower case) -> (vendor, catalog model).
MLPERF_ACCELERATOR_ALIASES = {
    "nvidia h100-sxm-80gb": ("NVIDIA", "H100 SXM5 80GB"),
    "nvidia h100 sxm 80gb": ("NVIDIA", "H100 SXM5 80GB"),
    "nvidia h100-pcie-80gb": ("NVIDIA", "H100 PCIe 80GB"),
    "nvidia h200-sxm-141gb": ("NVIDIA", "H200 SXM 141GB"),
    "nvidia b200-sxm-180gb": ("NVIDIA", "B200"),
    "nvidia l40s": ("NVIDIA", "L40S"),
    "nvidia l4": ("NVIDIA", "L4"),
    "nvidia a100-sxm-80gb": ("NVIDIA", "A100 SXM4 80GB"),
    "nvidia a100-sxm4-80gb": ("NVIDIA", "A100 SXM4 80GB"),
    "nvidia a100-pcie-80gb": ("NVIDIA", "A100 PCIe 80GB"),
    "amd instinct mi300x": ("AMD", "MI300X"),
    "amd mi300x": ("AMD", "MI300X"),
    "intel gaudi 2": ("Intel", "Gaudi 2"),
}
_LATENCY_BOUND_KEYS = ("target_latency (ns)", "target_latency_ns", "target_latency", "ttft_latency (ns)")


@dataclass
class MlperfImportReport:
    imported: list[str] = field(default_factory=list)
    already_imported: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    runs: list[BenchmarkRun] = field(default_factory=list)


def model_class_for(benchmark: str) -> str | None:
    return BENCHMARK_CLASSES.get(re.sub(r"-99(\.9)?$", "", benchmark.lower()))


def accelerator_for(name: str) -> Accelerator | None:
    alias = MLPERF_ACCELERATOR_ALIASES.get(" ".join(name.lower().split()))
    if alias:
        return Accelerator.objects.filter(vendor=alias[0], model=alias[1]).first()
    named = Accelerator.objects.annotate(full=Lower(Concat("vendor", Value(" "), "model")))
    return named.filter(full=" ".join(name.lower().split())).first()


def _count(system: dict) -> int:
    try:
        return int(system.get("accelerators_per_node") or 0) * int(system.get("number_of_nodes") or 1)
    except (TypeError, ValueError):
        return 0


def import_tree(root: Path, *, round_name: str = "v4.1", published_at: datetime) -> MlperfImportReport:
    report = MlperfImportReport()
    root = Path(root)
    for system_file in sorted(root.glob("**/systems/*.json")):
        submitter_dir = system_file.parent.parent
        results_dir = submitter_dir / "results" / system_file.stem
        system = json.loads(system_file.read_text(encoding="utf-8"))
        context = _SystemContext(system_file.stem, system, submitter_dir.name, round_name, published_at)
        for run_dir in sorted(results_dir.glob("*/*/performance/run_1")):
            _import_one(root, run_dir, context, report)
    return report


@dataclass
class _SystemContext:
    name: str
    system: dict
    submitter: str
    round_name: str
    published_at: datetime
    accelerator: Accelerator | None = None
    problem: str = ""

    def __post_init__(self):
        count, model_name = _count(self.system), str(self.system.get("accelerator_model_name") or "").strip()
        if count == 0 or model_name.upper() in ("", "N/A"):
            host = self.system.get("host_processor_model_name", "unknown")
            self.problem = f"CPU-only system (no accelerator; host processor '{host}' is not mapped to the catalog)"
        else:
            self.accelerator = accelerator_for(model_name)
            if self.accelerator is None:
                self.problem = f"unknown accelerator '{model_name}': add it to MLPERF_ACCELERATOR_ALIASES"
        self.count = count


def _import_one(root: Path, run_dir: Path, context: _SystemContext, report: MlperfImportReport) -> None:
    scenario_dir, benchmark = run_dir.parent.parent, run_dir.parent.parent.parent.name
    where = str(run_dir.relative_to(root))
    model_class = model_class_for(benchmark)
    if context.problem:
        return report.skipped.append((where, context.problem))
    if model_class is None:
        return report.skipped.append((where, f"benchmark '{benchmark}' has no InferLedger model class"))
    if scenario_dir.name not in SCENARIOS:
        return report.skipped.append((where, f"scenario '{scenario_dir.name}' is not imported (Offline, Server only)"))
    try:
        parsed = read_run_dir(run_dir)
    except FileNotFoundError as exc:
        return report.skipped.append((where, str(exc)))
    if not parsed.get("result_valid"):
        reasons = "; ".join(parsed.get("reasons") or []) or "no VALID verdict"
        return report.skipped.append((where, f"result is {parsed.get('verdict') or 'unknown'}: {reasons}"))
    if not parsed.get("samples_per_second"):
        return report.skipped.append((where, "no samples per second in the log"))
    content = parsed["summary_text"] if parsed["summary_text"] is not None else parsed["detail_text"]
    digest = hashlib.sha256(content.encode()).hexdigest()
    run_id = uuid.uuid5(RUN_NAMESPACE, f"{where}:{digest}")
    if BenchmarkRun.objects.filter(pk=run_id).exists():
        return report.already_imported.append(where)
    with transaction.atomic():
        run = _store(run_id, digest, parsed, context, benchmark, model_class, SCENARIOS[scenario_dir.name])
    report.imported.append(where)
    report.runs.append(run)


def _ms(ns) -> float | None:
    return None if ns is None else ns / 1e6


def _store(run_id, digest, parsed, context, benchmark, model_class, scenario) -> BenchmarkRun:
    payload = {key: value for key, value in parsed.items() if key not in ("summary_text", "detail_text")}
    framework = str(context.system.get("framework") or "")
    run = BenchmarkRun.objects.create(
        id=run_id, origin=RunOrigin.EXTERNAL,
        external_source=f"MLPerf Inference {context.round_name}, {context.submitter}, {context.name}",
        accelerator=context.accelerator, accelerator_count=context.count,
        device_name=context.system.get("accelerator_model_name", ""), workload_name=benchmark,
        model_class=model_class, size="reference", scenario=scenario,
        backend="tensorrt" if "tensorrt" in framework.lower() else (framework.split() or ["unknown"])[0].lower(),
        precision="unspecified", started_at=context.published_at, finished_at=context.published_at,
        loadgen_valid=True, accuracy_passed=None, environment=context.system, settings=parsed["test_parameters"],
        payload=payload, payload_sha256=digest,
    )  # fmt: skip
    count, latency = context.count, parsed["latency_ns"]
    tokens = parsed.get("tokens_per_second")
    bound = next((parsed["test_parameters"][k] for k in _LATENCY_BOUND_KEYS if k in parsed["test_parameters"]), None)
    ttft, tpot = parsed["first_token_latency_ns"], parsed["time_per_output_token_ns"]
    OperatingPoint.objects.create(
        run=run, index=0, batch_size=1, offered_rate_qps=parsed["test_parameters"].get("target_qps"),
        throughput_per_s=parsed["samples_per_second"] / count,
        output_tokens_per_s=tokens / count if tokens else None,
        latency_min_ms=_ms(latency.get("min")), latency_mean_ms=_ms(latency.get("mean")),
        latency_p50_ms=_ms(latency.get("p50")), latency_p90_ms=_ms(latency.get("p90")),
        latency_p95_ms=_ms(latency.get("p95")), latency_p99_ms=_ms(latency.get("p99")),
        latency_p99_9_ms=_ms(latency.get("p99_9")), latency_max_ms=_ms(latency.get("max")),
        query_count=parsed.get("query_count"),
        ttft_p50_ms=_ms(ttft.get("p50")), ttft_p99_ms=_ms(ttft.get("p99")),
        tpot_p50_ms=_ms(tpot.get("p50")), tpot_p99_ms=_ms(tpot.get("p99")),
        loadgen_valid=True, loadgen_reasons=[],
        details={"system_samples_per_second": parsed["samples_per_second"], "system_tokens_per_second": tokens,
                 "accelerators": count, "latency_bound_ns": bound, "per_accelerator": "system figure / accelerators"},
        loadgen_summary_log=parsed["summary_text"] or "", loadgen_detail_log=parsed["detail_text"] or "",
    )  # fmt: skip
    return run

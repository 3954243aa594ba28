"""The workload registry: what "the same work" means, stated once.

A workload is a model at stated shapes, in a stated unit of work, with a quality target and the
deployment unit it is bought in. Every ranking, plan, alarm and comparison is for one workload; model
classes only group workloads. This module is plain Python (no Django, no torch) so the web process can
validate names and label answers without loading the harness.

Sources of the figures below (mlcommons/inference unless stated):
- Latency bounds: read from the installed LoadGen's own ``mlperf.conf`` (``workloads.mlperf_conf``:
  ``<model>.Server.target_latency``, ``ttft_latency``, ``tpot_latency``), never typed here; a benchmark the
  config bounds gets its bounds from it under its published name (``llama3_1-8b`` is ``llama3.1-8b``).
- Quality targets: ``docs/index.md`` and each benchmark's README ("Accuracy Target").
- Token lengths: ``max_*_tokens`` are the benchmark's bounds (dataset preprocessing limits and the
  reference SUT's ``max_tokens``); ``output_tokens_per_request`` is filled only where MLPerf publishes
  a mean in tokens (the ``tokens_per_sample`` accuracy target, e.g. 294.45 for llama2-70b). MLPerf
  publishes no mean input length in tokens for any LLM benchmark, and for llama3.1-8b and gptj only
  ``gen_len``, which counts output *characters* (evaluation.py sums ``len(text)``), so those stay None.
- Parameter counts of the 2025-2026 LLMs (gpt-oss-120b, DeepSeek-R1, Qwen3-VL, Wan 2.2) are their model
  cards' stated totals (and active parameters of the mixture-of-experts), rounded as the card states them;
  ``weights_precision`` is the dtype of the published reference checkpoint (its config's ``torch_dtype`` or
  the card's quantisation).
- Parameter counts: the published checkpoints' configurations (Hugging Face ``config.json`` /
  torchvision / the MLPerf reference model definition), computed the way ``sum(p.numel())`` counts
  them; the harness's reference builds are tested against the same figures on the meta device.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum

from . import mlperf_conf


class Unit(StrEnum):
    """The unit of work a throughput figure counts."""

    INFERENCES = "inferences"
    SAMPLES = "samples"
    INPUT_TOKENS = "input_tokens"
    OUTPUT_TOKENS = "output_tokens"
    TOTAL_TOKENS = "total_tokens"


@dataclass(frozen=True)
class ModelClass:
    id: str
    title: str
    reference_workload: str


@dataclass(frozen=True)
class LlmSla:
    """An LLM serving SLA: both bounds must hold at p99 (MLPerf's Server/Interactive constraints)."""

    ttft_p99_ms: Decimal
    tpot_p99_ms: Decimal
    name: str = ""

    def __str__(self) -> str:
        label = f"{self.name}: " if self.name else ""
        return f"{label}TTFT p99 ≤ {self.ttft_p99_ms} ms, TPOT p99 ≤ {self.tpot_p99_ms} ms"


@dataclass(frozen=True)
class KvCacheShape:
    """What one token of context holds in an LLM's KV cache: a key and a value vector of ``head_dim`` per KV head per
    layer (grouped-query attention keeps fewer KV heads than query heads). Figures from each checkpoint's
    ``config.json`` on Hugging Face: num_hidden_layers, num_key_value_heads, hidden_size / num_attention_heads."""

    layers: int
    kv_heads: int
    head_dim: int

    def bytes_per_token(self, bytes_per_value) -> Decimal:
        return 2 * self.layers * self.kv_heads * self.head_dim * Decimal(bytes_per_value)


@dataclass(frozen=True)
class Workload:
    """One unit of comparison.

    ``unit`` is what one unit of throughput counts. For LLM workloads it is output tokens, and
    ``input_tokens_per_request`` / ``output_tokens_per_request`` (mean per request, None where no
    citable figure exists) convert requests to tokens; ``max_input_tokens`` / ``max_output_tokens`` are
    the benchmark's bounds (an upper bound on a request's work where no mean is published).
    ``accelerators_per_replica`` is the
    deployment unit of a measured run of this workload on our harness (published results carry their
    own system's count). ``harness`` is (model_class, size) of the harness module that runs it, or
    None when only published results exist.
    """

    id: str
    model_class: str
    title: str
    reference_model: str
    unit: Unit
    input_description: str
    quality_target: str
    parameter_count: int | None = None
    active_parameter_count: int | None = None  # per token, for a mixture of experts (model card)
    weights_precision: str = ""  # the reference checkpoint's weights (bf16, fp16, fp8, mxfp4 ...)
    input_tokens_per_request: Decimal | None = None
    output_tokens_per_request: Decimal | None = None
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    accelerators_per_replica: int = 1
    published_benchmarks: tuple[str, ...] = ()
    smoke_stand_in_for: str | None = None
    harness: tuple[str, str] | None = None
    mixture_of_experts: bool = False
    kv_cache: KvCacheShape | None = None  # LLM workloads: sizes the KV cache a deployable unit must hold
    # Standard SLAs: p99 latency bounds in ms (None = no SLA) for non-LLM workloads, LlmSla for LLMs. The first
    # listed is the workload's reference SLA (accounting.policy.reference_sla): the benchmark's own bound, MLPerf's
    # Server bound where it has one.
    standard_slas_ms: tuple[Decimal | None, ...] = (None,)
    standard_llm_slas: tuple[LlmSla, ...] = ()
    notes: str = ""
    user_defined: bool = False
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def is_llm(self) -> bool:
        return self.model_class == LLM_DECODER

    @property
    def is_smoke_test(self) -> bool:
        return self.smoke_stand_in_for is not None

    @property
    def tokens_per_request(self) -> Decimal | None:
        if self.input_tokens_per_request is None or self.output_tokens_per_request is None:
            return None
        return self.input_tokens_per_request + self.output_tokens_per_request


LLM_DECODER = "llm-decoder"

MODEL_CLASSES: dict[str, ModelClass] = {
    c.id: c
    for c in (
        ModelClass("llm-decoder", "LLM (decoder, text generation)", "llama2-70b-99"),
        ModelClass("encoder", "Text encoder (question answering)", "bert-large-99"),
        ModelClass("cv-classification", "Image classification", "resnet50"),
        ModelClass("object-detection", "Object detection", "retinanet"),
        ModelClass("image-generation", "Image generation (diffusion)", "stable-diffusion-xl"),
        ModelClass("video-generation", "Video generation (diffusion)", "wan-2.2-t2v-a14b"),
        ModelClass("vision-language", "Vision-language model (image and text in, text out)", "qwen3-vl-235b-a22b"),
        ModelClass("speech-to-text", "Speech to text", "whisper-large-v3"),
        ModelClass("recommendation", "Recommendation", "dlrm-v2-99"),
        ModelClass("medical-segmentation", "Medical image segmentation", "3d-unet-99"),
        ModelClass("graph", "Graph neural network", "rgat"),
        ModelClass("tabular", "Tabular scoring (MLP)", "risk-mlp"),
        ModelClass("agentic", "Agentic tasks (an LLM calling tools, end to end)", "qwen3.6-27b"),
        ModelClass("rag", "Retrieval-augmented generation, end to end", "e2e-rag-qna"),
    )
}

_MS = Decimal


class UnknownWorkload(ValueError):
    """A workload id, harness name or published benchmark name the registry does not know."""


def normalise_benchmark_name(name: str) -> str:
    """MLPerf spells one benchmark several ways across rounds and submitters: 'llama3_1-405b',
    'Llama3.1-405B', 'llama3.1-405b'. Lower-case, trim, and write version separators as dots."""
    cleaned = name.strip().lower().replace(" ", "-")
    # An underscore between two digits is a version separator (llama3_1 -> llama3.1).
    return re.sub(r"(?<=\d)_(?=\d)", ".", cleaned)


def _conf_model(benchmark: str) -> str:
    """The name mlperf.conf gives a published benchmark (its own spelling: 'llama3_1-8b' for 'llama3.1-8b')."""
    wanted = normalise_benchmark_name(benchmark)
    for model in sorted(mlperf_conf.models()):
        if normalise_benchmark_name(model) == wanted:
            return model
    raise UnknownWorkload(f"the installed LoadGen's mlperf.conf states no settings for {benchmark!r}")


_ACCURACY_SUFFIX = re.compile(r"-\d+(\.\d+)?$")  # '-99', '-99.9', '-95': the accuracy target, not the model


def published_in_tokens(benchmark: str) -> bool:
    """Whether MLPerf scores a published benchmark's throughput in tokens (its mlperf.conf says it logs token
    latencies): a results-table row labelled otherwise (whisper's 'Samples/s') still counts tokens."""
    name = _ACCURACY_SUFFIX.sub("", normalise_benchmark_name(benchmark))
    try:
        return mlperf_conf.scores_tokens(_conf_model(name))
    except UnknownWorkload:
        return False


def _llm_slas(benchmark: str, *, interactive: bool = False) -> tuple[LlmSla, ...]:
    """MLPerf's Server (and Interactive) TTFT/TPOT bounds of `benchmark`, as mlperf.conf states them."""
    slas = []
    for name, label in ((benchmark, "MLPerf Server"), (f"{benchmark}-interactive", "MLPerf Interactive")):
        if label == "MLPerf Interactive" and not interactive:
            continue
        bounds = mlperf_conf.token_bounds_ms(_conf_model(name))
        if bounds is None:
            raise UnknownWorkload(f"mlperf.conf states no TTFT/TPOT bounds for {name!r}")
        slas.append(LlmSla(bounds[0], bounds[1], label))
    return tuple(slas)


def _server_sla_ms(benchmark: str, *more: Decimal | None) -> tuple[Decimal | None, ...]:
    """MLPerf's Server p99 bound of `benchmark` (mlperf.conf) first, then `more` of our own."""
    bound = mlperf_conf.server_bound_ms(_conf_model(benchmark))
    if bound is None:
        raise UnknownWorkload(f"mlperf.conf states no Server latency bound for {benchmark!r}")
    return (bound, *more)


def _quality(benchmark_suffix: str, metric: str) -> str:
    return f"{benchmark_suffix} % of the FP32 reference's {metric}"


# Our own and the smoke-test workloads have no published quality target: the harness's guard compares each
# backend/precision with the fp32 run of the same weights.
_FP32_GUARD = "fp32 reference of the same weights (accuracy guard)"


_BUILT_IN: tuple[Workload, ...] = (
    # --- LLM decoders -------------------------------------------------------------------------------
    *(
        Workload(
            id=f"llama2-70b-{q}",
            model_class=LLM_DECODER,
            title=f"Llama-2-70B chat, OpenOrca (MLPerf llama2-70b-{q})",
            reference_model="Llama-2-70b-chat-hf",
            weights_precision="fp16",
            parameter_count=68_976_648_192,
            # meta-llama/Llama-2-70b-chat-hf config.json: 80 layers, 8 KV heads, 8,192 hidden / 64 heads = 128.
            kv_cache=KvCacheShape(layers=80, kv_heads=8, head_dim=128),
            unit=Unit.OUTPUT_TOKENS,
            input_description="OpenOrca (GPT-4 split) prompts, up to 1,024 input and 1,024 output tokens",
            # README "Accuracy Target": rouge1 44.4312, rouge2 22.0352, rougeL 28.6162, tokens per
            # sample 294.45 (the submission checker accepts 90-110 % of it).
            quality_target=_quality(q, "ROUGE-1/2/L (44.4312 / 22.0352 / 28.6162)")
            + ", output tokens per sample within 10 % of 294.45",
            # language/llama2-70b/README.md: "Tokens per sample: 294.45" (mean output tokens).
            output_tokens_per_request=_MS("294.45"),
            max_input_tokens=1024,
            max_output_tokens=1024,
            published_benchmarks=(f"llama2-70b-{q}", f"llama2-70b-interactive-{q}"),
            standard_llm_slas=_llm_slas("llama2-70b", interactive=True),
        )
        for q in ("99", "99.9")
    ),
    Workload(
        id="llama3.1-8b",
        model_class=LLM_DECODER,
        title="Llama-3.1-8B instruct, CNN/DailyMail summarisation (MLPerf llama3.1-8b)",
        reference_model="Meta-Llama-3.1-8B-Instruct",
        weights_precision="bf16",
        parameter_count=8_030_261_248,
        # meta-llama/Llama-3.1-8B-Instruct config.json: 32 layers, 8 KV heads, 4,096 hidden / 32 heads = 128.
        kv_cache=KvCacheShape(layers=32, kv_heads=8, head_dim=128),
        unit=Unit.OUTPUT_TOKENS,
        input_description="CNN/DailyMail articles, up to 2,048 input and 128 output tokens",
        # README "Accuracy Target" (datacenter): 99 % of rouge1 38.7792, rouge2 15.9075, rougeL
        # 24.4957, rougeLsum 35.793, and 90 % of gen_len 8,167,644 characters over 13,368 samples.
        quality_target=_quality("99", "ROUGE-1/2/L/Lsum (38.7792 / 15.9075 / 24.4957 / 35.793)")
        + ", generated length at least 90 % of the reference's",
        # PREPROCESSING.md: max_length 2048; SUT_VLLM_SingleReplica.py: max_tokens=128. No mean in
        # tokens is published, so the harness measures every request at these bounds.
        max_input_tokens=2048,
        max_output_tokens=128,
        published_benchmarks=("llama3.1-8b", "llama3.1-8b-interactive", "llama3.1-8b-edge"),
        standard_llm_slas=_llm_slas("llama3.1-8b", interactive=True),
        harness=(LLM_DECODER, "reference"),
    ),
    Workload(
        id="llama3.1-405b",
        model_class=LLM_DECODER,
        title="Llama-3.1-405B instruct (MLPerf llama3.1-405b)",
        reference_model="Meta-Llama-3.1-405B-Instruct",
        weights_precision="bf16",
        parameter_count=405_853_388_800,
        # meta-llama/Llama-3.1-405B-Instruct config.json: 126 layers, 8 KV heads, 16,384 hidden / 128 heads = 128.
        kv_cache=KvCacheShape(layers=126, kv_heads=8, head_dim=128),
        unit=Unit.OUTPUT_TOKENS,
        input_description="Long-context prompts, up to 20,000 input tokens",
        # README "Accuracy Target": 99 % of rougeL 21.6666 and exact_match 90.1335, 90 % of
        # tokens_per_sample 684.68.
        quality_target=_quality("99", "ROUGE-L (21.6666) and exact match (90.1335)")
        + ", output tokens per sample at least 90 % of 684.68",
        output_tokens_per_request=_MS("684.68"),
        published_benchmarks=("llama3.1-405b", "llama3.1-405b-interactive"),
        standard_llm_slas=_llm_slas("llama3.1-405b", interactive=True),
    ),
    Workload(
        id="mixtral-8x7b",
        model_class=LLM_DECODER,
        title="Mixtral-8x7B instruct (MLPerf mixtral-8x7b)",
        reference_model="Mixtral-8x7B-Instruct-v0.1",
        weights_precision="bf16",
        parameter_count=46_702_792_704,
        # mistralai/Mixtral-8x7B-Instruct-v0.1 config.json: 32 layers, 8 KV heads, 4,096 hidden / 32 heads = 128.
        kv_cache=KvCacheShape(layers=32, kv_heads=8, head_dim=128),
        unit=Unit.OUTPUT_TOKENS,
        input_description="OpenOrca, GSM8K and MBXP prompts (5,000 each), up to 2,048 input tokens",
        # README "Accuracy Target": 99 % of rouge1 45.5989 / rouge2 23.3526 / rougeL 30.4608, GSM8K
        # 73.66, MBXP 60.16; 90-110 % of tokens_per_sample 144.84 (non-EOS output tokens).
        quality_target=_quality("99", "ROUGE-1/2/L, GSM8K (73.66) and MBXP (60.16) scores")
        + ", output tokens per sample within 10 % of 144.84",
        output_tokens_per_request=_MS("144.84"),
        max_input_tokens=2048,
        published_benchmarks=("mixtral-8x7b",),
        mixture_of_experts=True,
        standard_llm_slas=_llm_slas("mixtral-8x7b"),
    ),
    Workload(
        id="deepseek-r1",
        model_class=LLM_DECODER,
        title="DeepSeek-R1 reasoning (MLPerf deepseek-r1)",
        reference_model="DeepSeek-R1",
        # Model card (huggingface.co/deepseek-ai/DeepSeek-R1): 671B total, 37B activated; FP8 weights.
        parameter_count=671_000_000_000,
        active_parameter_count=37_000_000_000,
        weights_precision="fp8",
        unit=Unit.OUTPUT_TOKENS,
        input_description="Reasoning prompts with long outputs",
        quality_target=_quality("99", "exact match"),
        published_benchmarks=("deepseek-r1", "deepseek-r1-interactive"),
        mixture_of_experts=True,
        standard_llm_slas=_llm_slas("deepseek-r1", interactive=True),
    ),
    Workload(
        id="gpt-oss-120b",
        model_class=LLM_DECODER,
        title="gpt-oss-120b reasoning (MLPerf gpt-oss-120b)",
        reference_model="openai/gpt-oss-120b",
        # Model card (openai.com/index/gpt-oss-model-card): 116.83B total, 5.13B active per token; the
        # mixture-of-experts weights in MXFP4, the rest in BF16.
        parameter_count=116_830_000_000,
        active_parameter_count=5_130_000_000,
        weights_precision="mxfp4",
        unit=Unit.OUTPUT_TOKENS,
        input_description="Reasoning and coding prompts (AIME, GPQA, LiveCodeBench) with long outputs",
        quality_target=_quality("99", "exact match / pass@1"),
        published_benchmarks=("gpt-oss-120b", "gpt-oss-120b-interactive"),
        mixture_of_experts=True,
        standard_llm_slas=_llm_slas("gpt-oss-120b", interactive=True),
    ),
    *(
        Workload(
            id=f"gptj-{q}",
            model_class=LLM_DECODER,
            title=f"GPT-J 6B, CNN/DailyMail summarisation (MLPerf gptj-{q})",
            reference_model="GPT-J-6B",
            weights_precision="fp32",
            parameter_count=6_053_381_344,
            # EleutherAI/gpt-j-6b config.json: n_layer 28, n_head 16 (no grouped-query attention), n_embd 4,096 / 16.
            kv_cache=KvCacheShape(layers=28, kv_heads=16, head_dim=256),
            unit=Unit.OUTPUT_TOKENS,
            input_description="CNN/DailyMail articles, up to 1,919 input and 128 output tokens",
            # language/gpt-j/README.md: rouge1 42.9865, rouge2 20.1235, rougeL 29.9881 (beam 4).
            quality_target=_quality(q, "ROUGE-1/2/L (42.9865 / 20.1235 / 29.9881)"),
            max_input_tokens=1919,
            max_output_tokens=128,
            published_benchmarks=(f"gptj-{q}",),
            # MLPerf bounds GPT-J's whole-query latency (20 s), not TTFT/TPOT.
            standard_slas_ms=_server_sla_ms("gptj", None),
        )
        for q in ("99", "99.9")
    ),
    Workload(
        id="llm-decoder-tiny",
        model_class=LLM_DECODER,
        title="Tiny Llama-design decoder (smoke test)",
        reference_model="2-layer, 64-dim Llama-design decoder with random weights",
        unit=Unit.OUTPUT_TOKENS,
        input_description="32 prompt tokens, 16 generated tokens",
        quality_target=_FP32_GUARD,
        input_tokens_per_request=_MS(32),
        output_tokens_per_request=_MS(16),
        max_input_tokens=32,
        max_output_tokens=16,
        smoke_stand_in_for="llama3.1-8b",
        harness=(LLM_DECODER, "tiny"),
        standard_llm_slas=(LlmSla(_MS("200"), _MS("50"), "smoke test"),),
    ),
    # --- Encoders -----------------------------------------------------------------------------------
    *(
        Workload(
            id=f"bert-large-{q}",
            model_class="encoder",
            title=f"BERT-large, SQuAD v1.1 at sequence length 384 (MLPerf bert-{q})",
            # MLPerf's model is BertForQuestionAnswering (language/bert/bert_config.json: vocab 30,522,
            # 24 layers, hidden 1,024, 16 heads, FFN 4,096, 512 positions, 2 token types): BERT-large
            # without the pooler, plus a 1,024 -> 2 span head: 334,092,288 + 2,050 parameters.
            reference_model="BERT-large for question answering (24 layers, 1,024 hidden, 16 heads, span head)",
            parameter_count=334_094_338,
            unit=Unit.SAMPLES,
            input_description="SQuAD v1.1, 384 tokens per sample",
            quality_target=_quality(q, "F1 (90.874 %)"),
            weights_precision="fp32",
            published_benchmarks=(f"bert-{q}",),
            harness=("encoder", "reference") if q == "99" else None,
            standard_slas_ms=_server_sla_ms("bert", None),
        )
        for q in ("99", "99.9")
    ),
    Workload(
        id="encoder-tiny",
        model_class="encoder",
        title="Tiny BERT-design encoder (smoke test)",
        reference_model="2-layer, 64-dim BERT-design encoder with random weights",
        unit=Unit.SAMPLES,
        input_description="32 tokens per sample",
        quality_target=_FP32_GUARD,
        smoke_stand_in_for="bert-large-99",
        harness=("encoder", "tiny"),
        standard_slas_ms=(_MS("50"), _MS("130"), None),
    ),
    # --- Vision -------------------------------------------------------------------------------------
    Workload(
        id="resnet50",
        model_class="cv-classification",
        title="ResNet-50 v1.5, ImageNet 224×224 (MLPerf resnet50)",
        reference_model="ResNet-50 v1.5",
        weights_precision="fp32",
        parameter_count=25_557_032,
        unit=Unit.SAMPLES,
        input_description="ImageNet 2012 validation, 224×224 RGB images",
        quality_target=_quality("99", "top-1 accuracy (76.46 %)"),
        published_benchmarks=("resnet50", "resnet"),
        harness=("cv-classification", "reference"),
        standard_slas_ms=_server_sla_ms("resnet50", _MS("100"), None),
    ),
    Workload(
        id="cv-classification-tiny",
        model_class="cv-classification",
        title="Tiny CNN at 32×32 (smoke test)",
        reference_model="small ResNet-design CNN with random weights",
        unit=Unit.SAMPLES,
        input_description="32×32 RGB images",
        quality_target=_FP32_GUARD,
        smoke_stand_in_for="resnet50",
        harness=("cv-classification", "tiny"),
        standard_slas_ms=(_MS("15"), _MS("100"), None),
    ),
    Workload(
        id="retinanet",
        model_class="object-detection",
        title="RetinaNet ResNeXt50, OpenImages 800×800 (MLPerf retinanet)",
        reference_model="RetinaNet (ResNeXt50-32x4d FPN)",
        unit=Unit.SAMPLES,
        input_description="800×800 RGB images",
        quality_target=_quality("99", "mAP (0.3755)"),
        published_benchmarks=("retinanet",),
        standard_slas_ms=_server_sla_ms("retinanet", None),
    ),
    Workload(
        id="stable-diffusion-xl",
        model_class="image-generation",
        title="Stable Diffusion XL 1.0, COCO prompts at 1024×1024 (MLPerf stable-diffusion-xl)",
        reference_model="SDXL 1.0 base",
        unit=Unit.SAMPLES,
        input_description="one prompt per sample, one 1024×1024 image out, 20 denoising steps",
        quality_target="FID and CLIP score within MLPerf's bounds",
        published_benchmarks=("stable-diffusion-xl",),
        standard_slas_ms=_server_sla_ms("stable-diffusion-xl", None),
    ),
    *(
        Workload(
            id=f"yolo-{q}",
            model_class="object-detection",
            title=f"YOLO object detection, COCO (MLPerf yolo-{q})",
            reference_model="YOLO (the round's reference detector)",
            # The round's reference checkpoint was not read here: no parameter count is stated rather than a guess.
            unit=Unit.SAMPLES,
            input_description="COCO images",
            quality_target=_quality(q, "mAP"),
            published_benchmarks=(f"yolo-{q}",),
        )
        for q in ("95", "99")
    ),
    Workload(
        id="wan-2.2-t2v-a14b",
        model_class="video-generation",
        title="Wan 2.2 text to video, A14B (MLPerf wan-2.2-t2v-a14b)",
        reference_model="Wan-AI/Wan2.2-T2V-A14B",
        # Model card: a mixture of two 14B experts (high- and low-noise), 27B total, 14B active per step; BF16.
        parameter_count=27_000_000_000,
        active_parameter_count=14_000_000_000,
        weights_precision="bf16",
        unit=Unit.SAMPLES,
        input_description="one text prompt per sample, one video out",
        quality_target="the benchmark's video quality scores within MLPerf's bounds",
        published_benchmarks=("wan-2.2-t2v-a14b",),
        mixture_of_experts=True,
    ),
    Workload(
        id="qwen3-vl-235b-a22b",
        model_class="vision-language",
        title="Qwen3-VL-235B-A22B, image and text to text (MLPerf qwen3-vl-235b-a22b)",
        reference_model="Qwen/Qwen3-VL-235B-A22B-Instruct",
        # Model card: 235B total, 22B activated (the name states both); BF16 weights.
        parameter_count=235_000_000_000,
        active_parameter_count=22_000_000_000,
        weights_precision="bf16",
        unit=Unit.SAMPLES,
        input_description="product images with text prompts; a short text answer per sample",
        quality_target=_quality("99", "F1"),
        published_benchmarks=("qwen3-vl-235b-a22b",),
        mixture_of_experts=True,
        # mlperf.conf bounds the whole query (use_token_latencies = 0): the answers are short.
        standard_slas_ms=_server_sla_ms("qwen3-vl-235b-a22b", None),
    ),
    *(
        Workload(
            id=f"3d-unet-{q}",
            model_class="medical-segmentation",
            title=f"3D U-Net, KiTS19 (MLPerf 3d-unet-{q})",
            reference_model="3D U-Net",
            unit=Unit.SAMPLES,
            input_description="KiTS19 CT volumes of varying size",
            quality_target=_quality(q, "mean DICE (0.86330)"),
            published_benchmarks=(f"3d-unet-{q}",),
        )
        for q in ("99", "99.9")
    ),
    # --- Speech, recommendation, graph --------------------------------------------------------------
    Workload(
        id="whisper-large-v3",
        model_class="speech-to-text",
        title="Whisper large-v3, LibriSpeech (MLPerf whisper)",
        reference_model="whisper-large-v3",
        unit=Unit.SAMPLES,
        input_description="LibriSpeech utterances",
        quality_target=_quality("99", "word accuracy"),
        published_benchmarks=("whisper",),
    ),
    *(
        Workload(
            id=f"dlrm-v2-{q}",
            model_class="recommendation",
            title=f"DLRM-v2, Criteo 1TB multi-hot (MLPerf dlrm-v2-{q})",
            # recommendation/dlrm_v2 reference: 26 tables of dim 128 with the Criteo 1TB multi-hot sizes
            # (204,184,588 rows: 26,135,627,264 parameters), bottom MLP 13-512-256-128 (171,392),
            # DCNv2 cross net 3 layers of rank 512 over 3,456 features (10,627,200), top MLP
            # 3,456-1,024-1,024-512-256-1 (5,245,953). 104.6 GB in fp32.
            reference_model="DLRM-v2 (26 embedding tables of dim 128, DCNv2 cross net, MLPs 512-256-128 "
            "and 1024-1024-512-256-1)",
            parameter_count=26_151_671_809,
            unit=Unit.SAMPLES,
            input_description="13 dense features and 26 multi-hot categorical features (214 ids) per sample",
            quality_target=_quality(q, "AUC (80.31 %)"),
            published_benchmarks=(f"dlrm-v2-{q}",),
            harness=("recommendation", "reference") if q == "99" else None,
            standard_slas_ms=_server_sla_ms("dlrm-v2", None),
        )
        for q in ("99", "99.9")
    ),
    Workload(
        id="dlrm-v3",
        model_class="recommendation",
        title="DLRM-v3, generative recommender (MLPerf dlrm-v3)",
        reference_model="DLRM-v3 (the round's reference model)",
        # The round's reference checkpoint was not read here: no parameter count is stated rather than a guess.
        unit=Unit.SAMPLES,
        input_description="user interaction sequences",
        quality_target="the benchmark's NE / accuracy / AUC within MLPerf's bounds",
        published_benchmarks=("dlrm-v3",),
        standard_slas_ms=_server_sla_ms("dlrm-v3", None),
    ),
    Workload(
        id="recommendation-tiny",
        model_class="recommendation",
        title="Tiny DLRM-v2-design recommender (smoke test)",
        reference_model="26 embedding tables of at most 1,000 rows of dim 16, 2-layer DCNv2 cross net",
        unit=Unit.SAMPLES,
        input_description="13 dense features and 26 multi-hot categorical features (214 ids) per sample",
        quality_target=_FP32_GUARD,
        smoke_stand_in_for="dlrm-v2-99",
        harness=("recommendation", "tiny"),
        standard_slas_ms=(_MS("60"), None),
    ),
    Workload(
        id="rgat",
        model_class="graph",
        title="R-GAT, IGBH (MLPerf rgat)",
        reference_model="R-GAT",
        unit=Unit.SAMPLES,
        input_description="IGBH node classification",
        quality_target=_quality("99", "accuracy"),
        published_benchmarks=("rgat",),
    ),
    # --- End-to-end pipelines (v6.1) ---------------------------------------------------------------------
    Workload(
        id="qwen3.6-27b",
        model_class="agentic",
        title="Agentic tasks with Qwen3.6-27B on an edge system (MLPerf qwen3.6-27b, 'agentic edge')",
        reference_model="Qwen3.6-27B",
        # The name states 27B parameters; the model card was not read here, so no exact count or precision.
        unit=Unit.SAMPLES,
        input_description="one agentic task per sample (the benchmark's task set)",
        quality_target="the benchmark's task success rate within MLPerf's bounds",
        published_benchmarks=("qwen3.6-27b",),
        notes="MLPerf publishes its SingleStream latency per task; mlperf.conf of LoadGen 6.0 states no bound for it",
    ),
    Workload(
        id="e2e-rag-qna",
        model_class="rag",
        title="End-to-end retrieval-augmented question answering (MLPerf e2e-rag-qna)",
        reference_model="the benchmark's retrieval + generation pipeline",
        unit=Unit.SAMPLES,
        input_description="one question per task, answered from a document store",
        quality_target="the benchmark's answer quality within MLPerf's bounds",
        published_benchmarks=("e2e-rag-qna",),
        notes="published in tasks/s: one task is one question answered end to end",
    ),
    Workload(
        id="e2e-rag-db",
        model_class="rag",
        title="End-to-end retrieval: the vector-database stage (MLPerf e2e-rag-db)",
        reference_model="the benchmark's vector database",
        unit=Unit.SAMPLES,
        input_description="one retrieval query per sample",
        quality_target="the benchmark's recall within MLPerf's bounds",
        published_benchmarks=("e2e-rag-db",),
    ),
    # --- Tabular (ours) -----------------------------------------------------------------------------
    Workload(
        id="risk-mlp",
        model_class="tabular",
        title="Risk-scoring MLP, 512 features (InferLedger reference)",
        reference_model="MLP 512→1024→512→256→1",
        # 512·1024+1024 + 1024·512+512 + 512·256+256 + 256·1+1 (our own design; no published model).
        parameter_count=1_181_697,
        unit=Unit.INFERENCES,
        input_description="512 float features per inference",
        quality_target=_FP32_GUARD,
        harness=("tabular", "reference"),
        standard_slas_ms=(_MS("5"), _MS("20"), None),
    ),
    Workload(
        id="tabular-tiny",
        model_class="tabular",
        title="Tiny risk-scoring MLP (smoke test)",
        reference_model="MLP 256→1024→512→1 with random weights",
        unit=Unit.INFERENCES,
        input_description="256 float features per inference",
        quality_target=_FP32_GUARD,
        smoke_stand_in_for="risk-mlp",
        harness=("tabular", "tiny"),
        standard_slas_ms=(_MS("5"), _MS("20"), None),
    ),
)

WORKLOADS: dict[str, Workload] = {w.id: w for w in _BUILT_IN}


# A running inference server that a user declared (harness.endpoints): its workload is whatever the
# server runs, so its id is the user's ``endpoint:<name>`` and its runs rank only against runs of that id.
ENDPOINT = "endpoint"
# The name a user declares an endpoint, a trace or a model file under (its workload id is ``<kind>:<name>``).
DECLARED_NAME = r"[a-z0-9][a-z0-9._-]{0,47}"
DECLARED_NAME_PATTERN = re.compile(rf"^{DECLARED_NAME}$")
ENDPOINT_ID = re.compile(rf"^endpoint:{DECLARED_NAME}$")


def endpoint_workload(workload_id: str) -> Workload:
    """The user-declared workload of an endpoint id (``endpoint:<name>``); raises UnknownWorkload otherwise."""
    if not ENDPOINT_ID.match(workload_id):
        raise UnknownWorkload(f"{workload_id!r} is not an endpoint workload id (endpoint:<lowercase name>)")
    return _served_by_an_endpoint(
        workload_id,
        f"Endpoint {workload_id.removeprefix('endpoint:')} (user-declared)",
        "as declared with the endpoint (prompt and output tokens per request)",
    )


def _served_by_an_endpoint(workload_id: str, title: str, input_description: str) -> Workload:
    """A user-declared workload measured through an endpoint: whatever the server runs, in output tokens."""
    return Workload(
        id=workload_id,
        model_class=ENDPOINT,
        title=title,
        reference_model="whatever the endpoint serves",
        unit=Unit.OUTPUT_TOKENS,
        input_description=input_description,
        quality_target="not measured: the endpoint's own",
        user_defined=True,
    )


# A request trace declared once (harness.endpoints.trace) and replayed against endpoints: its work is the trace's
# requests (their lengths, and their arrival times when replayed at them), so its id is ``trace:<name>`` and its
# runs rank only against runs of the same trace, whichever endpoint served them. Measured through an endpoint, its
# runs are of the endpoint model class (output tokens), so the serving fronts read them as any endpoint's.
TRACE = "trace"
TRACE_ID = re.compile(rf"^trace:{DECLARED_NAME}$")


def trace_workload(workload_id: str) -> Workload:
    """The workload of a declared trace's id (``trace:<name>``); raises UnknownWorkload otherwise."""
    if not TRACE_ID.match(workload_id):
        raise UnknownWorkload(f"{workload_id!r} is not a trace workload id (trace:<lowercase name>)")
    return _served_by_an_endpoint(
        workload_id,
        f"Trace {workload_id.removeprefix('trace:')} (user-declared, replayed against an endpoint)",
        "the trace's requests, with the lengths (and arrival times) it records",
    )


# A published benchmark the registry does not declare (yet): stored under its MLPerf name as ``mlperf:<name>`` and
# ranked only against results of that name. Declaring it later moves its stored results to the declared workload
# (results.mlperf.adopt), with no re-import.
UNDECLARED = "mlperf"
NOT_DECLARED = "not declared: ranked only against itself"
UNDECLARED_ID = re.compile(r"^mlperf:[a-z0-9][a-z0-9._+-]{0,56}$")


def undeclared_id(benchmark: str) -> str:
    """The workload id of a published benchmark the registry does not declare: its normalised MLPerf name."""
    return f"{UNDECLARED}:{normalise_benchmark_name(benchmark)}"


def undeclared_workload(workload_id: str, *, unit: Unit = Unit.SAMPLES) -> Workload:
    """The workload of an undeclared benchmark's id; `unit` is the one its published figures count."""
    if not UNDECLARED_ID.match(workload_id):
        raise UnknownWorkload(f"{workload_id!r} is not an undeclared benchmark id (mlperf:<normalised name>)")
    name = workload_id.removeprefix(f"{UNDECLARED}:")
    return Workload(
        id=workload_id,
        model_class=UNDECLARED,
        title=f"MLPerf {name} ({NOT_DECLARED})",
        reference_model=f"as MLPerf's {name} benchmark defines it",
        unit=unit,
        input_description=f"as MLPerf's {name} benchmark defines it",
        quality_target="MLPerf's own accuracy target for the benchmark (checked before publication)",
        notes=NOT_DECLARED,
        user_defined=True,
    )


def get(workload_id: str) -> Workload:
    """A built-in, endpoint or trace workload ``workload_id``; raises UnknownWorkload naming the known ids.

    ``workloads.get`` (workloads/lookup.py) also resolves user-declared ``user:<name>`` ids."""
    if workload_id.startswith(f"{ENDPOINT}:"):
        return endpoint_workload(workload_id)
    if workload_id.startswith(f"{TRACE}:"):
        return trace_workload(workload_id)
    try:
        return WORKLOADS[workload_id]
    except KeyError:
        raise UnknownWorkload(f"unknown workload {workload_id!r}; known: {', '.join(sorted(WORKLOADS))}") from None


def all_workloads(*, include_smoke_tests: bool = True) -> list[Workload]:
    return [w for w in WORKLOADS.values() if include_smoke_tests or not w.is_smoke_test]


def for_model_class(model_class: str, *, include_smoke_tests: bool = True) -> list[Workload]:
    return [w for w in all_workloads(include_smoke_tests=include_smoke_tests) if w.model_class == model_class]


def reference_for(model_class: str) -> Workload:
    """The workload a model class's answers default to (named in every response that uses it)."""
    try:
        return WORKLOADS[MODEL_CLASSES[model_class].reference_workload]
    except KeyError:
        raise UnknownWorkload(
            f"unknown model class {model_class!r}; known: {', '.join(sorted(MODEL_CLASSES))}"
        ) from None


def for_harness(model_class: str, size: str) -> Workload:
    """The registered workload that the harness runs as ``model_class`` at ``size``."""
    for workload in WORKLOADS.values():
        if workload.harness == (model_class, size):
            return workload
    raise UnknownWorkload(f"no registered workload for harness {model_class!r} at size {size!r}")


@dataclass(frozen=True)
class PublishedBenchmark:
    """A published benchmark name resolved to its workload; ``variant`` is '' or e.g. 'interactive'."""

    name: str
    workload: Workload
    variant: str = ""


_VARIANT_WORDS = ("interactive", "edge")


def published_benchmark(name: str) -> PublishedBenchmark:
    """Resolve a published benchmark name (any spelling rule above) to its workload."""
    normalised = normalise_benchmark_name(name)
    for workload in WORKLOADS.values():
        for published in workload.published_benchmarks:
            if normalise_benchmark_name(published) == normalised:
                variant = next((w for w in _VARIANT_WORDS if f"-{w}" in normalised), "")
                return PublishedBenchmark(name=name, workload=workload, variant=variant)
    raise UnknownWorkload(f"published benchmark {name!r} maps to no registered workload")

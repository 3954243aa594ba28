"""A measured concurrency sweep of an LLM workload on two accelerators, shared by the API and page tests."""


def llm_point(tpot_ms, output_tps, *, ttft_ms=300.0, **fields):
    llm = {"prompt_tokens": 1000, "output_tokens": 250}
    return {
        "throughput_per_s": output_tps, "throughput_unit": "output_tokens", "output_tokens_per_s": output_tps,
        "latency_p99_ms": 60000.0, "tpot_p99_ms": tpot_ms, "ttft_p99_ms": ttft_ms, "details": {"llm": llm},
        **fields,
    }  # fmt: skip


def make_sweep(make_accelerator, make_price, make_run):
    """Two accelerators measured at three concurrencies each on Llama-3.1-8B, one on one GPU, one on two."""
    alpha = make_accelerator("Alpha", tdp_w=700)
    beta = make_accelerator("Beta", tdp_w=500)
    make_price(alpha, "2.88")  # 2.88 USD per accelerator-hour
    make_price(beta, "3.60", accelerators_per_instance=2)  # 1.80 USD per accelerator-hour
    kwargs = {"model_class": "llm-decoder", "workload_name": "llama3.1-8b", "backend": "vllm", "precision": "bf16"}
    # Alpha (1 GPU): 10 tok/s/user at 1200 tok/s, 20 at 800, 40 at 400.
    make_run(alpha, [llm_point(100, 1200), llm_point(50, 800), llm_point(25, 400)], **kwargs)
    # Beta (2 GPUs per replica): per accelerator 10 tok/s/user at 1000, 20 at 600; nothing faster measured.
    make_run(beta, [llm_point(100, 2000), llm_point(50, 1200)], accelerator_count=2, **kwargs)
    return alpha, beta

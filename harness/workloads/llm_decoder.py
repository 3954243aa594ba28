"""Llama design (Llama 3): RMSNorm, rotary position embeddings, SwiGLU feed-forward, grouped-query
attention with a preallocated KV cache, and an untied output head. Inference = prefill + greedy decode.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

import workloads as registry

from .base import Workload


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        normed = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)
        return normed.type_as(x) * self.weight


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate interleaved pairs of ``x`` [B, H, T, D] by position angles ``cos``/``sin`` [T, D/2]."""
    x1, x2 = x[..., 0::2].float(), x[..., 1::2].float()
    out = torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)
    return out.flatten(-2).type_as(x)


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.register_buffer("k_cache", torch.empty(0), persistent=False)
        self.register_buffer("v_cache", torch.empty(0), persistent=False)

    def setup_cache(self, batch: int, max_len: int, dtype: torch.dtype) -> None:
        shape = (batch, self.kv_heads, max_len, self.head_dim)
        if tuple(self.k_cache.shape) != shape or self.k_cache.dtype != dtype:
            self.k_cache = torch.zeros(shape, dtype=dtype, device=self.k_cache.device)
            self.v_cache = torch.zeros(shape, dtype=dtype, device=self.k_cache.device)

    def forward(self, x: torch.Tensor, start: int, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        q = self.wq(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        end = start + t
        self.k_cache[:, :, start:end] = k.to(self.k_cache.dtype)
        self.v_cache[:, :, start:end] = v.to(self.v_cache.dtype)
        keys, values = self.k_cache[:, :, :end].to(q.dtype), self.v_cache[:, :, :end].to(q.dtype)
        out = nn.functional.scaled_dot_product_attention(q, keys, values, is_causal=start == 0, enable_gqa=True)
        return self.wo(out.transpose(1, 2).reshape(b, t, -1))


class Block(nn.Module):
    def __init__(self, dim: int, heads: int, kv_heads: int, ffn: int, eps: float):
        super().__init__()
        self.attention_norm = RMSNorm(dim, eps)
        self.attention = Attention(dim, heads, kv_heads)
        self.ffn_norm = RMSNorm(dim, eps)
        self.w1 = nn.Linear(dim, ffn, bias=False)
        self.w2 = nn.Linear(ffn, dim, bias=False)
        self.w3 = nn.Linear(dim, ffn, bias=False)

    def forward(self, x: torch.Tensor, start: int, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.attention_norm(x), start, cos, sin)
        h = self.ffn_norm(x)
        return x + self.w2(nn.functional.silu(self.w1(h)) * self.w3(h))


class Llama(nn.Module):
    def __init__(self, vocab, dim, layers, heads, kv_heads, ffn, max_seq, rope_theta, norm_eps):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(Block(dim, heads, kv_heads, ffn, norm_eps) for _ in range(layers))
        self.norm = RMSNorm(dim, norm_eps)
        self.output = nn.Linear(dim, vocab, bias=False)
        half = dim // heads // 2
        inv_freq = 1.0 / (rope_theta ** (torch.arange(half, dtype=torch.float32) / half))
        angles = torch.outer(torch.arange(max_seq, dtype=torch.float32), inv_freq)
        self.register_buffer("rope_cos", angles.cos(), persistent=False)
        self.register_buffer("rope_sin", angles.sin(), persistent=False)

    def setup_cache(self, batch: int, max_len: int) -> None:
        for layer in self.layers:
            layer.attention.setup_cache(batch, max_len, self.norm.weight.dtype)

    def forward(self, tokens: torch.Tensor, start: int = 0) -> torch.Tensor:
        t = tokens.shape[1]
        cos, sin = self.rope_cos[start : start + t], self.rope_sin[start : start + t]
        x = self.tok_embeddings(tokens)
        for layer in self.layers:
            x = layer(x, start, cos, sin)
        # Only the last position's logits are ever read (the next token), as in serving engines: the whole
        # prompt's, in fp32, were 32 x 2,048 x 128,256 x 4 bytes = 31 GiB for a batch of 32 at Llama-3.1-8B's
        # bounds, which ran an H200 out of memory, and 2.2 TFLOP of output projection per request.
        return self.output(self.norm(x[:, -1:])).float()


class LlmDecoder(Workload):
    """Decoder-only LLM; ``reference`` is Llama-3.1-8B (8,030,261,248 parameters) at MLPerf
    llama3.1-8b's bounds: 2,048 prompt tokens and 128 generated tokens per request. MLPerf publishes
    no mean length in tokens, so each request is measured at the bounds (an upper bound on the work)."""

    model_class = "llm-decoder"
    SIZES = {
        "tiny": {
            "vocab": 512,
            "dim": 64,
            "layers": 2,
            "heads": 4,
            "kv_heads": 2,
            "ffn": 172,
            "max_seq": 256,
            "rope_theta": 500000.0,
            "norm_eps": 1e-5,
            "prompt_tokens": registry.get("llm-decoder-tiny").max_input_tokens,
            "output_tokens": registry.get("llm-decoder-tiny").max_output_tokens,
        },
        "reference": {
            "vocab": 128256,
            "dim": 4096,
            "layers": 32,
            "heads": 32,
            "kv_heads": 8,
            "ffn": 14336,
            "max_seq": 8192,
            "rope_theta": 500000.0,
            "norm_eps": 1e-5,
            # MLPerf llama3.1-8b's bounds, stated once in the registry.
            "prompt_tokens": registry.get("llama3.1-8b").max_input_tokens,
            "output_tokens": registry.get("llama3.1-8b").max_output_tokens,
        },
    }

    def __init__(self, size: str = "tiny", prompt_tokens: int | None = None, output_tokens: int | None = None):
        super().__init__(size)
        if prompt_tokens is not None:
            self.config["prompt_tokens"] = prompt_tokens
        if output_tokens is not None:
            self.config["output_tokens"] = output_tokens
        if self.config["prompt_tokens"] + self.config["output_tokens"] > self.config["max_seq"]:
            raise ValueError("prompt_tokens + output_tokens exceeds max_seq")

    def _build(self) -> nn.Module:
        c = self.config
        return Llama(
            c["vocab"],
            c["dim"],
            c["layers"],
            c["heads"],
            c["kv_heads"],
            c["ffn"],
            c["max_seq"],
            c["rope_theta"],
            c["norm_eps"],
        )

    def example_inputs(self, batch_size: int, seed: int = 0, device: str = "cpu") -> tuple[torch.Tensor, ...]:
        shape = (batch_size, self.config["prompt_tokens"])
        if device == "meta":
            return (torch.zeros(shape, dtype=torch.long, device="meta"),)
        gen = torch.Generator().manual_seed(seed)
        return (torch.randint(0, self.config["vocab"], shape, generator=gen).to(device),)

    def output_tokens(self) -> int:
        return self.config["output_tokens"]

    def prompt_tokens(self) -> int:
        return self.config["prompt_tokens"]

    def infer(self, forward: Callable, module: nn.Module, inputs: tuple, on_first_token=None) -> torch.Tensor:
        (prompt,) = inputs
        return greedy_generate(forward, module, prompt, self.config["output_tokens"], on_first_token)

    def guard_output(self, forward: Callable, module: nn.Module, inputs: tuple) -> torch.Tensor:
        (prompt,) = inputs
        return next_token_logits(forward, module, prompt)


def greedy_generate(
    forward: Callable, module: nn.Module, prompt: torch.Tensor, new_tokens: int, on_first_token=None
) -> torch.Tensor:
    """Prefill the prompt, report the first token, then decode greedily to exactly ``new_tokens`` tokens
    (no end-of-sequence stop); returns the generated ids [batch, new_tokens].

    ``module`` is a decoder with the step interface this file's ``Llama`` has: ``setup_cache(batch, max_len)``
    starts an empty KV cache, ``forward(tokens, start)`` runs ``tokens`` at position ``start`` and returns
    logits [batch, positions, vocab] whose last position is the last token's (this file's ``Llama`` returns
    only that one). The built-in decoder and a user's Hugging Face causal LM
    (``workloads.file.CausalLmSteps``) both have it, so their TTFT/TPOT are measured the same way.
    """
    prompt_len = prompt.shape[1]
    module.setup_cache(prompt.shape[0], prompt_len + new_tokens)
    token = forward(prompt, 0)[:, -1].argmax(-1, keepdim=True)
    if on_first_token is not None:
        on_first_token(token)
    generated = [token]
    for step in range(new_tokens - 1):
        token = forward(token, prompt_len + step)[:, -1].argmax(-1, keepdim=True)
        generated.append(token)
    return torch.cat(generated, dim=1)


def next_token_logits(forward: Callable, module: nn.Module, prompt: torch.Tensor) -> torch.Tensor:
    """The prefill's next-token logits [batch, vocab]: what the accuracy guard compares for a decoder."""
    module.setup_cache(prompt.shape[0], prompt.shape[1])
    return forward(prompt, 0)[:, -1]

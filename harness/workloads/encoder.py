"""BERT design (Devlin et al. 2018) as MLPerf's ``bert`` benchmark runs it: a post-LN transformer
encoder with token/position/type embeddings and a question-answering span head (Hugging Face
``BertForQuestionAnswering``: no pooler, one 2-way linear over every token).

The model returns span logits as [batch, 2, seq_len] (start, end): argmax over the last dimension is
the predicted answer span, the decision the accuracy guard compares."""

from __future__ import annotations

import torch
from torch import nn

from .base import Workload


class EncoderLayer(nn.Module):
    def __init__(self, hidden: int, heads: int, intermediate: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.attn_out = nn.Linear(hidden, hidden)
        self.attn_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.ffn_in = nn.Linear(hidden, intermediate)
        self.ffn_out = nn.Linear(intermediate, hidden)
        self.ffn_norm = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        attn = nn.functional.scaled_dot_product_attention(q, k, v)
        x = self.attn_norm(x + self.attn_out(attn.transpose(1, 2).reshape(b, t, d)))
        return self.ffn_norm(x + self.ffn_out(nn.functional.gelu(self.ffn_in(x))))


class Bert(nn.Module):
    def __init__(self, vocab: int, hidden: int, layers: int, heads: int, intermediate: int, max_positions: int):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, hidden)
        self.position_embedding = nn.Embedding(max_positions, hidden)
        self.type_embedding = nn.Embedding(2, hidden)
        self.embedding_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList(EncoderLayer(hidden, heads, intermediate) for _ in range(layers))
        self.qa_outputs = nn.Linear(hidden, 2)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        types = torch.zeros_like(input_ids)
        x = self.token_embedding(input_ids) + self.position_embedding(positions) + self.type_embedding(types)
        x = self.embedding_norm(x)
        for layer in self.layers:
            x = layer(x)
        return self.qa_outputs(x).transpose(1, 2)


class Encoder(Workload):
    """Text encoder; ``reference`` is MLPerf's BERT-large for SQuAD at sequence length 384 (334,094,338
    parameters, as ``BertForQuestionAnswering`` counts them)."""

    model_class = "encoder"
    SIZES = {
        "tiny": {
            "vocab": 1000,
            "hidden": 64,
            "layers": 2,
            "heads": 4,
            "intermediate": 256,
            "max_positions": 128,
            "seq_len": 32,
        },
        "reference": {
            "vocab": 30522,
            "hidden": 1024,
            "layers": 24,
            "heads": 16,
            "intermediate": 4096,
            "max_positions": 512,
            "seq_len": 384,
        },
    }

    def __init__(self, size: str = "tiny", seq_len: int | None = None):
        super().__init__(size)
        if seq_len is not None:
            if not 1 <= seq_len <= self.config["max_positions"]:
                raise ValueError(f"seq_len must be in 1..{self.config['max_positions']}")
            self.config["seq_len"] = seq_len

    def _build(self) -> nn.Module:
        c = self.config
        return Bert(c["vocab"], c["hidden"], c["layers"], c["heads"], c["intermediate"], c["max_positions"])

    def example_inputs(self, batch_size: int, seed: int = 0, device: str = "cpu") -> tuple[torch.Tensor, ...]:
        shape = (batch_size, self.config["seq_len"])
        if device == "meta":
            return (torch.zeros(shape, dtype=torch.long, device="meta"),)
        gen = torch.Generator().manual_seed(seed)
        return (torch.randint(0, self.config["vocab"], shape, generator=gen).to(device),)

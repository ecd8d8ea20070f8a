"""The embedded knowledge store at scale, the local embedders, and concurrent calls.

Store figures (KNOWLEDGE_BENCH_OBJECTS, default 100000; KNOWLEDGE_BENCH_LARGE=1000000
adds a second, larger run) use synthetic 384-dim vectors supplied with the objects
(KNOWLEDGE_BENCH_VECTORS: `realistic`, the default, a topic mixture fitted to real MiniLM
embeddings of the transcripts, queries are unstored samples of it; `stress`, isotropic
clusters with noisy queries, near HNSW's worst case), and text from the real transcripts in ../shared/data/transcripts when
present (else a fixed vocabulary), so they measure the store, not the model:
- insert rate through `insert_many`, against plain SQLite inserts of the same rows;
- vector index build time (from SQLite, once) and reopen time (from its file);
- knn p50/p95 and recall@10, unfiltered and with a 10% and a 1% filter, against exact
  numpy search over the same vectors in memory;
- hybrid p50, against the same search with today's exhaustive FTS5 keyword side, and
  the bounded keyword side's recall@10 against that exhaustive BM25;
- index memory and RSS growth, against the float32 vectors in memory; bytes on disk.
Embeddings: parity of the default local embedder with the numpy reference on 1,000 real
chunks (min cosine, identical top-10 for 40 queries); chunks/s of ~200-token chunks, ONNX Runtime (the server's engine; fp32 and
the int8 option) against the previous engines (sentence-transformers on torch when it
is installed, and the numpy encoder), and local indexing through the store.
The default embedder (use-multilingual) beside MiniLM, end to end: index_transcript_files
chunks/s on real transcripts (target 25) and the p50/p95 of a hybrid search that embeds
its query at KNOWLEDGE_BENCH_EMBEDDER_CHUNKS (100000) chunks (target 60 ms).
Concurrency: 50 concurrent searches and 50 concurrent single-object ingests against 50
sequential ones; the first concurrent answer against a lone search.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import tempfile
import time
from pathlib import Path

from tests.bench.common import (
    fill_with_copies,
    header,
    in_services,
    percentile,
    report,
    report_latency,
    services_for,
    stopwatch,
    warm_up,
)
from tests.embedding_parity import caption_lines

OBJECTS = int(os.environ.get("KNOWLEDGE_BENCH_OBJECTS", "100000"))
LARGE = int(os.environ.get("KNOWLEDGE_BENCH_LARGE", "0"))
KEYWORD_LARGE = int(os.environ.get("KNOWLEDGE_BENCH_KEYWORD_LARGE", "0"))
"""Keyword side alone at this size (e.g. 1000000): Tantivy against exhaustive FTS5,
without building the vector index (which takes most of a LARGE run)."""
EMBEDDER_CHUNKS = int(os.environ.get("KNOWLEDGE_BENCH_EMBEDDER_CHUNKS", "100000"))
"""Chunks in the store when the default embedder's search is timed (target p50 <= 60 ms)."""
EMBEDDER_FILES = int(os.environ.get("KNOWLEDGE_BENCH_EMBEDDER_FILES", "15"))
"""Real transcript files indexed end to end per embedder (~435 chunks of 200 tokens)."""
EMBEDDER_QUERIES = 40
VECTORS = os.environ.get("KNOWLEDGE_BENCH_VECTORS", "realistic")
"""realistic (default: fitted to real MiniLM embeddings) or stress (isotropic clusters)."""
DIMS = 384
BATCH = 1000
QUERIES = 100
COLLECTION = "VideoMetadata"
WORDS = [
    "video",
    "lecture",
    "music",
    "travel",
    "cooking",
    "science",
    "history",
    "football",
    "chess",
    "physics",
    "biology",
    "guitar",
    "painting",
    "review",
    "tutorial",
    "interview",
    "documentary",
    "trailer",
    "podcast",
    "speedrun",
    "drone",
    "camera",
    "recipe",
    "bread",
    "volcano",
    "galaxy",
    "robot",
    "python",
    "garden",
    "bicycle",
    "ocean",
    "mountain",
    "winter",
]


def _transcript_lines() -> list[str]:
    lines = caption_lines()
    return [line for line in lines if line.strip()] or [
        " ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(8)) for i in range(997)
    ]


def _unit(rows):
    import numpy as np

    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _power_law(alpha: float, total: float, dims: int = DIMS):
    """Variances that fall off as rank^-alpha and add up to `total`."""
    import numpy as np

    variances = np.arange(1, dims + 1, dtype=np.float64) ** -alpha
    return variances * total / variances.sum()


def _realistic_vectors(n: int, rng, dims: int = DIMS):
    """Unit vectors shaped like all-MiniLM-L6-v2 embeddings of real transcript text.

    A mixture of 200 Gaussian topics whose statistics were fitted to 5,244 real texts
    (4,631 two-line caption windows and 813 chunker chunks of ../shared/data/transcripts,
    embedded by the server's ONNX MiniLM; the texts and vectors are not in the repo):
    a shared mean direction of norm 0.32 (mean cosine between texts 0.10), topic centres
    with variance 0.315 falling off as rank^-1.0 (k-means, 200 centres), and the spread
    inside a topic with variance 0.58 falling off as rank^-0.7, in its own basis.
    At the real set's size this generator is still harder than the real embeddings
    (local intrinsic dimension at 20 neighbours 23 vs 16; queries 24 vs 21 for 7-word
    text queries), so recall measured on it is, if anything, pessimistic. See docs/knowledge-store.md,
    "The vector index" for the comparison with the stress generator. Other `dims` (512:
    use-multilingual's) keep the same shape: the variance spectra are stretched over them.
    """
    import numpy as np

    topics = 200
    between, _ = np.linalg.qr(rng.standard_normal((dims, dims)))
    within, _ = np.linalg.qr(rng.standard_normal((dims, dims)))
    mean = between[:, 0] * 0.32
    spread_between = (between * np.sqrt(_power_law(1.0, 0.315, dims))).astype(np.float32)
    spread_within = (within * np.sqrt(_power_law(0.7, 0.58, dims))).astype(np.float32)
    centres = mean + rng.standard_normal((topics, dims)).astype(np.float32) @ spread_between.T
    labels = rng.integers(0, topics, n)
    out = np.empty((n, dims), dtype=np.float32)
    for start in range(0, n, 100_000):
        end = min(n, start + 100_000)
        noise = rng.standard_normal((end - start, dims)).astype(np.float32) @ spread_within.T
        out[start:end] = _unit(centres[labels[start:end]] + noise)
    return out


def _stress_vectors(n: int, rng):
    """The stress setting: 200 clusters with isotropic noise, queries far from any point.

    Inside a cluster every direction is equally likely, so a query's neighbours are
    nearly random points of its cluster; with queries built as a stored point plus
    noise twice its length the query's neighbourhood looks 40-dimensional (real text
    queries: ~21). Close to HNSW's worst case; kept to show where the index degrades.
    """
    import numpy as np

    centres = rng.standard_normal((200, DIMS)).astype(np.float32)
    labels = rng.integers(0, len(centres), n)
    return _unit(centres[labels] + 0.6 * rng.standard_normal((n, DIMS)).astype(np.float32))


def _vectors_and_queries(n: int, rng):
    """The stored vectors and QUERIES query vectors for KNOWLEDGE_BENCH_VECTORS."""
    import numpy as np

    if VECTORS == "stress":
        vectors = _stress_vectors(n, rng)
        queries = vectors[rng.integers(0, n, QUERIES)] + 0.1 * rng.standard_normal(
            (QUERIES, DIMS)
        ).astype(np.float32)
        return vectors, _unit(queries)
    # Queries are more texts of the same kind, not stored: like a question about them.
    vectors = _realistic_vectors(n + QUERIES, rng)
    return vectors[QUERIES:], vectors[:QUERIES]


def _corpus(n: int, rng):
    vectors, queries = _vectors_and_queries(n, rng)
    lines = _transcript_lines()
    objects = [
        {
            "video_id": f"v{i:010d}",
            "title": " ".join(lines[(i * 3 + j) % len(lines)] for j in range(2)),
            "view_count": int(i % 10),
            "like_count": int(i % 100),
        }
        for i in range(n)
    ]
    return objects, vectors, queries, lines


def _plain_sqlite_insert(path: Path, objects, vectors) -> float:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, uuid TEXT, properties TEXT, v BLOB)")
    with stopwatch() as clock:
        for start in range(0, len(objects), BATCH):
            rows = [
                (f"{i}", json.dumps(objects[i]), vectors[i].tobytes())
                for i in range(start, min(start + BATCH, len(objects)))
            ]
            with conn:
                conn.executemany("INSERT INTO t (uuid, properties, v) VALUES (?, ?, ?)", rows)
    conn.close()
    return len(objects) / clock["s"]


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _disk_bytes(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size if path.exists() else 0


async def _store_figures(workdir: Path, n: int) -> None:
    import numpy as np

    from video_research.knowledge.backends import fts
    from video_research.knowledge.filters import Filter
    from video_research.knowledge.store import get_store
    from video_research.support.services import current_services, current_settings

    rng = np.random.default_rng(7)
    objects, vectors, queries, lines = _corpus(n, rng)
    db = current_settings().knowledge_db  # knowledge-{n}.db in workdir: see main()
    store = await get_store()
    header(
        f"knowledge store, {n} objects x {DIMS} dims, {VECTORS} vectors "
        "(embedded SQLite + faiss HNSW)"
    )

    with stopwatch() as clock:
        for start in range(0, n, BATCH):
            end = min(start + BATCH, n)
            await store.insert_many(COLLECTION, objects[start:end], vectors=vectors[start:end])
    rate = n / clock["s"]
    floor = _plain_sqlite_insert(workdir / f"plain-{n}.db", objects, vectors)
    report("insert (objects/s)", rate, "obj/s", "plain sqlite table", floor, higher_is_better=True)

    rss_before = _rss_mb()
    with stopwatch() as clock:
        await store.near_vector(COLLECTION, vectors[0], limit=1)  # loads the index
        index = store._indexes[COLLECTION]
        await asyncio.to_thread(index.settle)
    build = clock["s"]
    rss_after = _rss_mb()
    index.save()
    await current_services().aclose()
    store = await get_store()
    with stopwatch() as clock:
        await store.near_vector(COLLECTION, vectors[0], limit=1)
    reopen = clock["s"]
    index = store._indexes[COLLECTION]
    report(
        "index build from SQLite (s)",
        build,
        "s",
        "reopen from the index file",
        reopen,
        higher_is_better=False,
    )
    matrix_mb = vectors.nbytes / 2**20
    report(
        "index memory (MB)",
        index.memory_bytes() / 2**20,
        "MB",
        "float32 vectors in RAM",
        matrix_mb,
        higher_is_better=False,
    )
    report(
        "RSS growth while building (MB)",
        rss_after - rss_before,
        "MB",
        "float32 vectors in RAM",
        matrix_mb,
        higher_is_better=False,
    )
    on_disk = (
        _disk_bytes(db) + _disk_bytes(Path(str(db) + "-wal")) + _disk_bytes(Path(str(db) + ".ann"))
    )
    report(
        "bytes on disk (MB, db + index)",
        on_disk / 2**20,
        "MB",
        "raw float32 vectors",
        matrix_mb,
        higher_is_better=False,
    )

    ten = np.array([o["view_count"] == 7 for o in objects])
    one = np.array([o["like_count"] == 7 for o in objects])

    def exact(query, mask=None):
        scores = vectors @ query
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        top = np.argpartition(-scores, 10)[:10]
        return top[np.argsort(-scores[top])]

    async def timed_knn(mask, where):
        await store.near_vector(COLLECTION, queries[0], where=where, limit=10)  # filter cached
        times, recalls, baseline = [], [], []
        for query in queries:
            started = time.perf_counter()
            hits = await store.near_vector(COLLECTION, query, where=where, limit=10)
            times.append(time.perf_counter() - started)
            started = time.perf_counter()
            truth = exact(query, mask)
            baseline.append(time.perf_counter() - started)
            found = {int(hit.properties["video_id"][1:]) for hit in hits}
            recalls.append(len(found & set(truth.tolist())) / 10)
        return times, baseline, sum(recalls) / len(recalls)

    knn = []
    for label, mask, where in (
        ("knn", None, None),
        ("knn, filter 10%", ten, Filter.eq("view_count", 7)),
        ("knn, filter 1%", one, Filter.eq("like_count", 7)),
    ):
        times, numpy_times, recall = await timed_knn(mask, where)
        knn = knn or times
        report_latency(
            label, times, "numpy exact" + (", masked" if mask is not None else ""), numpy_times
        )
        report(f"{label} recall@10", recall, "", "numpy exact", 1.0, higher_is_better=True)

    # Hybrid: text queries of 2-6 words from the transcripts (common words included).
    texts = [
        " ".join(lines[int(i)].split()[:6]) or "video" for i in rng.integers(0, len(lines), QUERIES)
    ]
    conn = store._conn()

    def exhaustive(text: str, k: int = 100) -> list[tuple[int, float]]:
        """Today's keyword side: every term, every match ranked (FTS5's bm25)."""
        expression = fts.match_expression(fts.query_terms(text))
        if expression is None:
            return []
        rows = conn.execute(
            f'SELECT o.id, -bm25("fts_{COLLECTION}") FROM "fts_{COLLECTION}" '
            f'JOIN "obj_{COLLECTION}" o ON o.id = "fts_{COLLECTION}".rowid '
            f'WHERE "fts_{COLLECTION}" MATCH ? ORDER BY bm25("fts_{COLLECTION}") LIMIT ?',
            (expression, k),
        )
        return rows.fetchall()

    keyword_index = store._keyword_index(COLLECTION)
    with stopwatch() as clock:
        await asyncio.to_thread(keyword_index.settle)
    report(
        "keyword index build (s, Tantivy)",
        clock["s"],
        "s",
        "vector index build",
        build,
        higher_is_better=False,
    )
    hybrid, keyword_old, keyword_recall = [], [], []
    for text, query in zip(texts, queries, strict=True):
        started = time.perf_counter()
        await store.hybrid(COLLECTION, text, alpha=0.5, vector=query, limit=10)
        hybrid.append(time.perf_counter() - started)
        started = time.perf_counter()
        old = exhaustive(text)
        keyword_old.append(time.perf_counter() - started)
        ours = fts.keyword_search(conn, COLLECTION, text, None, 10, store._allowed_ids)
        if old:
            # Tie-aware: a hit counts when the exhaustive BM25 scores it within the true
            # top 10 (equal texts score equal, and ties come back in any order).
            truth = dict(exhaustive(text, 100_000)) if len(old) == 100 else dict(old)
            tenth = sorted(truth.values(), reverse=True)[: min(10, len(truth))][-1]
            good = sum(1 for row, _ in ours if truth.get(row, -1e9) >= tenth - 1e-9)
            keyword_recall.append(good / min(10, len(truth)))
    old_keyword_p50 = percentile(keyword_old, 50)
    await _tantivy_figures(store, conn, texts, exhaustive, keyword_old, n)
    report(
        "hybrid p50 (alpha 0.5)",
        percentile(hybrid, 50) * 1e3,
        "ms",
        "exhaustive FTS5 keyword side alone p50",
        old_keyword_p50 * 1e3,
        higher_is_better=False,
    )
    report(
        "keyword recall@10 (bounded BM25)",
        sum(keyword_recall) / max(1, len(keyword_recall)),
        "",
        "exhaustive BM25",
        1.0,
        higher_is_better=True,
    )
    await current_services().aclose()


def _tie_aware_recall(ours: list[int], truth: dict[int, float]) -> float:
    """Share of `ours` that exhaustive BM25 scores within its top 10 (equal texts score
    equal, and ties come back in any order)."""
    tenth = sorted(truth.values(), reverse=True)[: min(10, len(truth))][-1]
    good = sum(1 for row in ours if truth.get(row, -1e9) >= tenth - 1e-9)
    return good / min(10, len(truth))


async def _tantivy_figures(store, conn, texts, exhaustive, keyword_old, n: int) -> None:
    """The Tantivy keyword index (the default keyword side) against exhaustive FTS5 BM25
    and the bounded FTS5 plan, on the same queries; plus notes-style long queries."""
    from video_research.knowledge.backends import fts
    from video_research.knowledge.backends.keyword_index import query_tokens

    index = store._keyword_index(COLLECTION)
    rng = __import__("random").Random(11)
    long_texts = [" ".join(rng.sample(texts, 3)) for _ in range(len(texts))]
    for label, queries in (("2-6 words", texts), ("long, 12-18 words", long_texts)):
        times, bounded, recall, recall_bounded, old = [], [], [], [], []
        for text in queries:
            started = time.perf_counter()
            ours, _ = store._keyword(conn, COLLECTION, text, None, 10)
            times.append(time.perf_counter() - started)
            started = time.perf_counter()
            capped = fts.keyword_search(conn, COLLECTION, text, None, 10, store._allowed_ids)
            bounded.append(time.perf_counter() - started)
            started = time.perf_counter()
            truth = dict(exhaustive(text, 100_000))
            old.append(time.perf_counter() - started)
            if truth:
                recall.append(_tie_aware_recall([r for r, _ in ours], truth))
                recall_bounded.append(_tie_aware_recall([r for r, _ in capped], truth))
        report_latency(f"keyword p50/p95, Tantivy ({label})", times, "exhaustive FTS5", old)
        report_latency(f"keyword p50/p95, bounded FTS5 ({label})", bounded, "exhaustive FTS5", old)
        report(
            f"keyword recall@10, Tantivy ({label})",
            sum(recall) / max(1, len(recall)),
            "",
            "bounded FTS5 plan",
            sum(recall_bounded) / max(1, len(recall_bounded)),
            higher_is_better=True,
        )
    _exact_bm25_figures(index, conn, texts, long_texts)
    # Tantivy's top-10 against exhaustive BM25 with its own scoring (every matching row
    # scored, no skipping): WAND must not change the answer, only the cost.
    import tantivy

    exact = []
    for text in long_texts[: 20 if n <= 200_000 else 5]:
        terms = index.telling(query_tokens(text))
        fast = [row for row, _ in index.search(terms, 10)]
        query = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.term_query(index._schema, "body", t))
                for t in terms
            ]
        )
        truth = {}
        for searcher in index._searchers:  # each shard's every match
            every = searcher.search(query, n)
            rows = searcher.fast_field_values("id", [a for _, a in every.hits])
            scores = [s for s, _ in every.hits]
            truth.update({int(r): s for r, s in zip(rows, scores, strict=True)})
        exact.append(_tie_aware_recall(fast, truth) if truth else 1.0)
    report(
        "keyword recall@10, Tantivy top-10 vs all matches scored",
        sum(exact) / max(1, len(exact)),
        "",
        "exact",
        1.0,
        higher_is_better=True,
    )


def _exact_bm25_figures(index, conn, texts: list[str], long_texts: list[str]) -> None:
    """Recall@10 against an independent exhaustive BM25 (tests/bench/exact_bm25.py): of
    Tantivy over every query token, of the store's keyword side (words in more than half
    the documents left out), and of exhaustive FTS5 bm25() as the baseline."""
    from tests.bench.exact_bm25 import ExactBm25, recall_at_k
    from video_research.knowledge.backends import fts
    from video_research.knowledge.backends.keyword_index import query_tokens

    with stopwatch() as clock:
        exact = ExactBm25(conn.execute(f'SELECT rowid, body FROM "fts_{COLLECTION}"'))
    print(f"   (exact BM25 reference over {len(exact.rows)} documents in {clock['s']:.0f} s)")

    def fts5_rows(text: str) -> list[int]:
        expression = fts.match_expression(fts.query_terms(text))
        if expression is None:
            return []
        return [
            row
            for (row,) in conn.execute(
                f'SELECT rowid FROM "fts_{COLLECTION}" WHERE "fts_{COLLECTION}" MATCH ? '
                f'ORDER BY bm25("fts_{COLLECTION}") LIMIT 10',
                (expression,),
            )
        ]

    for label, queries in (("2-6 words", texts), ("long, 12-18 words", long_texts)):
        every, store_side, store_all, baseline = [], [], [], []
        for text in queries:
            terms = query_tokens(text)
            top = exact.top(terms)
            every.append(recall_at_k([r for r, _ in index.search(terms, 10)], top))
            telling = index.telling(terms)
            found = [r for r, _ in index.search(telling, 10)]
            store_side.append(recall_at_k(found, exact.top(telling)))
            store_all.append(recall_at_k(found, top))
            baseline.append(recall_at_k(fts5_rows(text), top))
        mean = {
            k: sum(v) / max(1, len(v))
            for k, v in (("all", every), ("store", store_side), ("store_all", store_all))
        }
        fts5 = sum(baseline) / max(1, len(baseline))
        print(
            f"   (store side, {label}: recall@10 {mean['store_all']:.3f} against exact BM25 of "
            "every query token, words in more than half the documents included)"
        )
        report(
            f"recall@10 vs exact BM25, Tantivy ({label})",
            mean["all"],
            "",
            "exhaustive FTS5 bm25() vs exact",
            fts5,
            higher_is_better=True,
        )
        report(
            f"recall@10 vs exact BM25 of its terms, store side ({label})",
            mean["store"],
            "",
            "exhaustive FTS5 bm25() vs exact",
            fts5,
            higher_is_better=True,
        )


async def _keyword_scale_figures(n: int) -> None:
    """Keyword p50/p95 and recall@10 at n objects, without the vector index."""
    import numpy as np

    from video_research.knowledge.store import get_store

    rng = np.random.default_rng(7)
    lines = _transcript_lines()
    store = await get_store()
    header(f"keyword side alone, {n} objects (Tantivy vs FTS5; no vector index)")
    vectors = _unit(rng.standard_normal((BATCH, DIMS)).astype(np.float32))
    with stopwatch() as clock:
        for start in range(0, n, BATCH):
            end = min(start + BATCH, n)
            objects = [
                {
                    "video_id": f"v{i:010d}",
                    "title": " ".join(lines[(i * 3 + j) % len(lines)] for j in range(2)),
                }
                for i in range(start, end)
            ]
            await store.insert_many(COLLECTION, objects, vectors=vectors[: end - start])
    inserted = clock["s"]
    print(f"   (inserted in {inserted:.0f} s)", flush=True)
    keyword_index = store._keyword_index(COLLECTION)
    with stopwatch() as clock:
        await asyncio.to_thread(keyword_index.settle)
    report(
        "keyword index build (s, Tantivy)",
        clock["s"],
        "s",
        "insert",
        inserted,
        higher_is_better=False,
    )
    conn = store._conn()

    def exhaustive(text: str, k: int = 100) -> list[tuple[int, float]]:
        from video_research.knowledge.backends import fts

        expression = fts.match_expression(fts.query_terms(text))
        if expression is None:
            return []
        return conn.execute(
            f'SELECT o.id, -bm25("fts_{COLLECTION}") FROM "fts_{COLLECTION}" '
            f'JOIN "obj_{COLLECTION}" o ON o.id = "fts_{COLLECTION}".rowid '
            f'WHERE "fts_{COLLECTION}" MATCH ? ORDER BY bm25("fts_{COLLECTION}") LIMIT ?',
            (expression, k),
        ).fetchall()

    texts = [
        " ".join(lines[int(i)].split()[:6]) or "video"
        for i in rng.integers(0, len(lines), QUERIES // 2)
    ]
    await _tantivy_figures(store, conn, texts, exhaustive, [], n)


def _chunks_of_200_tokens(count: int) -> list[str]:
    from video_research.knowledge.embedders.embeddings import minilm_token_counter

    count_tokens = minilm_token_counter().count
    lines = _transcript_lines()
    chunks, current = [], []
    for line in lines:
        current.append(line)
        if count_tokens(" ".join(current)) >= 200:
            chunks.append(" ".join(current[:-1]))
            current = [line]
        if len(chunks) == count:
            break
    while len(chunks) < count:
        chunks.append(chunks[len(chunks) % max(1, len(chunks))] if chunks else "x " * 200)
    return chunks


def _embedding_figures() -> None:
    from video_research.knowledge.embedders.embeddings import (
        LocalEmbedder,
        local_model_dir,
        minilm_token_counter,
    )
    from video_research.knowledge.embedders.minilm import MiniLM

    chunks = _chunks_of_200_tokens(96)
    tokens = sum(minilm_token_counter().count(c) for c in chunks) / len(chunks)
    cache = Path(tempfile.gettempdir()) / "video-research-bench-models"
    engines = {
        "onnx fp32": LocalEmbedder(cache_dir=cache, precision="fp32"),
        "onnx int8": LocalEmbedder(cache_dir=cache, precision="int8"),
    }
    numpy_engine = MiniLM(local_model_dir())
    baselines = {"numpy (previous search/small-write engine)": lambda t: numpy_engine.encode(t, 32)}
    try:
        from sentence_transformers import SentenceTransformer

        torch_model = SentenceTransformer(str(local_model_dir()), device="cpu")
        baselines["sentence-transformers on torch (previous bulk engine)"] = lambda t: (
            torch_model.encode(t, batch_size=32)
        )
    except Exception:  # noqa: BLE001 - torch is no longer installed by make install
        pass
    runs = {**{k: (lambda t, e=e: e.encode(t)) for k, e in engines.items()}, **baselines}
    for encode in runs.values():
        encode(chunks[:4])  # load outside the timing
    rates = dict.fromkeys(runs, 0.0)
    for _ in range(2):  # alternate, keep each one's best round: the machine may be shared
        for name, encode in runs.items():
            with stopwatch() as clock:
                encode(chunks)
            rates[name] = max(rates[name], len(chunks) / clock["s"])
    header(f"local embeddings, {len(chunks)} chunks of ~{tokens:.0f} tokens, CPU")
    _parity_figures(numpy_engine)
    for name in engines:
        for base in baselines:
            report(
                name + " chunks/s",
                rates[name],
                "chunks/s",
                base,
                rates[base],
                higher_is_better=True,
            )


def _transcript_sources(limit: int) -> list[Path]:
    """Real transcript files (the shared data folder's .srt and .json), else the repo's."""
    from tests.embedding_parity import transcripts_dir
    from tests.helpers import DATA

    root = transcripts_dir()
    found = (
        sorted(root.glob("3blue1brown/*.srt")) + sorted(root.glob("coding-train/*.json"))
        if root
        else []
    )
    own = DATA / "transcripts"
    return (found or sorted(own.glob("*.srt")) + sorted(own.glob("*.json")))[:limit]


async def _embedder_end_to_end(folder: Path) -> dict[str, object]:
    """Index `folder` through index_transcript_files (parse, chunk, embed, SQLite, FTS5,
    Tantivy, ANN), fill the store to EMBEDDER_CHUNKS by copying the chunks with their
    vectors, then time hybrid searches that embed their query, as a user's search does."""
    import resource

    from tests.calls import call_ok
    from video_research.knowledge.store import get_store
    from video_research.support.services import current_services
    from video_research.transcripts.indexer import CHUNKS

    store = await get_store()
    await warm_up(store.embedder)
    await store.embedder.embed(["warm the query path"], "query")
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    with stopwatch() as clock:
        result = await call_ok(
            "index_transcript_files", {"path": str(folder), "fetch_metadata": False}
        )
    after = resource.getrusage(resource.RUSAGE_SELF)
    chunks = result["batch"]["chunk_count"]
    cpu_s = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
    # The store pages at most 4,096 objects deep: the chunks are read page by page.
    sources, offset = [], 0
    while True:
        page = await store.fetch(CHUNKS, limit=1000, offset=offset)
        for obj in page.objects:
            full = await store.get(CHUNKS, obj.uuid, include_vector=True)
            sources.append((full.properties, full.vector))
        offset += len(page.objects)
        if len(page.objects) < 1000:
            break
    await fill_with_copies(store, sources, EMBEDDER_CHUNKS - chunks)
    await store.hybrid(CHUNKS, "build the indexes before timing", limit=10)
    await asyncio.to_thread(store._indexes[CHUNKS].settle)
    await asyncio.to_thread(store._keyword_index(CHUNKS).settle)
    queries = [
        " ".join(props["text"].split()[3:13]) for props, _ in sources[::7][:EMBEDDER_QUERIES]
    ]
    times = []
    for query in queries:
        with stopwatch() as clock_q:
            await store.hybrid(CHUNKS, query, limit=10)
        times.append(clock_q["s"])
    total = await store.count(CHUNKS)
    await current_services().aclose()
    return {
        "chunks": chunks,
        "rate": chunks / clock["s"],
        "cpu_rate": chunks / max(cpu_s, 1e-9),
        "stored": total,
        "times": times,
    }


def _default_embedder_figures(workdir: Path) -> None:
    """The default embedder (use-multilingual) beside MiniLM, end to end: chunks/s of
    index_transcript_files on real transcripts, and p50/p95 of a hybrid search that
    embeds its query, at EMBEDDER_CHUNKS (100k) chunks. Wall-clock figures follow the
    host's load; the chunks per CPU-second beside them do not, much."""
    from video_research.knowledge.embedders.embeddings import DEFAULT_LOCAL_MODEL, LOCAL_MODEL

    folder = workdir / "embedder-transcripts"
    folder.mkdir()
    for source in _transcript_sources(EMBEDDER_FILES):
        (folder / source.name).write_bytes(source.read_bytes())
    results = {}
    for model in (DEFAULT_LOCAL_MODEL, LOCAL_MODEL):
        services = services_for(
            KNOWLEDGE_DB=str(workdir / f"embedder-{model}.db"),
            KNOWLEDGE_EMBEDDING_MODEL=model,
            VIDEO_RESEARCH_DATA_DIR=str(workdir / f"data-{model}"),
            VIDEO_RESEARCH_FILE_ROOTS=str(workdir),
        )
        results[model] = asyncio.run(in_services(services, lambda: _embedder_end_to_end(folder)))
    new, old = results[DEFAULT_LOCAL_MODEL], results[LOCAL_MODEL]
    header(
        f"the default embedder ({DEFAULT_LOCAL_MODEL}) beside {LOCAL_MODEL}: "
        f"index_transcript_files of {new['chunks']} chunks, then hybrid search at "
        f"{new['stored']} chunks (load average {os.getloadavg()[0]:.1f})"
    )
    for key, label, unit in (
        ("rate", "indexing", "chunks/s"),
        ("cpu_rate", "indexing per CPU-second", "chunks/CPU-s"),
    ):
        report(
            f"{DEFAULT_LOCAL_MODEL} {label}",
            new[key],
            unit,
            LOCAL_MODEL,
            old[key],
            higher_is_better=True,
        )
    report(
        f"{DEFAULT_LOCAL_MODEL} indexing",
        new["rate"],
        "chunks/s",
        "target",
        25.0,
        higher_is_better=True,
    )
    report_latency(f"{DEFAULT_LOCAL_MODEL} hybrid search", new["times"], LOCAL_MODEL, old["times"])
    report(
        f"{DEFAULT_LOCAL_MODEL} hybrid search p50",
        percentile(new["times"], 50) * 1e3,
        "ms",
        "target",
        60.0,
        higher_is_better=False,
    )


def _parity_figures(reference) -> None:
    """The server's default embedder against the numpy reference on 1,000 real chunks.

    The same check as tests/knowledge/test_embeddings.py on 100 chunks; too slow for `make test`
    (the numpy reference takes a minute or two). Fails the benchmark when parity is lost.
    """
    from tests.embedding_parity import parity, real_chunks
    from video_research.knowledge.embedders.embeddings import LocalEmbedder

    chunks = real_chunks(1000)
    if len(chunks) < 1000:
        print("   (parity on 1,000 real chunks skipped: ../shared/data/transcripts not here)")
        return
    cache = Path(tempfile.gettempdir()) / "video-research-bench-models"
    result = parity(LocalEmbedder(cache_dir=cache), reference, chunks)
    report(
        "parity: min cosine, 1,000 real chunks",
        result.min_cosine,
        "",
        "target",
        0.99,
        higher_is_better=True,
    )
    report(
        f"parity: identical top-10, {result.queries} queries",
        result.same_top10 / result.queries,
        "",
        "target",
        1.0,
        higher_is_better=True,
    )
    if result.min_cosine < 0.99 or result.same_top10 < result.queries:
        raise AssertionError(f"local embedder lost parity with the reference: {result}")


async def _indexing_and_concurrency() -> None:
    from video_research.knowledge.store import get_store
    from video_research.support.services import current_services

    store = await get_store()
    chunks = _chunks_of_200_tokens(192)
    await store.embedder.embed(chunks[:2])
    await store.embedder.embed(["warm the query graph"], "query")
    objects = [{"title": f"chunk {i}", "summary": c} for i, c in enumerate(chunks)]
    with stopwatch() as clock:
        for start in range(0, len(objects), 32):
            await store.insert_many("VideoAnalyses", objects[start : start + 32])
    header("local indexing and concurrent calls (embedded store, local embedder)")
    report(
        "local indexing (200-token chunks/s)",
        len(objects) / clock["s"],
        "chunks/s",
        "target",
        25.0,
        higher_is_better=True,
    )

    questions = [
        f"why does the speaker say {c.split()[5] if len(c.split()) > 5 else 'this'}"
        for c in chunks[:50]
    ]

    async def search(q: str) -> float:
        await store.hybrid("VideoAnalyses", q, limit=5)
        return time.perf_counter()

    # Medians of several rounds: the machine may be shared.
    lones = []
    for n in range(5):
        started = time.perf_counter()
        await search(f"a lone search {n}")
        lones.append(time.perf_counter() - started)
    lone = percentile(lones, 50)
    started = time.perf_counter()
    for q in questions:
        await search(q)
    sequential = time.perf_counter() - started
    totals, firsts = [], []
    for _ in range(3):
        started = time.perf_counter()
        ends = await asyncio.gather(*(search(q) for q in questions))
        totals.append(time.perf_counter() - started)
        firsts.append(min(ends) - started)
    report(
        "50 concurrent searches (s)",
        percentile(totals, 50),
        "s",
        "50 sequential",
        sequential,
        higher_is_better=False,
    )
    report(
        "first concurrent search answer (ms)",
        percentile(firsts, 50) * 1e3,
        "ms",
        "lone search x2",
        2 * lone * 1e3,
        higher_is_better=False,
    )

    async def ingest(n: int) -> float:
        await store.insert(
            "VideoAnalyses", {"title": f"ingest {n}", "summary": chunks[n % len(chunks)]}
        )
        return time.perf_counter()

    started = time.perf_counter()
    for n in range(50):
        await ingest(n)
    sequential = time.perf_counter() - started
    started = time.perf_counter()
    ends = await asyncio.gather(*(ingest(100 + n) for n in range(50)))
    concurrent = time.perf_counter() - started
    report(
        "50 concurrent ingests (s)",
        concurrent,
        "s",
        "50 sequential",
        sequential,
        higher_is_better=False,
    )
    report(
        "first concurrent ingest answer (s)",
        min(ends) - started,
        "s",
        "one sequential ingest",
        sequential / 50,
        higher_is_better=False,
    )
    await current_services().aclose()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-knowledge-") as tmp:
        workdir = Path(tmp)
        # Each part runs under settings of its own: its own store file.
        for n in (OBJECTS, LARGE):
            if n:
                # Synthetic 384-dim vectors: the store runs with MiniLM's size.
                store = services_for(
                    KNOWLEDGE_DB=str(workdir / f"knowledge-{n}.db"),
                    KNOWLEDGE_EMBEDDING_MODEL="all-MiniLM-L6-v2",
                )
                asyncio.run(in_services(store, lambda n=n: _store_figures(workdir, n)))
        if KEYWORD_LARGE:
            keywords = services_for(
                KNOWLEDGE_DB=str(workdir / "keywords.db"),
                KNOWLEDGE_ANN="false",
                KNOWLEDGE_EMBEDDING_MODEL="all-MiniLM-L6-v2",
            )
            asyncio.run(in_services(keywords, lambda: _keyword_scale_figures(KEYWORD_LARGE)))
        concurrency = services_for(
            KNOWLEDGE_DB=str(workdir / "concurrency.db"),
            KNOWLEDGE_EMBEDDING_MODEL="all-MiniLM-L6-v2",
        )
        asyncio.run(in_services(concurrency, _indexing_and_concurrency))
        _default_embedder_figures(workdir)
    _embedding_figures()


if __name__ == "__main__":
    main()

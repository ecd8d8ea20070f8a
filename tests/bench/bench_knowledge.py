"""The embedded knowledge store at 100k objects, and the local embedder's throughput.

Store figures use synthetic 384-dim vectors (clustered, like real embeddings) supplied with
the objects, so they measure the store, not the model:
- insert rate through `insert_many` (objects + FTS5 + vec0 in one transaction per batch),
  against plain SQLite inserts of the same rows into one table (the floor);
- knn p50/p95, unfiltered and with a 10% filter, against exact numpy brute force over the
  same matrix; recall@10 against that exact answer;
- hybrid p50 (BM25 + vector, fused) against vector-only knn on the same store.
Embedding throughput: chunks/s of ~200-token chunks through the numpy MiniLM the server
uses, against sentence-transformers (torch) running the same weights.

Size with KNOWLEDGE_BENCH_OBJECTS (default 100000).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import tempfile
import time
from pathlib import Path

from tests.bench.common import header, percentile, report, stopwatch

OBJECTS = int(os.environ.get("KNOWLEDGE_BENCH_OBJECTS", "100000"))
DIMS = 384
BATCH = 1000
QUERIES = 100
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


def _corpus(rng):
    import numpy as np

    centres = rng.standard_normal((200, DIMS)).astype(np.float32)
    labels = rng.integers(0, len(centres), OBJECTS)
    vectors = centres[labels] + 0.6 * rng.standard_normal((OBJECTS, DIMS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    picks = rng.integers(0, len(WORDS), (OBJECTS, 8))
    objects = [
        {
            "video_id": f"v{i:010d}",
            "title": " ".join(WORDS[j] for j in picks[i]),
            "view_count": int(i % 10),
            "tags": [WORDS[picks[i][0]]],
        }
        for i in range(OBJECTS)
    ]
    return objects, vectors


def _plain_sqlite_insert(path: Path, objects, vectors) -> float:
    import json

    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, uuid TEXT, properties TEXT, v BLOB)")
    with stopwatch() as clock:
        for start in range(0, OBJECTS, BATCH):
            rows = [
                (f"{i}", json.dumps(objects[i]), vectors[i].tobytes())
                for i in range(start, min(start + BATCH, OBJECTS))
            ]
            with conn:
                conn.executemany("INSERT INTO t (uuid, properties, v) VALUES (?, ?, ?)", rows)
    conn.close()
    return OBJECTS / clock["s"]


async def _store_figures(workdir: Path) -> None:
    import numpy as np

    from video_research import config
    from video_research.knowledge.filters import Filter
    from video_research.knowledge.store import close_store, get_store

    rng = np.random.default_rng(7)
    objects, vectors = _corpus(rng)
    os.environ["KNOWLEDGE_DB"] = str(workdir / "knowledge.db")
    config.reset_config()
    store = await get_store()
    collection = "VideoMetadata"

    with stopwatch() as clock:
        for start in range(0, OBJECTS, BATCH):
            end = min(start + BATCH, OBJECTS)
            await store.insert_many(collection, objects[start:end], vectors=vectors[start:end])
    rate = OBJECTS / clock["s"]
    floor = _plain_sqlite_insert(workdir / "plain.db", objects, vectors)
    header(f"knowledge store, {OBJECTS} objects x {DIMS} dims (embedded SQLite)")
    report("insert (objects/s)", rate, "obj/s", "plain sqlite table", floor, higher_is_better=True)

    queries = vectors[rng.integers(0, OBJECTS, QUERIES)] + 0.1 * rng.standard_normal(
        (QUERIES, DIMS)
    ).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    popular = np.array([o["view_count"] == 7 for o in objects])
    where = Filter.eq("view_count", 7)

    def exact(query, mask=None):
        scores = vectors @ query
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        top = np.argpartition(-scores, 10)[:10]
        return top[np.argsort(-scores[top])]

    async def timed_knn(mask, filt):
        times, recalls, baseline = [], [], []
        for query in queries:
            started = time.perf_counter()
            hits = await store.near_vector(collection, query, where=filt, limit=10)
            times.append(time.perf_counter() - started)
            started = time.perf_counter()
            truth = exact(query, mask)
            baseline.append(time.perf_counter() - started)
            found = {int(hit.properties["video_id"][1:]) for hit in hits}
            recalls.append(len(found & set(truth.tolist())) / 10)
        return times, baseline, sum(recalls) / len(recalls)

    def latency(name: str, ours: list[float], base_name: str, base: list[float]) -> None:
        for pct in (50, 95):
            ms = (percentile(ours, pct) * 1e3, percentile(base, pct) * 1e3)
            report(
                f"{name} p{pct}", ms[0], "ms", f"{base_name} p{pct}", ms[1], higher_is_better=False
            )

    knn, numpy_knn, recall = await timed_knn(None, None)
    latency("knn", knn, "numpy exact", numpy_knn)
    report("knn recall@10", recall, "", "numpy exact", 1.0, higher_is_better=True)
    fknn, numpy_fknn, frecall = await timed_knn(popular, where)
    latency("knn, filter (10%)", fknn, "numpy exact, masked", numpy_fknn)
    report("knn recall@10, filter", frecall, "", "numpy exact", 1.0, higher_is_better=True)

    hybrid = []
    for n, query in enumerate(queries):
        text = f"{WORDS[n % len(WORDS)]} {WORDS[(n * 7) % len(WORDS)]}"
        started = time.perf_counter()
        await store.hybrid(collection, text, alpha=0.5, vector=query, limit=10)
        hybrid.append(time.perf_counter() - started)
    report(
        "hybrid p50 (alpha 0.5)",
        percentile(hybrid, 50) * 1e3,
        "ms",
        "vector-only knn p50",
        percentile(knn, 50) * 1e3,
        higher_is_better=False,
    )
    await close_store()
    os.environ.pop("KNOWLEDGE_DB")
    config.reset_config()


def _embedding_figures() -> None:
    from video_research.knowledge.embeddings import LocalEmbedder, count_tokens, local_model_dir

    sentence = "The speaker explains how sourdough starter ferments and why the crumb opens up. "
    chunk = sentence * 12
    while count_tokens(chunk) > 200:
        chunk = chunk[: int(len(chunk) * 0.95)]
    chunks = [f"{n} {chunk}" for n in range(128)]

    from sentence_transformers import SentenceTransformer

    ours = LocalEmbedder()
    theirs = SentenceTransformer(str(local_model_dir()), device="cpu")
    ours.encode(chunks[:4])  # load both outside the timing
    theirs.encode(chunks[:4])
    # Alternate the two and keep each one's best round: the machine may be shared.
    numpy_rate = torch_rate = 0.0
    for _ in range(3):
        with stopwatch() as clock:
            ours.encode(chunks)
        numpy_rate = max(numpy_rate, len(chunks) / clock["s"])
        with stopwatch() as clock:
            theirs.encode(chunks, batch_size=32)
        torch_rate = max(torch_rate, len(chunks) / clock["s"])
    header(f"local embeddings, {len(chunks)} chunks of ~{count_tokens(chunk)} tokens, CPU")
    report(
        "numpy MiniLM (searches, small writes)",
        numpy_rate,
        "chunks/s",
        "sentence-transformers (torch)",
        torch_rate,
        higher_is_better=True,
    )


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-knowledge-") as tmp:
        asyncio.run(_store_figures(Path(tmp)))
    _embedding_figures()


if __name__ == "__main__":
    main()

"""The embedded store at a million transcript chunks, with the default embedder's size.

`make bench BENCH=million` (KNOWLEDGE_BENCH_MILLION chunks, default 1000000; 0 skips;
KNOWLEDGE_BENCH_DROP_CACHE=1 adds hybrid search with the page cache dropped, as root).
The store is the real one (`insert_many`, then the Tantivy and faiss indexes built from
SQLite as on a store's first search), filled with chunks of 8-20 real caption lines
(../shared/data/transcripts, drawn from a window of 60 neighbouring lines, so a chunk
keeps to one talk's topic) and 512-dim unit vectors (use-multilingual's size) from the
topic mixture `bench_knowledge._realistic_vectors` fits to real embeddings. Building it
takes most of an hour on 2 cores, so it is kept between runs under
KNOWLEDGE_BENCH_CACHE (default <tmp>/video-research-bench), with the seconds each part
of the build took (printed again on every run, marked as cached).

Figures, each beside a baseline measured in the same run:
- keyword p50/p95 of the store's keyword side (`_keyword`: Tantivy's two shards searched
  in parallel, rescored) for
  2-6-word and 12-18-word queries, against exhaustive FTS5 bm25() on a sample;
- its recall@10 against the independent exhaustive BM25 (tests/bench/exact_bm25.py),
  over the terms it searches and over every query token;
- the vector index: graph build (bulk, from SQLite) against the insert of the same rows,
  and the bulk build against slice-by-slice building at BULK_SAMPLE vectors; knn p50 and
  recall@10 against exact numpy search over the same vectors;
- hybrid p50/p95 (ANN + keyword + fusion, 30 results as semantic_search_transcripts
  asks; query vectors given) against its two sides alone.
The host's load average is printed beside them: figures on a shared machine are noisy.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from tests.bench.common import (
    header,
    in_services,
    percentile,
    report,
    report_latency,
    services_for,
    stopwatch,
)

SIZE = int(os.environ.get("KNOWLEDGE_BENCH_MILLION", "1000000"))
CACHE = Path(
    os.environ.get("KNOWLEDGE_BENCH_CACHE") or Path(tempfile.gettempdir()) / "video-research-bench"
)
DIMS = 512
"""use-multilingual's dimension (the default embedder)."""
FORMAT = 1
"""Part of the cached store's key: bump it when the chunks or vectors change."""
BATCH = 5000
QUERIES = 60
FTS5_SAMPLE = 5
"""Queries the exhaustive FTS5 baseline runs (seconds each at a million chunks)."""
BULK_SAMPLE = 100_000
"""Vectors of the bulk-against-slices build comparison."""
MODEL = "use-multilingual"
DROP_CACHE = os.environ.get("KNOWLEDGE_BENCH_DROP_CACHE") == "1"
"""Also measure hybrid search with the page cache dropped (root only: it empties the
whole machine's cache, so it is asked for, never done by default)."""


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _folder(size: int) -> Path:
    return CACHE / f"million-{size}-{DIMS}-f{FORMAT}"


def _chunks(size: int, lines: list[str], seed: int = 24):
    """Batches of chunk properties: 8-20 caption lines from a window of 60 neighbours."""
    import numpy as np

    rng = np.random.default_rng(seed)
    objects: list[dict] = []
    for made in range(size):
        start = int(rng.integers(0, max(1, len(lines) - 60)))
        count = int(rng.integers(8, 21))
        picked = np.sort(rng.choice(60, count, replace=False)) + start
        text = "\n".join(lines[int(i) % len(lines)] for i in picked)
        video, index = divmod(made, 20)
        objects.append(
            {
                "video_id": f"m{video:07d}",
                "source": "file",
                "language": "en",
                "evidence": "speech",
                "text": text,
                "start_time": float(index * 30),
                "end_time": float(index * 30 + 30),
                "chunk_index": index,
            }
        )
        if len(objects) == BATCH:
            yield objects
            objects = []
    if objects:
        yield objects


def _made(properties: dict) -> int:
    """A chunk's position in `_chunks` (and its vector's in `_vectors`)."""
    return int(properties["video_id"][1:]) * 20 + int(properties["chunk_index"])


def _vectors(size: int):
    """(stored vectors, QUERIES unstored query vectors), the same on every run."""
    import numpy as np

    from tests.bench.bench_knowledge import _realistic_vectors

    vectors = _realistic_vectors(size + QUERIES, np.random.default_rng(7), DIMS)
    return vectors[QUERIES:], vectors[:QUERIES]


async def _insert(folder: Path, size: int, lines: list[str], vectors) -> dict:
    """Fill the store (once: the longest part, kept apart from the index builds)."""
    from video_research.knowledge.store import get_store
    from video_research.transcripts.indexer import CHUNKS

    marker = folder / "inserted.json"
    if marker.exists():
        return json.loads(marker.read_text())
    store = await get_store()
    started = time.perf_counter()
    with stopwatch() as clock:
        at = 0
        for objects in _chunks(size, lines):
            await store.insert_many(CHUNKS, objects, vectors=vectors[at : at + len(objects)])
            at += len(objects)
            if at % 100_000 == 0:
                print(
                    f"   ({at:,} chunks inserted in {time.perf_counter() - started:.0f} s)",
                    flush=True,
                )
    inserted = {"insert_s": clock["s"], "load_while_inserting": _load()}
    marker.write_text(json.dumps(inserted))
    return inserted


async def _build(folder: Path, size: int, lines: list[str], vectors) -> dict:
    """Fill the store and build both indexes; the seconds each part took."""
    from video_research.knowledge.store import get_store
    from video_research.transcripts.indexer import CHUNKS

    built = await _insert(folder, size, lines, vectors)
    store = await get_store()
    keywords = store._keyword_index(CHUNKS)
    with stopwatch() as clock:
        await asyncio.to_thread(keywords.settle)
    built["keyword_index_s"] = clock["s"]
    with stopwatch() as clock:
        await store.near_vector(CHUNKS, vectors[0], limit=1)  # loads the flat part
        index = store._indexes[CHUNKS]
        await asyncio.to_thread(index.settle)
    built["vector_index_s"] = clock["s"]
    built["vector_graph_s"] = index.build_seconds
    index.save()
    built["load_after_building"] = _load()
    (folder / "build.json").write_text(json.dumps(built))
    return built


async def _bulk_against_slices(vectors) -> None:
    """Bulk graph build (the whole flat part at once) against slice-by-slice building."""
    import numpy as np

    from video_research.knowledge.backends import ann, ann_build

    sample = np.ascontiguousarray(vectors[:BULK_SAMPLE])
    took = {}
    for label, bulk in (("bulk", True), ("slices", False)):
        index = ann.VectorIndex(None, "sample", "bench", DIMS, min_objects=100, ef_search=256)
        for row, vector in enumerate(sample):
            index._flat_put(row + 1, vector)
        with stopwatch() as clock:
            if bulk:
                index.settle()
            else:
                while index.merge_slice(bulk=False):
                    pass
        took[label] = clock["s"]
    report(
        f"graph build, {len(sample):,} vectors, bulk (s)",
        took["bulk"],
        "s",
        f"in slices of {ann_build.MERGE_SLICE}",
        took["slices"],
        higher_is_better=False,
    )


def _tantivy_alone(index, texts: list[str]) -> list[float]:
    """Seconds of Tantivy's own search per query (the terms the store searches, the
    top-30 it rescores, every shard in parallel as the store searches them): what the
    keyword side costs before rescoring."""
    import tantivy

    from video_research.knowledge.backends.keyword_index import RESCORED, _each, query_tokens

    times = []
    for text in texts:
        terms = index.telling(query_tokens(text))
        query = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.term_query(index._schema, "body", term))
                for term in terms
            ]
        )
        started = time.perf_counter()
        _each(index._searchers, query, RESCORED)
        times.append(time.perf_counter() - started)
    return times


async def _figures(size: int) -> None:
    import numpy as np

    from tests.bench.bench_knowledge import _transcript_lines
    from tests.bench.exact_bm25 import ExactBm25, recall_at_k
    from video_research.knowledge.backends import fts
    from video_research.knowledge.backends.keyword_index import query_tokens
    from video_research.knowledge.store import get_store
    from video_research.support.services import current_services
    from video_research.transcripts.indexer import CHUNKS

    folder = _folder(size)
    lines = _transcript_lines()
    with stopwatch() as clock:
        vectors, queries = _vectors(size)
    print(f"   (vectors generated in {clock['s']:.0f} s)", flush=True)
    marker = folder / "build.json"
    if marker.exists():
        built = json.loads(marker.read_text())
        cached = " (cached from an earlier run)"
    else:
        built = await _build(folder, size, lines, vectors)
        await current_services().aclose()
        cached = ""
    header(f"the store at {size:,} transcript chunks x {DIMS} dims{cached}")
    report(
        "keyword index build (s, Tantivy)",
        built["keyword_index_s"],
        "s",
        "insert through insert_many",
        built["insert_s"],
        higher_is_better=False,
    )
    report(
        "vector index build (s, load + bulk graph)",
        built["vector_index_s"],
        "s",
        "insert through insert_many",
        built["insert_s"],
        higher_is_better=False,
    )
    print(
        f"   (load average while inserting {built['load_while_inserting']}, after building "
        f"{built['load_after_building']})"
    )

    store = await get_store()
    conn = store._conn()
    with stopwatch() as clock:
        await store.near_vector(CHUNKS, vectors[0], limit=1)
        await asyncio.to_thread(store._keyword_index(CHUNKS).settle)
    print(f"   (indexes reopened from their files in {clock['s']:.1f} s)", flush=True)
    index = store._keyword_index(CHUNKS)
    rng = np.random.default_rng(11)
    short = [" ".join(lines[int(i)].split()[:6]) for i in rng.integers(0, len(lines), QUERIES)]
    long = [" ".join(lines[int(i)] for i in rng.integers(0, len(lines), 2)) for _ in short]
    long = [" ".join(text.split()[:18]) for text in long]
    for text in short[:5]:
        store._keyword(conn, CHUNKS, text, None, 10)  # warm the searcher and page cache

    with stopwatch() as clock:
        bm25 = ExactBm25(conn.execute(f'SELECT rowid, body FROM "fts_{CHUNKS}"'))
    print(f"   (exact BM25 over {len(bm25.rows):,} chunks in {clock['s']:.0f} s)", flush=True)
    keyword_times: list[float] = []
    print(f"   (load average {_load()} while measuring latency)")
    for label, texts in (("2-6 words", short), ("12-18 words", long)):
        times, terms_recall, all_recall = [], [], []
        for text in texts:
            started = time.perf_counter()
            hits, _ = store._keyword(conn, CHUNKS, text, None, 10)
            times.append(time.perf_counter() - started)
            rows = [row for row, _ in hits]
            tokens = query_tokens(text)
            terms_recall.append(recall_at_k(rows, bm25.top(index.telling(tokens))))
            all_recall.append(recall_at_k(rows, bm25.top(tokens)))
        keyword_times += times
        engine = _tantivy_alone(index, texts)
        report(
            f"keyword p50 ({label}), the store's side",
            percentile(times, 50) * 1e3,
            "ms",
            "Tantivy's top-30 search alone p50",
            percentile(engine, 50) * 1e3,
            higher_is_better=False,
        )
        old = []
        for text in texts[:FTS5_SAMPLE]:
            expression = fts.match_expression(fts.query_terms(text))
            started = time.perf_counter()
            conn.execute(
                f'SELECT rowid FROM "fts_{CHUNKS}" WHERE "fts_{CHUNKS}" MATCH ? '
                f'ORDER BY bm25("fts_{CHUNKS}") LIMIT 10',
                (expression,),
            ).fetchall()
            old.append(time.perf_counter() - started)
        report_latency(f"keyword ({label})", times, f"exhaustive FTS5 ({len(old)} q)", old)
        mean = lambda values: sum(values) / max(1, len(values))  # noqa: E731
        report(
            f"keyword recall@10 vs exact BM25 ({label})",
            mean(terms_recall),
            "",
            "target",
            0.99,
            higher_is_better=True,
        )
        print(
            f"   (against exact BM25 of every query token, words in more than half the "
            f"chunks included: {mean(all_recall):.3f})"
        )
    del bm25

    knn, exact, recall = [], [], []
    for query in queries:
        started = time.perf_counter()
        hits = await store.near_vector(CHUNKS, query, limit=10)
        knn.append(time.perf_counter() - started)
        started = time.perf_counter()
        scores = vectors @ query
        top = np.argpartition(-scores, 10)[:10]
        exact.append(time.perf_counter() - started)
        found = {_made(hit.properties) for hit in hits}
        recall.append(len(found & {int(i) for i in top}) / 10)
    report_latency("knn", knn, "numpy exact", exact)
    report(
        "knn recall@10", sum(recall) / len(recall), "", "numpy exact", 1.0, higher_is_better=True
    )

    hybrid = []
    for text, query in zip(short + long, np.concatenate([queries, queries]), strict=True):
        started = time.perf_counter()
        await store.hybrid(CHUNKS, text, vector=query, limit=30)
        hybrid.append(time.perf_counter() - started)
    print(f"   (load average {_load()} after the hybrid queries)")
    for pct in (50, 95):
        report(
            f"hybrid p{pct} (ANN + keyword + fusion)",
            percentile(hybrid, pct) * 1e3,
            "ms",
            f"knn p{pct} + keyword p{pct}",
            (percentile(knn, pct) + percentile(keyword_times, pct)) * 1e3,
            higher_is_better=False,
        )
    # The queries above are the same on every run, so their rows may be in the page
    # cache from an earlier run: these are new to this run (a stored chunk's vector
    # moved a little, random caption words), their rows most likely read from disk.
    fresh_rng = np.random.default_rng()
    picked = fresh_rng.integers(0, size, QUERIES)
    moved = vectors[picked] + 0.05 * fresh_rng.standard_normal((QUERIES, DIMS)).astype(np.float32)
    moved /= np.linalg.norm(moved, axis=1, keepdims=True)
    fresh = []
    for i, query in zip(fresh_rng.integers(0, len(lines), QUERIES), moved, strict=True):
        started = time.perf_counter()
        await store.hybrid(CHUNKS, " ".join(lines[int(i)].split()[:6]), vector=query, limit=30)
        fresh.append(time.perf_counter() - started)
    for label, times in (("", hybrid), (", queries new to this run", fresh)):
        report(
            f"hybrid p50{label}",
            percentile(times, 50) * 1e3,
            "ms",
            "target",
            30.0,
            higher_is_better=False,
        )
    print(f"   (hybrid p95, queries new to this run: {percentile(fresh, 95) * 1e3:.1f} ms)")
    # What a tool call without alpha does (the fitted fusion, knowledge.ranking) beside a
    # fixed 0.5, each query in turn, so the page cache warms them alike.
    weighed, fixed = [], []
    for text, query in zip(short + long, np.concatenate([queries, queries]), strict=True):
        for alpha, times in ((None, weighed), (0.5, fixed)):
            started = time.perf_counter()
            await store.hybrid(CHUNKS, text, alpha=alpha, vector=query, limit=30)
            times.append(time.perf_counter() - started)
    report_latency("hybrid, the fitted fusion", weighed, "alpha 0.5, same queries", fixed)
    if DROP_CACHE:
        pairs = list(zip(short + long, np.concatenate([queries, queries]), strict=True))
        await _hybrid_cold(store, pairs)
    await current_services().aclose()
    await _bulk_against_slices(vectors)


async def _hybrid_cold(store, pairs) -> None:
    """Hybrid p50 with every file's pages dropped from the kernel's page cache (the
    process keeps its vector graph in memory), against the same queries right after."""
    from video_research.transcripts.indexer import CHUNKS

    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("1\n")
    except OSError as exc:
        print(f"   (page cache not dropped: {exc}; needs root)")
        return
    runs = []
    for _ in range(2):
        times = []
        for text, query in pairs:
            started = time.perf_counter()
            await store.hybrid(CHUNKS, text, vector=query, limit=30)
            times.append(time.perf_counter() - started)
        runs.append(times)
    report_latency("hybrid, page cache dropped", runs[0], "the same queries again", runs[1])


def main() -> None:
    if not SIZE:
        print("   (skipped: KNOWLEDGE_BENCH_MILLION=0)")
        return
    folder = _folder(SIZE)
    if not (folder / "inserted.json").exists():  # a run stopped while inserting
        shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    services = services_for(
        KNOWLEDGE_DB=str(folder / "knowledge.db"), KNOWLEDGE_EMBEDDING_MODEL=MODEL
    )
    asyncio.run(in_services(services, lambda: _figures(SIZE)))


if __name__ == "__main__":
    main()

"""The store at 100k and 1M transcript chunks: keyword and hybrid search on real-shaped data.

Runs on the stores `make eval EVAL="--distractors 100000,1000000"` builds and caches
(the eval corpus plus distractor chunks of real transcripts, use-multilingual vectors;
a store drawn from a `--distractor-pool` is preferred over one of the corpus's own
lines; see tests/eval/distractors.py): building a million chunks takes most of an hour on 2 cores,
so this benchmark reuses them and says so when they are missing. Sizes:
KNOWLEDGE_BENCH_SCALE_SIZES (default 100000,1000000). The queries are the eval's own
(viewer questions and notes, English and Chinese).

For each size, beside a baseline measured in the same run:
- keyword p50/p95 of the store's keyword side (Tantivy, rescored; `_keyword`) against
  exhaustive FTS5 bm25() on a sample of the same queries;
- its recall@10 against the independent exhaustive BM25 (tests/bench/exact_bm25.py),
  and against exhaustive FTS5;
- hybrid p50 through the store's hybrid search (ANN + Tantivy + fusion, 30 candidates
  as semantic_search_transcripts asks), query vectors embedded beforehand, against the
  same search over the corpus alone; the default embedder's query p50 beside it.
The host's load average is printed with the figures: they are noisy on a shared machine.
"""

from __future__ import annotations

import asyncio
import os
import time

from tests.bench.common import header, percentile, report, report_latency

SIZES = [
    int(s) for s in os.environ.get("KNOWLEDGE_BENCH_SCALE_SIZES", "100000,1000000").split(",") if s
]
FTS5_SAMPLE = 10
"""Queries the exhaustive FTS5 baseline runs (seconds each at 1M)."""


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


async def _queries() -> list[str]:
    from tests.eval.metrics import NOTES, load_queries

    return [q.query for q in load_queries() + load_queries(NOTES)]


async def _figures(size: int, texts: list[str], vectors, baseline: dict) -> dict:
    import tests.eval.distractors as distractors
    from tests.bench.exact_bm25 import ExactBm25, recall_at_k
    from video_research.knowledge.backends import fts
    from video_research.knowledge.backends.keyword_index import query_tokens
    from video_research.knowledge.embedders.embeddings import DEFAULT_LOCAL_MODEL
    from video_research.knowledge.store import get_store
    from video_research.support.services import use_services
    from video_research.transcripts.indexer import CHUNKS

    folder = distractors.cached_store(DEFAULT_LOCAL_MODEL, size)
    if size and not (folder / "complete.json").exists():
        print(
            f"   (no cached store of {size} distractors in {folder}: run "
            f'make eval EVAL="--distractors {size}" first)'
        )
        return {}
    services = distractors._services(folder, DEFAULT_LOCAL_MODEL, size)
    exact = size >= distractors.EXACT_VECTORS_FROM
    try:
        with use_services(services):
            store = await get_store()
            await distractors.settle(store)
            count = await store.count(CHUNKS)
            conn = store._conn()
            index = store._keyword_index(CHUNKS)
            for text in texts[:5]:  # warm the searcher and page cache
                store._keyword(conn, CHUNKS, text, None, 10)
            keyword, found = [], []
            for text in texts:
                started = time.perf_counter()
                hits, _ = store._keyword(conn, CHUNKS, text, None, 10)
                keyword.append(time.perf_counter() - started)
                found.append([row for row, _ in hits])
            hybrid = []
            for text, vector in zip(texts, vectors, strict=True):
                started = time.perf_counter()
                await store.hybrid(CHUNKS, text, vector=vector, limit=30)
                hybrid.append(time.perf_counter() - started)
            result = {"count": count, "keyword": keyword, "hybrid": hybrid, "load": _load()}
            if not size:
                return result
            header(f"the store at {count:,} transcript chunks (corpus + {size:,} distractors)")
            print(f"   (load average {result['load']} while measuring latency)")
            started = time.perf_counter()
            bm25 = ExactBm25(conn.execute(f'SELECT rowid, body FROM "fts_{CHUNKS}"'))
            print(
                f"   (exact BM25 over {len(bm25.rows):,} chunks in "
                f"{time.perf_counter() - started:.0f} s)"
            )
            recall_all, recall_terms = [], []
            for text, rows in zip(texts, found, strict=True):
                terms = query_tokens(text)
                recall_all.append(recall_at_k(rows, bm25.top(terms)))
                recall_terms.append(recall_at_k(rows, bm25.top(index.telling(terms))))
            old, recall_fts5, fts5_exact = [], [], []
            for text, rows in list(zip(texts, found, strict=True))[:FTS5_SAMPLE]:
                expression = fts.match_expression(fts.query_terms(text))
                if expression is None:
                    continue
                started = time.perf_counter()
                ranked = conn.execute(
                    f'SELECT rowid, -bm25("fts_{CHUNKS}") FROM "fts_{CHUNKS}" '
                    f'WHERE "fts_{CHUNKS}" MATCH ? ORDER BY bm25("fts_{CHUNKS}")',
                    (expression,),
                ).fetchall()
                old.append(time.perf_counter() - started)
                scores = dict(ranked)
                tenth = sorted(scores.values(), reverse=True)[: min(10, len(scores))][-1]
                top = {row: s for row, s in scores.items() if s >= tenth - 1e-9}
                recall_fts5.append(recall_at_k(rows, top))
                fts5_exact.append(
                    recall_at_k([row for row, _ in ranked[:10]], bm25.top(query_tokens(text)))
                )
            report_latency(
                f"keyword, {size:,} distractors", keyword, f"exhaustive FTS5 ({len(old)} q)", old
            )
            mean = lambda values: sum(values) / max(1, len(values))  # noqa: E731
            report(
                "keyword recall@10 vs exact BM25 (its terms)",
                mean(recall_terms),
                "",
                "exhaustive FTS5 vs exact BM25",
                mean(fts5_exact),
                higher_is_better=True,
            )
            report(
                "keyword recall@10 vs exact BM25 (all tokens)",
                mean(recall_all),
                "",
                "exhaustive FTS5 vs exact BM25",
                mean(fts5_exact),
                higher_is_better=True,
            )
            # FTS5's bm25() is not textbook BM25 (its IDF goes to ~0 for common words,
            # its tokens are not the index's), so this agreement is shown for reference
            # beside FTS5's own against exact BM25; the target is the line above.
            report(
                "keyword recall@10 vs exhaustive FTS5's order",
                mean(recall_fts5),
                "",
                "exhaustive FTS5 vs exact BM25",
                mean(fts5_exact),
                higher_is_better=True,
            )
            if exact:
                print("   (vector side searched exactly here, no HNSW graph: see distractors.py)")
            report(
                f"hybrid p50 at {count:,} chunks" + (", exact vectors" if exact else ""),
                percentile(hybrid, 50) * 1e3,
                "ms",
                f"corpus alone ({baseline['count']} chunks)",
                percentile(baseline["hybrid"], 50) * 1e3,
                higher_is_better=False,
            )
            report(
                "hybrid p50 + query embedding p50",
                (percentile(hybrid, 50) + baseline["embed_p50"]) * 1e3,
                "ms",
                "target",
                30.0,
                higher_is_better=False,
            )
            return result
    finally:
        await services.aclose()


async def _run() -> None:
    import tests.eval.distractors as distractors
    from video_research.knowledge.embedders.embeddings import DEFAULT_LOCAL_MODEL
    from video_research.knowledge.store import get_store
    from video_research.support.services import use_services

    texts = await _queries()
    services = distractors._services(
        distractors.store_folder(DEFAULT_LOCAL_MODEL, 0), DEFAULT_LOCAL_MODEL
    )
    try:
        with use_services(services):
            embedder = (await get_store()).embedder
            await embedder.embed(texts[:2], "query")
            vectors, embed = [], []
            for text in texts:
                started = time.perf_counter()
                vectors.append((await embedder.embed([text], "query"))[0])
                embed.append(time.perf_counter() - started)
    finally:
        await services.aclose()
    baseline = await _figures(0, texts, vectors, {})
    if not baseline:
        print("   (the eval corpus store is missing: run make eval EVAL=--distractors first)")
        return
    baseline["embed_p50"] = percentile(embed, 50)
    print(f"   (query embedding p50 {baseline['embed_p50'] * 1e3:.1f} ms, {DEFAULT_LOCAL_MODEL})")
    for size in SIZES:
        await _figures(size, texts, vectors, baseline)


def main() -> None:
    from tests.eval.distractors import store_folder
    from video_research.knowledge.embedders.embeddings import DEFAULT_LOCAL_MODEL

    if not (store_folder(DEFAULT_LOCAL_MODEL, 0) / "knowledge.db").exists():
        print('   (skipped: no eval stores; run make eval EVAL="--distractors 100000,1000000")')
        return
    asyncio.run(_run())


if __name__ == "__main__":
    main()

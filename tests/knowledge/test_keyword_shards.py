"""The keyword index split into shards (knowledge.backends.keyword_index, SHARDS).

A large collection's rows are dealt over two Tantivy indexes searched in parallel; the
answer must still be exhaustive BM25's, the shards must stay current through writes
(tests/knowledge/test_knowledge_keyword_index.py runs its write and SIGKILL tests over
shards too), and an index follows its collection's size when a process opens it.
SHARD_MIN is lowered here so that a few thousand rows are sharded.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.bench.exact_bm25 import ExactBm25, recall_at_k
from tests.helpers import REPO_ROOT
from video_research.knowledge.backends import keyword_index
from video_research.knowledge.backends.keyword_index import query_tokens

COLLECTION = "VideoMetadata"
DIMS = 384


def _zipf_titles(count: int, seed: int) -> list[str]:
    """Texts of 30-160 words over a 2,000-word vocabulary with Zipf frequencies, so some
    words are in most texts and most words in few, as in transcripts."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, 2001) ** 1.1
    weights /= weights.sum()
    return [
        " ".join(f"w{i}" for i in rng.choice(2000, int(rng.integers(30, 161)), p=weights))
        for _ in range(count)
    ]


async def _opened():
    """The store, its collection loaded (as every public search does first)."""
    from video_research.knowledge.store import get_store

    store = await get_store()
    await store.collection(COLLECTION)
    return store


async def _store_with(titles: list[str]):
    store = await _opened()
    objects = [{"video_id": f"v{i}", "title": title} for i, title in enumerate(titles)]
    vectors = np.random.default_rng(0).standard_normal((len(titles), DIMS)).astype(np.float32)
    await store.insert_many(COLLECTION, objects, vectors=vectors)
    return store


async def test_sharded_index_answers_as_exhaustive_bm25(services, monkeypatch):
    monkeypatch.setattr(keyword_index, "SHARD_MIN", 1000)
    titles = _zipf_titles(3000, seed=5)
    store = await _store_with(titles)
    conn = store._conn()
    hits, normalised = store._keyword(conn, COLLECTION, "w3 w40", None, 10)
    index = store._keyword_indexes[COLLECTION]
    assert normalised and index.shards == 2
    counts = [searcher.num_docs for searcher in index._searchers]
    assert sum(counts) == 3000 and min(counts) == 1500, counts

    exact = ExactBm25(conn.execute(f'SELECT rowid, body FROM "fts_{COLLECTION}"'))
    rng = np.random.default_rng(8)
    recalls, shards_seen = [], set()
    for _ in range(12):
        words = rng.choice(400, int(rng.integers(2, 9)), replace=False)
        query = " ".join(f"w{i}" for i in words)
        hits, _ = store._keyword(conn, COLLECTION, query, None, 10)
        rows = [row for row, _ in hits]
        shards_seen |= {row % 2 for row in rows}
        recalls.append(recall_at_k(rows, exact.top(index.telling(query_tokens(query)))))
    assert shards_seen == {0, 1}
    assert recalls == [1.0] * 12, recalls
    await services.aclose()


async def test_an_index_follows_its_collections_size_when_opened(services, monkeypatch):
    query = "w5 w9 w30"
    store = await _store_with(_zipf_titles(60, seed=6))
    before = store._keyword(store._conn(), COLLECTION, query, None, 10)[0]
    assert store._keyword_indexes[COLLECTION].shards == 1
    await services.aclose()

    async def reopened(shard_min: int) -> tuple[bool, int]:
        """Open the store again with SHARD_MIN at `shard_min`: (whether the query gets
        the one-index answer, same rows, order and scores; the index's shard count)."""
        monkeypatch.setattr(keyword_index, "SHARD_MIN", shard_min)
        store = await _opened()
        hits = store._keyword(store._conn(), COLLECTION, query, None, 10)[0]
        shards = store._keyword_indexes[COLLECTION].shards
        await services.aclose()
        same = [row for row, _ in hits] == [row for row, _ in before] and [
            score for _, score in hits
        ] == pytest.approx([score for _, score in before], rel=1e-9)
        return same, shards

    # 60 rows: past twice the threshold (as if the collection had grown), two shards;
    # within a factor of two of it, kept as they are; below half of it, one index again.
    assert await reopened(25) == (True, 2)
    assert await reopened(100) == (True, 2)
    assert await reopened(1000) == (True, 1)


async def test_concurrent_searches_over_shards_agree_with_one_at_a_time(services, monkeypatch):
    """Searches on several threads share the shards' one-worker pool: each gets its own
    answer, the one it gets alone."""
    import asyncio

    monkeypatch.setattr(keyword_index, "SHARD_MIN", 100)
    store = await _store_with(_zipf_titles(400, seed=7))
    queries = [f"w{i} w{i + 7} w{3 * i + 11}" for i in range(16)]
    vector = np.random.default_rng(1).standard_normal(DIMS).astype(np.float32)

    async def search(query: str) -> list[str]:
        hits = await store.hybrid(COLLECTION, query, alpha=0.3, limit=10, vector=vector)
        return [hit.uuid for hit in hits]

    alone = [await search(query) for query in queries]
    assert store._keyword_indexes[COLLECTION].shards == 2
    together = await asyncio.gather(*(search(query) for query in queries * 3))
    assert together == alone * 3
    await services.aclose()


SEARCH_THEN_FORK = textwrap.dedent(
    """
    import asyncio, os, signal
    import numpy as np
    from video_research.knowledge.backends import keyword_index
    from video_research.knowledge.store import get_store

    keyword_index.SHARD_MIN = 1

    async def search():
        store = await get_store()
        hits = await store.hybrid(
            "VideoMetadata", "lemma", alpha=0.0, limit=5, vector=np.ones(384, "float32")
        )
        assert store._keyword_indexes["VideoMetadata"].shards == 2
        return len(hits)

    async def main():
        store = await get_store()
        objects = [{"video_id": f"v{i}", "title": f"lemma {i}"} for i in range(8)]
        await store.insert_many(
            "VideoMetadata", objects, vectors=np.ones((8, 384), "float32")
        )
        return await search()

    assert asyncio.run(main()) == 5  # the shards' pool has its worker thread now
    pid = os.fork()
    if pid == 0:
        signal.alarm(20)  # a child waiting on the parent's worker would hang here
        os._exit(0 if asyncio.run(search()) == 5 else 1)
    _, status = os.waitpid(pid, 0)
    raise SystemExit(os.waitstatus_to_exitcode(status))
    """
)


def test_a_forked_child_searches_its_shards(server_env):
    """The pool's worker thread is not copied into a forked child (a server forked by a
    prefork host after its first search): the child starts its own pool, not waits."""
    done = subprocess.run(
        [sys.executable, "-c", SEARCH_THEN_FORK],
        env=server_env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]

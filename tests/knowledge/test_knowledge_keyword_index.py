"""The embedded store's Tantivy keyword index (knowledge.backends.keyword_index).

Every answer is checked against SQLite, the source of truth: current after every write,
never a deleted object, rebuilt when missing or stale, correct after a SIGKILL.
"""

from __future__ import annotations

import json
import os
import sqlite3
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import kill_after_commits
from video_research.knowledge.backends import keyword_index
from video_research.knowledge.filters import Filter

COLLECTION = "VideoMetadata"
DIMS = 384


def _vectors(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, DIMS)).astype(np.float32)


async def _keyword(store, text: str, where=None, limit: int = 50) -> list[str]:
    hits = await store.hybrid(
        COLLECTION, text, alpha=0.0, where=where, limit=limit, vector=_vectors(1)[0]
    )
    assert store._keyword_indexes[COLLECTION].applied >= 0, "Tantivy did not serve it"
    return [hit.properties["video_id"] for hit in hits]


def _objects(n: int, word: str = "lemma") -> list[dict]:
    return [
        {"video_id": f"v{i}", "title": f"{word} {i} the proof", "view_count": i % 10}
        for i in range(n)
    ]


def test_tokens_split_scripts_and_make_cjk_bigrams():
    tokens = keyword_index.query_tokens("请讲解GPT4模型和Transformer 2017年 Café")
    assert {"gpt4", "transformer", "2017", "cafe"} <= set(tokens)
    assert "讲解" in tokens and "模型" in tokens and "年" in tokens
    assert keyword_index.index_tokens("注意力机制") == "注意 意力 力机 机制"


@pytest.mark.parametrize("shard_min", [keyword_index.SHARD_MIN, 1])
async def test_index_serves_keywords_and_is_current_after_every_write(
    services, monkeypatch, shard_min
):
    from video_research.knowledge.store import generate_uuid5, get_store

    monkeypatch.setattr(keyword_index, "SHARD_MIN", shard_min)

    store = await get_store()
    objects = _objects(30)
    uuids = [generate_uuid5(o["video_id"]) for o in objects]
    await store.insert_many(COLLECTION, objects, uuids=uuids, vectors=_vectors(30))
    assert len(await _keyword(store, "lemma")) == 30
    index = store._keyword_indexes[COLLECTION]
    assert index.applied >= 0, "the Tantivy index did not serve the search"
    assert index.shards == (2 if shard_min == 1 else 1)
    await store.delete_where(COLLECTION, Filter.eq("video_id", "v3"))
    found = await _keyword(store, "lemma")
    assert "v3" not in found and len(found) == 29
    changed = {**objects[4], "title": "corollary only"}
    await store.upsert(COLLECTION, changed, uuid=uuids[4], vector=_vectors(1)[0])
    assert "v4" not in await _keyword(store, "lemma")
    assert await _keyword(store, "corollary") == ["v4"]
    within = await _keyword(store, "lemma", where=Filter.eq("view_count", 7))
    assert sorted(within) == ["v17", "v27", "v7"]
    await services.aclose()


async def test_a_row_the_indexes_hold_but_sqlite_lost_is_skipped_and_replaced(services):
    """Both sides answer with row ids and only the hits returned are read back: a row
    gone from SQLite behind the indexes' back (another process's delete racing the
    search) is left out and the next hit takes its place."""
    from video_research.knowledge.store import get_store
    from video_research.support.services import current_settings

    store = await get_store()
    objects = _objects(12)
    objects[3]["title"] = "lemma lemma lemma lemma"
    await store.insert_many(COLLECTION, objects, vectors=_vectors(12))
    assert (await _keyword(store, "lemma", limit=5))[0] == "v3"
    with sqlite3.connect(current_settings().knowledge_db) as raw:  # no change-log entry
        raw.execute(
            f"DELETE FROM \"obj_{COLLECTION}\" WHERE json_extract(properties, '$.video_id') = 'v3'"
        )
    for alpha in (0.0, 0.5, 1.0):
        hits = await store.hybrid(COLLECTION, "lemma", alpha=alpha, limit=5, vector=_vectors(1)[0])
        found = [hit.properties["video_id"] for hit in hits]
        assert len(found) == 5 and "v3" not in found, (alpha, found)
    await services.aclose()


async def test_a_missing_damaged_or_stale_index_is_rebuilt(services, tmp_path):
    from video_research.knowledge.store import get_store
    from video_research.support.services import current_settings

    store = await get_store()
    await store.insert_many(COLLECTION, _objects(20), vectors=_vectors(20))
    assert len(await _keyword(store, "lemma")) == 20
    await services.aclose()
    folder = Path(str(current_settings().knowledge_db) + ".kw")
    meta = folder / f"{COLLECTION}.json"
    saved = json.loads(meta.read_text())

    # Stale: another tokenisation wrote it.
    meta.write_text(json.dumps({**saved, "source": "other"}))
    assert len(await _keyword(await get_store(), "lemma")) == 20
    await services.aclose()
    assert json.loads(meta.read_text())["source"] == saved["source"]

    # Behind SQLite without knowing it: rows written while the index was elsewhere.
    held = tmp_path / "held"
    os.replace(folder, held)
    store = await get_store()
    await store.insert_many(COLLECTION, _objects(5, "extra"), vectors=_vectors(5))
    assert len(await _keyword(store, "extra")) == 5
    await services.aclose()
    import shutil

    shutil.rmtree(folder)
    os.replace(held, folder)
    assert len(await _keyword(await get_store(), "extra")) == 5
    await services.aclose()

    # Damaged: the index files are garbage.
    for path in (folder / COLLECTION).rglob("*"):  # every shard's files
        if path.is_file():
            path.write_bytes(b"not an index")
    assert len(await _keyword(await get_store(), "lemma")) == 20

    # Missing.
    await services.aclose()
    shutil.rmtree(folder)
    assert len(await _keyword(await get_store(), "lemma")) == 20
    await services.aclose()


KILLED_WRITER = textwrap.dedent(
    """
    import asyncio, sys
    import numpy as np
    from video_research.knowledge.backends import keyword_index
    from video_research.knowledge.filters import Filter
    from video_research.knowledge.store import generate_uuid5, get_store
    keyword_index.SHARD_MIN = int(sys.argv[2])

    async def main():
        store = await get_store()
        rng = np.random.default_rng(int(sys.argv[1]))
        batch = 0
        while True:
            objects = [
                {"video_id": f"b{batch}-{i}", "title": f"word{i % 7} batch{batch}", "view_count": i % 10}
                for i in range(40)
            ]
            uuids = [generate_uuid5(o["video_id"]) for o in objects]
            v = rng.normal(size=(40, 384)).astype("float32")
            await store.insert_many("VideoMetadata", objects, uuids=uuids, vectors=v)
            changed = [{**o, "title": "renamed " + o["title"]} for o in objects[:5]]
            await store.insert_many(
                "VideoMetadata", changed, uuids=uuids[:5], vectors=v[:5], upsert=True
            )
            await store.delete_where("VideoMetadata", Filter.eq("video_id", f"b{batch}-30"))
            await store.hybrid("VideoMetadata", "word1", alpha=0.0, vector=v[0], limit=3)
            batch += 1
            print(batch, flush=True)

    asyncio.run(main())
    """
)


@pytest.mark.slow
@pytest.mark.parametrize(
    "seed,delay,shard_min",
    # The default threshold (one index), and 1: two shards, so a kill can land between
    # their commits.
    [
        (1, 0.0, keyword_index.SHARD_MIN),
        (2, 0.05, keyword_index.SHARD_MIN),
        (3, 0.0, 1),
        (4, 0.03, 1),
    ],
)
async def test_sigkill_mid_write_then_reopen_matches_sqlite(
    tmp_path, server_env, services, monkeypatch, seed, delay, shard_min
):
    monkeypatch.setattr(keyword_index, "SHARD_MIN", shard_min)
    kill_after_commits(
        KILLED_WRITER, [str(seed), str(shard_min)], server_env, commits=3 + seed, delay=delay
    )
    from video_research.knowledge.store import get_store

    db = Path(server_env["VIDEO_RESEARCH_DATA_DIR"]) / "knowledge.db"
    conn = sqlite3.connect(db)
    rows = [json.loads(p) for (p,) in conn.execute(f'SELECT properties FROM "obj_{COLLECTION}"')]
    conn.close()
    store = await get_store()
    for word in ("word1", "renamed", "word3"):
        truth = {r["video_id"] for r in rows if word in r["title"].split()}
        found = await _keyword(store, word, limit=500)
        assert store._keyword_indexes[COLLECTION].applied >= 0
        assert store._keyword_indexes[COLLECTION].shards == (2 if shard_min == 1 else 1)
        assert set(found) == truth, word
    await services.aclose()


async def test_scores_are_comparable_across_queries_and_min_score_uses_them(services):
    """The fused score is rescaled per query (its top hit is 1.0 whatever it is); the
    normalised keyword score and the relevance are not, so min_score can drop junk."""
    from video_research.knowledge.store import get_store

    store = await get_store()
    vectors = _vectors(3)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    objects = [
        {"video_id": "v0", "title": "tidal barrage electricity France"},
        {"video_id": "v1", "title": "sourdough bread crust"},
        {"video_id": "v2", "title": "borrow checker rust"},
    ]
    await store.insert_many(COLLECTION, objects, vectors=vectors)
    good = await store.hybrid(
        COLLECTION, "tidal barrage electricity France", alpha=0.5, vector=vectors[0]
    )
    junk = await store.hybrid(COLLECTION, "tidal zebra quantum", alpha=0.5, vector=-vectors[0])
    assert good[0].score == 1.0  # the fused score says nothing absolute
    assert good[0].keyword_score > 0.8 and 0 < max(h.keyword_score or 0.0 for h in junk) < 0.4
    # calibrated relevance (knowledge.relevance): the exact match passes, the junk is weak
    assert good[0].relevance >= 0.5 > max(h.relevance for h in junk)
    kept = await store.hybrid(
        COLLECTION, "tidal zebra quantum", alpha=0.5, vector=-vectors[0], min_score=0.5
    )
    assert kept == []
    kept = await store.hybrid(
        COLLECTION, "tidal barrage electricity France", alpha=0.5, vector=vectors[0], min_score=0.5
    )
    assert [h.properties["video_id"] for h in kept] == ["v0"]
    await services.aclose()


async def test_top_hits_are_ranked_by_exact_document_lengths(services):
    """Tantivy keeps a document's length in one byte (exact only up to 40 tokens), so
    documents of 42 and 43 tokens score alike there; the rescoring of the best hits
    ranks them as exhaustive BM25 does: the shorter first, whatever the insertion order."""
    from video_research.knowledge.store import get_store

    store = await get_store()
    lengths = list(range(41, 101))
    order = np.random.default_rng(5).permutation(len(lengths))
    objects = [
        {"video_id": f"n{lengths[i]}", "title": "lemma " + " ".join(["word"] * lengths[i])}
        for i in order
    ]
    await store.insert_many(COLLECTION, objects, vectors=_vectors(len(objects)))
    found = await _keyword(store, "lemma", limit=10)
    assert found == [f"n{n}" for n in lengths[:10]]

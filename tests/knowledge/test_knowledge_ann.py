"""The embedded store's vector index (knowledge.ann): recall, freshness, crashes, damage.

Small sizes with KNOWLEDGE_ANN_MIN_OBJECTS lowered, so the faiss graph (not only the
exact flat part) serves these searches; every answer is checked against exact search
over the vectors SQLite holds, the source of truth.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import kill_after_commits
from video_research.knowledge.filters import Filter

DIMS = 384
COLLECTION = "VideoMetadata"


def _corpus(n: int, seed: int = 3) -> tuple[list[dict], np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((20, DIMS)).astype(np.float32)
    vectors = centres[rng.integers(0, 20, n)] + 0.5 * rng.standard_normal((n, DIMS)).astype(
        np.float32
    )
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    objects = [
        {
            "video_id": f"v{i:06d}",
            "title": f"video {i}",
            "view_count": i % 10,
            "like_count": i % 100,
        }
        for i in range(n)
    ]
    return objects, vectors


@pytest.fixture
def ann_env(configure):
    configure(KNOWLEDGE_ANN_MIN_OBJECTS="300")


def _truth(db: Path) -> tuple[list[str], np.ndarray, list[dict]]:
    """(video ids, vectors, properties) straight from SQLite."""
    conn = sqlite3.connect(db)
    try:
        (table,) = conn.execute(
            "SELECT vec_table FROM collections WHERE name = ?", (COLLECTION,)
        ).fetchone()
        rows = conn.execute(
            f'SELECT o.properties, v.embedding FROM "obj_{COLLECTION}" o '
            f'JOIN "{table}" v ON v.id = o.id ORDER BY o.id'
        ).fetchall()
    finally:
        conn.close()
    props = [json.loads(p) for p, _ in rows]
    vectors = np.vstack([np.frombuffer(b, dtype=np.float32) for _, b in rows])
    return [p["video_id"] for p in props], vectors, props


def _exact(ids, vectors, query, k=10, mask=None):
    scores = vectors @ query
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    order = np.argsort(-scores)[:k]
    return [ids[i] for i in order if np.isfinite(scores[i])]


async def _recall(store, db, queries, where=None, mask_of=None) -> float:
    ids, vectors, props = _truth(db)
    mask = None if mask_of is None else np.array([mask_of(p) for p in props])
    found = []
    for query in queries:
        hits = await store.near_vector(COLLECTION, query, where=where, limit=10)
        want = _exact(ids, vectors, query, mask=mask)
        got = [h.properties["video_id"] for h in hits]
        if mask_of is not None:
            assert all(mask_of(h.properties) for h in hits)
        found.append(len(set(want) & set(got)) / max(1, len(want)))
    return float(np.mean(found))


def _settle(store) -> None:
    index = store._indexes[COLLECTION]
    index.settle()
    assert index.hnsw is not None and index.flat_count == 0


async def _graph_of(n: int):
    """A store whose index holds `n` objects of `_corpus` in its graph: (store, index,
    objects, uuids, vectors)."""
    from video_research.knowledge.store import generate_uuid5, get_store

    store = await get_store()
    objects, vectors = _corpus(n)
    uuids = [generate_uuid5(o["video_id"]) for o in objects]
    await store.insert_many(COLLECTION, objects, uuids=uuids, vectors=vectors)
    await store.near_vector(COLLECTION, vectors[0], limit=1)
    _settle(store)
    return store, store._indexes[COLLECTION], objects, uuids, vectors


async def test_recall_unfiltered_and_filtered_against_exact(ann_env, tmp_path):
    from video_research.knowledge.store import get_store

    store = await get_store()
    objects, vectors = _corpus(3000)
    for start in range(0, 3000, 500):
        await store.insert_many(
            COLLECTION, objects[start : start + 500], vectors=vectors[start : start + 500]
        )
    queries = vectors[::150] + 0.05
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    await store.near_vector(COLLECTION, queries[0], limit=1)
    _settle(store)
    db = tmp_path / "data" / "knowledge.db"
    assert await _recall(store, db, queries) >= 0.95
    ten = await _recall(
        store, db, queries, Filter.eq("view_count", 3), lambda p: p["view_count"] == 3
    )
    one = await _recall(
        store, db, queries, Filter.eq("like_count", 7), lambda p: p["like_count"] == 7
    )
    assert ten >= 0.95 and one >= 0.95, (ten, one)
    # Distances are exact cosine distances, not the quantised graph's.
    hits = await store.near_vector(COLLECTION, queries[1], limit=3)
    ids, truth_vectors, _ = _truth(db)
    for hit in hits:
        exact = 1.0 - float(truth_vectors[ids.index(hit.properties["video_id"])] @ queries[1])
        assert abs(hit.distance - exact) < 1e-5
    # Hybrid search fuses the graph's candidates by their codes' distances, then measures
    # the hits it returns exactly; its vector side finds what near_vector finds.
    hybrid = await store.hybrid(COLLECTION, "video", alpha=1.0, vector=queries[1], limit=10)
    for hit in hybrid:
        exact = 1.0 - float(truth_vectors[ids.index(hit.properties["video_id"])] @ queries[1])
        assert abs(hit.distance - exact) < 1e-5
    nearest = await store.near_vector(COLLECTION, queries[1], limit=10)
    shared = {h.properties["video_id"] for h in hybrid} & {
        h.properties["video_id"] for h in nearest
    }
    assert len(shared) >= 9


async def test_deleted_and_replaced_objects_never_come_back(ann_env, tmp_path):
    from video_research.knowledge.store import generate_uuid5, get_store

    store = await get_store()
    objects, vectors = _corpus(1000)
    uuids = [generate_uuid5(o["video_id"]) for o in objects]
    await store.insert_many(COLLECTION, objects, uuids=uuids, vectors=vectors)
    await store.near_vector(COLLECTION, vectors[0], limit=1)
    _settle(store)
    # Delete the 50 nearest of a query, move 50 others far away, then search again.
    query = vectors[10]
    near = await store.near_vector(COLLECTION, query, limit=100)
    gone = {h.uuid for h in near[:50]}
    for uuid in gone:
        await store.delete(COLLECTION, uuid)
    moved = [h.uuid for h in near[50:100]]
    far = -np.tile(query, (50, 1))
    props = [h.properties for h in near[50:100]]
    await store.insert_many(COLLECTION, props, uuids=moved, vectors=far, upsert=True)
    hits = await store.near_vector(COLLECTION, query, limit=100)
    assert not gone & {h.uuid for h in hits}
    assert not set(moved) & {h.uuid for h in hits[:50]}
    db = tmp_path / "data" / "knowledge.db"
    assert await _recall(store, db, [query, vectors[500], vectors[900]]) >= 0.95


async def test_a_repeated_small_filter_reuses_its_decoded_vectors_until_a_write(ann_env, tmp_path):
    """A 1% filter is scored from decoded codes, kept for the next search with that
    filter; a write in between must never serve the old set."""
    store, index, objects, uuids, vectors = await _graph_of(3000)
    where = Filter.eq("like_count", 7)  # 30 of 3,000 objects: the exact path
    query = vectors[1234]
    first = await store.near_vector(COLLECTION, query, where=where, limit=5)
    assert len(index._filter_cache) == 1
    again = await store.near_vector(COLLECTION, query, where=where, limit=5)
    assert [h.uuid for h in again] == [h.uuid for h in first]
    # Delete the best hit and move another matching object onto the query.
    await store.delete(COLLECTION, first[0].uuid)
    moved = next(
        u
        for u, o in zip(uuids, objects, strict=True)
        if o["like_count"] == 7 and u not in {h.uuid for h in first}
    )
    props = objects[uuids.index(moved)]
    await store.insert_many(COLLECTION, [props], uuids=[moved], vectors=query[None, :], upsert=True)
    index.settle()
    after = await store.near_vector(COLLECTION, query, where=where, limit=5)
    assert after[0].uuid == moved and after[0].distance < 1e-5
    assert first[0].uuid not in {h.uuid for h in after}
    db = tmp_path / "data" / "knowledge.db"
    assert await _recall(store, db, [query], where, lambda p: p["like_count"] == 7) == 1.0


async def test_a_filter_that_allows_no_more_than_the_limit_measures_each_row_exactly(
    ann_env, tmp_path
):
    """A filter allowing at most the rows the limit measures (linking's windows: a few
    of a few videos, limit 1,000) returns every one it allows, in exact order with exact
    distances, a deleted one never, and keeps no decoded vectors for a filter one
    search uses."""
    store, index, objects, uuids, vectors = await _graph_of(3000)
    where = Filter.eq("like_count", 7)  # 30 of 3,000 objects
    query = vectors[1207]
    await store.delete(COLLECTION, uuids[7])
    index.settle()
    hits = await store.near_vector(COLLECTION, query, where=where, limit=1000)
    assert not index._filter_cache
    ids, truth_vectors, props = _truth(tmp_path / "data" / "knowledge.db")
    mask = np.array([p["like_count"] == 7 for p in props])
    want = _exact(ids, truth_vectors, query, k=1000, mask=mask)
    assert [h.properties["video_id"] for h in hits] == want and len(want) == 29
    for hit in hits:
        exact = 1.0 - float(truth_vectors[ids.index(hit.properties["video_id"])] @ query)
        assert hit.distance == pytest.approx(exact, abs=1e-6)
    # Past the limit, the codes choose which rows are measured, as before.
    top = await store.near_vector(COLLECTION, query, where=where, limit=5)
    assert [h.properties["video_id"] for h in top] == want[:5]
    assert len(index._filter_cache) == 1


async def test_a_second_process_sees_writes_through_the_log(ann_env, tmp_path):
    """Two store objects on one file stand for two server processes."""
    from video_research.knowledge.backends.sqlite_store import SqliteStore
    from video_research.knowledge.embedders.embeddings import get_embedder
    from video_research.support.services import current_settings

    settings = current_settings()
    one, two = (SqliteStore(settings, get_embedder(settings)) for _ in range(2))
    objects, vectors = _corpus(800)
    await one.insert_many(COLLECTION, objects[:400], vectors=vectors[:400])
    assert len(await two.near_vector(COLLECTION, vectors[0], limit=5)) == 5  # loads two's index
    await one.insert_many(COLLECTION, objects[400:], vectors=vectors[400:])
    hits = await two.near_vector(COLLECTION, vectors[700], limit=1)
    assert hits[0].properties["video_id"] == "v000700"
    await one.delete_where(COLLECTION, Filter.eq("video_id", "v000700"))
    hits = await two.near_vector(COLLECTION, vectors[700], limit=1)
    assert hits[0].properties["video_id"] != "v000700"
    await one.close()
    await two.close()


async def test_damaged_or_missing_index_files_are_rebuilt_with_a_log_line(
    ann_env, tmp_path, caplog, services
):
    from video_research.knowledge.store import get_store

    store = await get_store()
    objects, vectors = _corpus(1200)
    await store.insert_many(COLLECTION, objects, vectors=vectors)
    await store.near_vector(COLLECTION, vectors[0], limit=1)
    _settle(store)
    await services.aclose()  # saves the graph
    folder = tmp_path / "data" / "knowledge.db.ann"
    graphs = list(folder.glob(f"{COLLECTION}.*.faiss"))
    assert len(graphs) == 1
    graphs[0].write_bytes(b"\0garbage" * 100)
    caplog.set_level(logging.INFO, logger="video_research.knowledge.backends.ann")
    store = await get_store()
    hits = await store.near_vector(COLLECTION, vectors[5], limit=1)
    assert hits[0].properties["video_id"] == "v000005"
    assert "unreadable" in caplog.text and graphs[0].name in caplog.text  # names the file
    await services.aclose()
    for path in folder.iterdir():
        path.unlink()
    caplog.clear()
    store = await get_store()
    hits = await store.near_vector(COLLECTION, vectors[6], limit=1)
    assert hits[0].properties["video_id"] == "v000006"
    assert "loaded 1200 vectors from SQLite" in caplog.text
    await services.aclose()


async def test_an_index_that_cannot_be_saved_stays_in_memory(ann_env, tmp_path, caplog, services):
    from video_research.knowledge.store import get_store

    (tmp_path / "data").mkdir(parents=True, exist_ok=True)
    (tmp_path / "data" / "knowledge.db.ann").write_text("a file where the folder would go")
    store = await get_store()
    objects, vectors = _corpus(600)
    await store.insert_many(COLLECTION, objects, vectors=vectors)
    await store.near_vector(COLLECTION, vectors[0], limit=1)
    _settle(store)
    caplog.set_level(logging.WARNING, logger="video_research.knowledge.backends.ann")
    await services.aclose()
    assert "cannot save the vector index" in caplog.text
    store = await get_store()
    assert (await store.near_vector(COLLECTION, vectors[9], limit=1))[0].properties[
        "video_id"
    ] == "v000009"
    await services.aclose()


async def test_a_full_disk_is_a_config_error_and_loses_nothing(tmp_path, services):
    from video_research.knowledge.store import get_store
    from video_research.support.errors import ToolFailure

    store = await get_store()
    objects, vectors = _corpus(200)
    await store.insert_many(COLLECTION, objects[:100], vectors=vectors[:100])
    (pages,) = store._conn().execute("PRAGMA page_count").fetchone()
    store.apply_pragma(f"PRAGMA max_page_count = {pages + 2}")
    with pytest.raises(ToolFailure) as failure:
        await store.insert_many(COLLECTION, objects[100:], vectors=vectors[100:])
    assert failure.value.category.value == "config_error"
    assert "disk" in failure.value.message
    assert await store.count(COLLECTION) == 100
    await services.aclose()


KILLED_WRITER = textwrap.dedent(
    """
    import asyncio, sys
    import numpy as np
    from video_research.knowledge.backends import ann_build
    from video_research.knowledge.filters import Filter
    from video_research.knowledge.store import generate_uuid5, get_store

    ann_build.SAVE_AFTER_CHANGES = 0.0  # save after every merge: kills land inside saves too
    ann_build.MERGE_SLICE = 256

    async def main():
        store = await get_store()
        rng = np.random.default_rng(int(sys.argv[1]))
        batch = 0
        while True:
            objects = [
                {"video_id": f"b{batch}-{i}", "title": "t", "view_count": i % 10}
                for i in range(150)
            ]
            uuids = [generate_uuid5(o["video_id"]) for o in objects]
            v = rng.normal(size=(150, 384)).astype("float32")
            await store.insert_many("VideoMetadata", objects, uuids=uuids, vectors=v)
            # Replace some objects' vectors and delete others, as re-indexing does.
            await store.insert_many(
                "VideoMetadata", objects[:20], uuids=uuids[:20], vectors=-v[:20], upsert=True
            )
            await store.delete_where("VideoMetadata", Filter.eq("video_id", f"b{batch}-30"))
            await store.near_vector("VideoMetadata", v[0], limit=3)  # the index is live
            batch += 1
            print(batch, flush=True)

    asyncio.run(main())
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("seed,delay", [(1, 0.0), (2, 0.13), (3, 0.37)])
async def test_sigkill_mid_batch_then_reopen_matches_exact_search(
    ann_env, tmp_path, server_env, services, seed, delay
):
    env = {**server_env, "KNOWLEDGE_ANN_MIN_OBJECTS": "300"}
    kill_after_commits(KILLED_WRITER, [str(seed)], env, commits=5 + seed, delay=delay)
    from video_research.knowledge.store import get_store

    db = Path(server_env["VIDEO_RESEARCH_DATA_DIR"]) / "knowledge.db"
    ids, vectors, _ = _truth(db)
    store = await get_store()
    rng = np.random.default_rng(seed + 100)
    queries = vectors[rng.integers(0, len(vectors), 8)]
    recall = []
    for query in queries:
        hits = await store.near_vector(COLLECTION, query, limit=10)
        got = [h.properties["video_id"] for h in hits]
        assert set(got) <= set(ids), "a search returned an object SQLite does not hold"
        recall.append(len(set(got) & set(_exact(ids, vectors, query))) / 10)
    assert np.mean(recall) >= 0.95, recall
    assert store._indexes[COLLECTION].count == len(ids)
    await services.aclose()


async def test_a_schema_1_file_is_migrated_out_of_vec0(tmp_path, services):
    """Files written before the index kept vectors in sqlite-vec tables; they still open."""
    from video_research.knowledge.backends import sqlite_ext
    from video_research.knowledge.store import get_store

    db = tmp_path / "data" / "knowledge.db"
    db.parent.mkdir(parents=True)
    conn, _ = sqlite_ext.connect(str(db))
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((3, DIMS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    conn.executescript(
        """
        CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO store_meta VALUES ('schema_version', '1');
        CREATE TABLE collections (name TEXT PRIMARY KEY, definition TEXT NOT NULL,
            embedding_model TEXT NOT NULL, dimensions INTEGER NOT NULL,
            vec_table TEXT NOT NULL, keyword_fields TEXT NOT NULL);
        CREATE TABLE "obj_WebSearchResults" (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE,
            properties TEXT NOT NULL);
        CREATE VIRTUAL TABLE "fts_WebSearchResults" USING fts5(body,
            tokenize = 'unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE "vec_WebSearchResults" USING vec0(
            embedding float[384] distance_metric=cosine);
        """
    )
    conn.execute(
        "INSERT INTO collections VALUES ('WebSearchResults', '{}', 'local:all-MiniLM-L6-v2', "
        "384, 'vec_WebSearchResults', '[\"query\", \"response\"]')"
    )
    for i in range(3):
        conn.execute(
            'INSERT INTO "obj_WebSearchResults" VALUES (?, ?, ?)',
            (i + 1, f"00000000-0000-0000-0000-00000000000{i}", json.dumps({"query": f"q{i}"})),
        )
        conn.execute('INSERT INTO "fts_WebSearchResults" VALUES (?)', (f"q{i}",))
        conn.execute(
            'INSERT INTO "vec_WebSearchResults" (rowid, embedding) VALUES (?, ?)',
            (i + 1, vectors[i].tobytes()),
        )
    conn.commit()
    conn.close()
    store = await get_store()
    hits = await store.near_vector("WebSearchResults", vectors[2], limit=1)
    assert hits[0].properties["query"] == "q2" and hits[0].distance < 1e-5
    await services.aclose()
    check = sqlite3.connect(db)
    assert check.execute("SELECT value FROM store_meta WHERE key='schema_version'").fetchone() == (
        "2",
    )
    check.close()


async def test_a_graph_loaded_from_sqlite_is_built_and_saved_without_a_write(
    ann_env, tmp_path, services
):
    """A store opened without its graph file (first start, a damaged or deleted file) gets
    its graph from the first search on, not at the next write; it is saved at close."""
    import time

    from video_research.knowledge.store import get_store

    store = await get_store()
    objects, vectors = _corpus(600)
    await store.insert_many(COLLECTION, objects, vectors=vectors)
    await services.aclose()  # no search yet: nothing loaded, no graph file
    folder = tmp_path / "data" / "knowledge.db.ann"
    assert not list(folder.glob(f"{COLLECTION}.*.faiss"))

    store = await get_store()
    hits = await store.near_vector(COLLECTION, vectors[7], limit=1)  # loads; no write after
    assert hits[0].properties["video_id"] == "v000007"
    index = store._indexes[COLLECTION]
    deadline = time.monotonic() + 60
    while (index.hnsw is None or index.flat_count) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert index.hnsw is not None and index.flat_count == 0
    await services.aclose()
    assert len(list(folder.glob(f"{COLLECTION}.*.faiss"))) == 1

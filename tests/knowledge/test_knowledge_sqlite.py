"""The embedded store's SQLite specifics: getting sqlite-vec loaded, and crash safety."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import kill_after_commits
from video_research.knowledge.backends import sqlite_ext

EXT_MODULE = Path(sqlite_ext.__file__)


def test_this_python_uses_auto_extension(tmp_path):
    """pyenv's build lacks enable_load_extension: vec0 must come through sqlite3_auto_extension."""
    conn, route = sqlite_ext.connect(str(tmp_path / "a.db"))
    try:
        assert conn.execute("SELECT vec_version()").fetchone()[0].startswith("v")
        expected = "load_extension" if sqlite_ext.can_load_extensions(conn) else "auto_extension"
        assert route == expected
        conn.execute("CREATE VIRTUAL TABLE v USING vec0(embedding float[2])")
    finally:
        conn.close()


def _interpreters() -> list[str]:
    """Pythons on this machine other than ours whose sqlite3 can load extensions."""
    found = []
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if (
            not Path(candidate).exists()
            or Path(candidate).resolve() == Path(sys.executable).resolve()
        ):
            continue
        probe = subprocess.run(
            [candidate, "-c", "import sqlite3; sqlite3.connect(':memory:').enable_load_extension"],
            capture_output=True,
        )
        if probe.returncode == 0:
            found.append(candidate)
    return found


@pytest.mark.parametrize("route", ["load_extension", "auto_extension"])
def test_both_routes_under_a_python_that_can_load_extensions(tmp_path, route):
    """sqlite_ext is standard library only, so a system Python can run it as is."""
    pythons = _interpreters()
    if not pythons:
        pytest.skip("no Python with enable_load_extension on this machine")
    import sqlite_vec

    script = textwrap.dedent(
        f"""
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location("sqlite_ext", {str(EXT_MODULE)!r})
        ext = importlib.util.module_from_spec(spec); spec.loader.exec_module(ext)
        if {route!r} == "auto_extension":
            ext.register_auto_extension({sqlite_vec.loadable_path()!r})
        conn, route = ext.connect(":memory:", {sqlite_vec.loadable_path()!r})
        print(route, conn.execute("SELECT vec_distance_cosine('[1,0]', '[0,1]')").fetchone()[0])
        """
    )
    out = subprocess.run([pythons[0], "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [route, "1.0"]


WRITER = textwrap.dedent(
    """
    import asyncio, os, sys
    import numpy as np
    from video_research.knowledge.store import get_store

    async def main():
        store = await get_store()
        rng = np.random.default_rng(0)
        batch = 0
        while True:
            objects = [{"title": f"b{batch} o{i}", "summary": "x " * 200} for i in range(200)]
            await store.insert_many("VideoAnalyses", objects, vectors=rng.normal(size=(200, 384)))
            batch += 1
            print(batch, flush=True)

    asyncio.run(main())
    """
)


def test_killed_writer_leaves_no_half_objects(tmp_path, server_env):
    """SIGKILL a process in the middle of batch writes; every object keeps text and vector."""
    # let a few batches commit, then kill it wherever it is
    kill_after_commits(WRITER, [], server_env, commits=3, delay=0.05)
    db = Path(server_env["VIDEO_RESEARCH_DATA_DIR"]) / "knowledge.db"
    conn, _ = sqlite_ext.connect(str(db))
    try:
        (vec_table,) = conn.execute(
            "SELECT vec_table FROM collections WHERE name = 'VideoAnalyses'"
        ).fetchone()
        objects = conn.execute('SELECT count(*) FROM "obj_VideoAnalyses"').fetchone()[0]
        texts = conn.execute('SELECT count(*) FROM "fts_VideoAnalyses"').fetchone()[0]
        vectors = conn.execute(f'SELECT count(*) FROM "{vec_table}"').fetchone()[0]
        orphans = conn.execute(
            f'SELECT count(*) FROM "obj_VideoAnalyses" WHERE id NOT IN (SELECT rowid FROM "{vec_table}")'
        ).fetchone()[0]
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    assert objects >= 600 and objects % 200 == 0
    assert objects == texts == vectors and orphans == 0


async def test_model_change_is_refused_until_reembedded(gemini_stub, configure):
    """Vectors of two models never mix: writes refuse with a hint, keyword search still works."""
    from video_research.knowledge.store import get_store
    from video_research.support.errors import ToolFailure

    local = await get_store()
    uuid = await local.insert("VideoAnalyses", {"title": "Bread", "summary": "sourdough loaf"})
    configure(
        KNOWLEDGE_EMBEDDING_MODEL=None,
        KNOWLEDGE_EMBEDDING_PROVIDER="gemini",
        KNOWLEDGE_EMBEDDING_DIMENSIONS="768",
    )
    store = await get_store()
    with pytest.raises(ToolFailure) as refused:
        await store.insert("VideoAnalyses", {"title": "Cake"})
    assert refused.value.category == "config_error"
    assert "knowledge_reembed" in refused.value.hint and "384" in refused.value.message
    assert [h.uuid for h in await store.hybrid("VideoAnalyses", "sourdough", alpha=0.0)] == [uuid]
    with pytest.raises(ToolFailure):
        await store.hybrid("VideoAnalyses", "sourdough", alpha=0.5)

    assert await store.reembed("VideoAnalyses") == 1
    info = await store.info("VideoAnalyses")
    assert (info.embedding_model, info.dimensions, info.compatible) == (
        "gemini:gemini-embedding-001",
        768,
        True,
    )
    sent = gemini_stub.calls("batchEmbedContents")[-1].body["requests"][0]
    assert sent["outputDimensionality"] == 768 and sent["taskType"] == "RETRIEVAL_DOCUMENT"
    hits = await store.hybrid("VideoAnalyses", "sourdough", alpha=1.0)
    assert [h.uuid for h in hits] == [uuid] and len(
        (await store.get("VideoAnalyses", uuid, include_vector=True)).vector
    ) == 768


async def test_changed_searchable_fields_rebuild_the_keyword_index(monkeypatch, services):
    """A definition whose searchable fields changed reindexes the stored objects on next open."""
    from video_research.knowledge import collections
    from video_research.knowledge.collections import CollectionDef, DataType, Property
    from video_research.knowledge.store import get_store

    def probe(body_searchable: bool) -> CollectionDef:
        return CollectionDef(
            "KeywordProbe",
            "A collection whose searchable fields change between releases",
            (
                Property("title", DataType.TEXT, vectorize=True),
                Property("body", DataType.TEXT, searchable=body_searchable),
            ),
        )

    monkeypatch.setitem(collections._REGISTRY, "KeywordProbe", probe(False))
    store = await get_store()
    uuid = await store.insert("KeywordProbe", {"title": "Bread", "body": "sourdough starter"})
    assert await store.hybrid("KeywordProbe", "sourdough", alpha=0.0) == []
    await services.aclose()

    monkeypatch.setitem(collections._REGISTRY, "KeywordProbe", probe(True))
    store = await get_store()
    assert [h.uuid for h in await store.hybrid("KeywordProbe", "sourdough", alpha=0.0)] == [uuid]
    assert [h.uuid for h in await store.hybrid("KeywordProbe", "bread", alpha=0.0)] == [uuid]
    await services.aclose()


async def test_properties_indexed_together_serve_a_filter_that_names_both(monkeypatch, services):
    """A compound index (CollectionDef.indexes) finds the rows of one video in a time span
    from the index alone, each branch of an OR too (linking's window read), instead of
    reading every row of the video; a compound of unfilterable properties is refused."""
    from video_research.knowledge import collections
    from video_research.knowledge.backends.sqlite_sql import compile_filter
    from video_research.knowledge.collections import CollectionDef, DataType, Property
    from video_research.knowledge.filters import Filter
    from video_research.knowledge.store import get_store

    def probe(indexes) -> CollectionDef:
        return CollectionDef(
            "SpanProbe",
            "Timed rows of videos",
            (
                Property("text", DataType.TEXT, vectorize=True),
                Property("video_id", DataType.TEXT, filterable=True, exact=True),
                Property("start_time", DataType.NUMBER, filterable=True),
            ),
            indexes=indexes,
        )

    with pytest.raises(ValueError, match="non-filterable"):
        probe((("video_id", "text"),))
    monkeypatch.setitem(collections._REGISTRY, "SpanProbe", probe((("video_id", "start_time"),)))
    store = await get_store()
    rows = [
        {"text": f"line {n}", "video_id": f"v{n % 3}", "start_time": n * 10.0} for n in range(30)
    ]
    await store.insert_many("SpanProbe", rows, vectors=[[1.0] + [0.0] * 383] * len(rows))
    where = Filter.any_of(
        Filter.all_of(Filter.eq("video_id", "v1"), Filter.between("start_time", 30.0, 80.0)),
        Filter.all_of(Filter.eq("video_id", "v2"), Filter.between("start_time", 0.0, 50.0)),
    )
    within = Filter.within("video_id", "start_time", [("v1", 30.0, 80.0), ("v2", 0.0, 50.0)])

    def plan(where) -> str:
        sql, params = compile_filter(where, "obj_SpanProbe")
        return " ".join(
            str(row[-1])
            for row in store._conn().execute(
                f'EXPLAIN QUERY PLAN SELECT id FROM "obj_SpanProbe" o WHERE {sql}', params
            )
        )

    assert plan(where).count("USING INDEX ix_SpanProbe_video_id_start_time") == 2, plan(where)
    # a within filter is one statement for any number of spans, each served by the index
    assert plan(within).count("USING INDEX ix_SpanProbe_video_id_start_time") == 1, plan(within)
    assert "SCAN o" not in plan(within), plan(within)
    for each in (where, within):
        found = await store.fetch("SpanProbe", where=each, limit=100)
        assert sorted(o.properties["start_time"] for o in found.objects) == [20, 40, 50, 70]
    await services.aclose()


def test_store_file_layout_is_documented(tmp_path, services):
    """The tables the module docstring promises exist, so a user can inspect the file."""
    import asyncio

    from video_research.knowledge.store import get_store

    async def write():
        store = await get_store()
        await store.insert(
            "WebSearchResults", {"query": "q", "response": "r"}, vector=[1.0] + [0.0] * 383
        )
        await services.aclose()

    asyncio.run(write())
    db = sqlite3.connect(tmp_path / "data" / "knowledge.db")
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {
        "collections",
        "obj_WebSearchResults",
        "fts_WebSearchResults",
        "vectors_WebSearchResults",
        "vector_log",
    } <= tables
    definition = json.loads(
        db.execute("SELECT definition FROM collections WHERE name='WebSearchResults'").fetchone()[0]
    )
    assert [p["name"] for p in definition["properties"]][:2] == ["created_at", "source_tool"]


def test_rows_in_asks_a_long_list_a_slice_at_a_time():
    """SQLite caps one statement's parameters: every id of a list far past one slice is
    still found, and each only once."""
    from video_research.knowledge.backends import sqlite_sql

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(i, f"n{i}") for i in range(3000)])
    # Builds differ (999 to 32,766): cap it here so one unsliced statement would fail.
    conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, sqlite_sql._CHUNK + 100)
    wanted = list(range(0, 3000, 2)) + [5000]  # 1,500 present, one missing
    rows = list(sqlite_sql.rows_in(conn, "SELECT id, name FROM t WHERE id IN", wanted))
    assert sorted(rows) == [(i, f"n{i}") for i in range(0, 3000, 2)]
    assert list(sqlite_sql.rows_in(conn, "SELECT id FROM t WHERE id IN", [])) == []

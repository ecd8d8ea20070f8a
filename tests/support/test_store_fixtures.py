"""Databases written by an earlier release open with this one and hold the same objects.

tests/fixtures/stores/*.sqlite were written by the release that introduced schema
versions (tests/fixtures/stores/regenerate.py). A schema change that forgets its
migration step, or a step that loses rows, fails here. Each store also refuses a file
stamped newer than it understands, without changing a byte of it.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.calls import call_ok
from tests.fixtures.stores.regenerate import KNOWLEDGE_IDS
from video_research.support.errors import ToolFailure

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "stores"
FILES = {
    "catalog": "catalog.db",
    "knowledge": "knowledge.db",
    "sessions": "sessions.db",
    "deep_research": "deep_research.db",
    "gemini": "gemini.db",
}


@pytest.fixture
def data_dir(tmp_path) -> Path:
    """The fixture databases copied into this test's data dir under their usual names."""
    data = tmp_path / "data"
    data.mkdir()
    for store, name in FILES.items():
        shutil.copyfile(FIXTURES / f"{store}.sqlite", data / name)
    return data


def _version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()


def _understood() -> dict[str, int]:
    from video_research.catalog.db import CATALOG_SCHEMA
    from video_research.clients.gemini.registry import REGISTRY_SCHEMA
    from video_research.deepresearch.tasks import TASKS_SCHEMA
    from video_research.knowledge.backends.sqlite_store import KNOWLEDGE_SCHEMA_VERSION
    from video_research.video.session_store import SESSIONS_SCHEMA

    return {
        "catalog": CATALOG_SCHEMA.version,
        "knowledge": KNOWLEDGE_SCHEMA_VERSION,
        "sessions": SESSIONS_SCHEMA.version,
        "deep_research": TASKS_SCHEMA.version,
        "gemini": REGISTRY_SCHEMA.version,
    }


def test_every_fixture_is_versioned_and_no_newer_than_this_release():
    understood = _understood()
    for store in FILES:
        assert 1 <= _version(FIXTURES / f"{store}.sqlite") <= understood[store], store


async def test_the_catalog_playlists_and_queue_come_back(data_dir):
    video = await call_ok("catalog_get_video", {"video_id": "halloween"})
    assert video["title"] == "Halloween"
    found = await call_ok("catalog_search", {"q": "Friday"})
    assert {v["video_id"] for v in found["items"]} == {"f13-1", "f13-2"}
    playlists = (await call_ok("playlist_list", {}))["playlists"]
    assert [(p["name"], p["item_count"]) for p in playlists] == [("Fixture night", 2)]
    queue = await call_ok("queue_status", {})
    queued = [i["video_id"] for i in queue["items"]] + [
        (queue["current_video"] or {}).get("video_id")
    ]
    assert "airplane" in queued
    assert _version(data_dir / "catalog.db") == _understood()["catalog"]


async def test_the_knowledge_objects_come_back(data_dir):
    from video_research.knowledge.store import generate_uuid5, get_store

    store = await get_store()
    assert await store.count("VideoMetadata") == len(KNOWLEDGE_IDS)
    stored = await store.get("VideoMetadata", generate_uuid5(KNOWLEDGE_IDS[3]))
    assert stored is not None and stored.properties["title"] == "Fixture video 3"
    assert _version(data_dir / "knowledge.db") == _understood()["knowledge"]


async def test_sessions_tasks_and_the_gemini_registry_come_back(data_dir):
    from video_research.clients.gemini.registry import Registry
    from video_research.deepresearch.tasks import TaskStore
    from video_research.video.session_store import SessionStore

    # The fixture session was last active when the file was written: a long timeout
    # keeps it from being evicted as idle.
    sessions = SessionStore(
        str(data_dir / "sessions.db"), timeout_hours=10**7, max_sessions=10, max_turns=10
    )
    session = await sessions.get("fixturesess1")
    sessions.close()
    assert session is not None and session.video_title == "Fixture session"
    assert session.history == [{"role": "user", "parts": [{"text": "hello"}]}]
    tasks = TaskStore(str(data_dir / "deep_research.db"))
    task = await tasks.get("fixturetask1")
    tasks.close()
    assert task is not None and (task.status, task.report) == ("completed", "done")
    registry = Registry(data_dir / "gemini.db")
    cache = registry.cache("cachedContents/fx")
    upload = registry.upload("acct", "ab" * 32, "video/mp4")
    registry.close()
    assert cache is not None and cache.session_id == "fixturesess1"
    assert upload is not None and upload.size == 1234


async def _open_store(store: str, data: Path) -> None:
    """Open one store the way the server does (raises what the server would)."""
    if store == "catalog":
        from video_research.catalog.db import CatalogDB

        CatalogDB(str(data / "catalog.db"))._connection()
    elif store == "knowledge":
        from video_research.knowledge.store import get_store

        await (await get_store()).count("VideoMetadata")
    elif store == "sessions":
        from video_research.video.session_store import SessionStore

        SessionStore(str(data / "sessions.db"), timeout_hours=1, max_sessions=1, max_turns=1)
    elif store == "deep_research":
        from video_research.deepresearch.tasks import TaskStore

        TaskStore(str(data / "deep_research.db"))
    else:
        from video_research.clients.gemini.registry import Registry

        Registry(data / "gemini.db")


@pytest.mark.parametrize("store", list(FILES))
async def test_a_file_from_a_newer_release_is_refused_untouched(data_dir, store):
    path = data_dir / FILES[store]
    newer = _understood()[store] + 1
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {newer}")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(ToolFailure) as refused:
        await _open_store(store, data_dir)
    message = refused.value.message
    assert str(path) in message, message
    assert f"version {newer}" in message and f"version {newer - 1}" in message
    assert path.read_bytes() == before
    assert not Path(str(path) + "-wal").exists() or Path(str(path) + "-wal").stat().st_size == 0


async def test_an_unversioned_catalog_from_before_versions_is_stamped_and_completed(tmp_path):
    """A catalog written before audit_log.claimed_username and before user_version."""
    from video_research.catalog.db import CATALOG_SCHEMA, CatalogDB

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE audit_log (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp TEXT NOT NULL,"
        " tool TEXT NOT NULL, username TEXT NOT NULL, role TEXT NOT NULL, session TEXT,"
        " verified INTEGER NOT NULL, ok INTEGER NOT NULL, category TEXT, input TEXT NOT NULL,"
        " result TEXT NOT NULL);"
        "INSERT INTO audit_log (timestamp, tool, username, role, verified, ok, input, result)"
        " VALUES ('2025-01-01T00:00:00Z', 'catalog_add', 'u', 'admin', 1, 1, '{}', '{}');"
    )
    conn.close()
    db = CatalogDB(str(path))
    columns = {row[1] for row in db._connection().execute("PRAGMA table_info(audit_log)")}
    db.close()
    assert "claimed_username" in columns
    assert _version(path) == CATALOG_SCHEMA.version
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM audit_log").fetchone() == (1,)
    conn.close()

"""Damaged files: a store with pages overwritten, a keyword or ANN index file truncated, a
journal left behind by a killed migration. The server names a damaged store at start and
in `doctor`, keeps serving what it can, and rebuilds derived indexes by itself."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.faults.conftest import (
    ANN_FLOOR,
    Stopwatch,
    assert_whole,
    error_of,
    gist,
    index_talks,
    make_srts,
    ok,
    search_after_restart,
    served,
)
from tests.fixtures.documents import make_notes
from tests.helpers import run_cli

pytestmark = pytest.mark.slow


def _cli(env: dict[str, str], *args: str):
    return run_cli(env, *args, timeout=120)


def _overwrite_leaf(path: Path, table: str) -> int:
    """4 KB of random bytes over a leaf page in the middle of `table`'s B-tree (found with
    SQLite's dbstat), the way a bad sector or a stray write damages a file. Returns the page."""
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (size,) = conn.execute("PRAGMA page_size").fetchone()
        pages = [
            n
            for (n,) in conn.execute(
                "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno",
                (table,),
            )
        ]
    finally:
        conn.close()
    assert len(pages) > 2, f"{table} has too few pages to damage one in the middle"
    page = pages[len(pages) // 2]
    with open(path, "r+b") as handle:
        handle.seek((page - 1) * size)
        handle.write(os.urandom(size))
    return page


async def _wait_for(path: Path, text: str, seconds: float = 20) -> str:
    import anyio

    with anyio.fail_after(seconds):
        while text not in (found := path.read_text(errors="replace")):
            await anyio.sleep(0.1)
    return found


@pytest.mark.slow_fault
async def test_store_pages_overwritten(tmp_path, fault_env, row):
    row.fault = "damaged: 4 KB of random bytes over knowledge.db pages"
    row.tool = "document_ingest (force), doctor"
    notes = make_notes(tmp_path / "notes", 60)
    async with served(fault_env) as session:
        await ok(session, "document_ingest", {"path": str(notes)})
        await ok(session, "catalog_add", {"video_id": "dQw4w9WgXcQ", "title": "Kept"})
    backup = _cli(fault_env, "backup", str(tmp_path / "backup"))
    assert backup.returncode == 0, backup.stderr
    db = Path(fault_env["VIDEO_RESEARCH_DATA_DIR"]) / "knowledge.db"
    _overwrite_leaf(db, "obj_DocumentChunks")

    doctor = _cli(fault_env, "doctor", "--stores-only")
    assert doctor.returncode == 1, doctor.stdout + doctor.stderr
    assert "damaged" in doctor.stdout and str(db) in doctor.stdout, doctor.stdout
    assert "video-research restore" in doctor.stdout

    log = tmp_path / "server.log"
    again = {"path": str(notes), "force": True}
    with open(log, "w") as errlog:
        async with served(fault_env, errlog=errlog) as session:
            started = await _wait_for(log, "is damaged")
            assert str(db) in started
            # (a) rewriting every note: each write that meets the damaged page (every one
            # here: replacing a note's passages scans the table) fails alone, saying what to
            # do; the call answers its report. (b) The other stores serve on.
            answer = await session.call_tool("document_ingest", again)
            if answer.is_error:  # every file failed: the call says so, with their reason
                error = error_of(answer)
                assert "backup" in error["hint"], error
                assert "damaged" in json.dumps(error), error
                row.result = "60/60 files failed alone; " + gist(error)
            else:
                failed = [f for f in answer.structured_content["files"] if f["status"] == "failed"]
                assert failed, answer.structured_content
                for item in failed:
                    error = item["error"]
                    assert "damaged" in error["error"] and "backup" in error["hint"], error
                row.result = f"{len(failed)}/60 files failed alone: " + gist(error)
            found = await ok(session, "catalog_get_video", {"video_id": "dQw4w9WgXcQ"})
            assert found["title"] == "Kept"

    # (d) the documented repair (restore the backup), then the same call succeeds.
    clock = Stopwatch()
    restored = _cli(fault_env, "restore", str(tmp_path / "backup"))
    assert restored.returncode == 0, restored.stderr
    assert _cli(fault_env, "doctor", "--stores-only").returncode == 0
    async with served(fault_env) as session:
        report = await ok(session, "document_ingest", again)
        row.recovery_s = clock.seconds()
        assert not [f for f in report["files"] if f["status"] == "failed"], report
        listed = (await ok(session, "document_list", {"limit": 500}))["documents"]
        await assert_whole(listed)
        row.data_lost = 60 - len(listed)
        assert row.data_lost == 0
    row.notes.append(
        "recovery: `video-research restore BACKUP` (a damaged store is not guessed at)"
    )


# The ANN graph is built past KNOWLEDGE_ANN_MIN_OBJECTS vectors (ANN_FLOOR: six
# transcripts' windows make one) and saved when the server closes.
@pytest.mark.slow_fault
@pytest.mark.parametrize("derived", [".kw", ".ann"])
async def test_derived_index_files_truncated(tmp_path, fault_env, row, derived):
    kind = {".kw": "keyword (Tantivy)", ".ann": "ANN (faiss)"}[derived]
    row.fault = f"damaged: every {kind} index file truncated to half"
    row.tool = "semantic_search_transcripts"
    fault_env.update(ANN_FLOOR)
    query = {"query": "the speaker explains idea number 3021", "k": 5}
    kept, before = await index_talks(fault_env, make_srts(tmp_path / "talks", 6, cues=60), query)
    index_dir = Path(fault_env["VIDEO_RESEARCH_DATA_DIR"], "knowledge.db" + derived)
    files = [p for p in index_dir.rglob("*") if p.is_file() and p.stat().st_size > 0]
    assert files, f"no {kind} index files were written"
    for path in files:
        with open(path, "r+b") as handle:
            handle.truncate(path.stat().st_size // 2)

    # The ANN graph is rebuilt in the background, by itself: waited for before closing.
    rebuilt = "vector index TranscriptWindows: building the graph" if derived == ".ann" else None
    after, text = await search_after_restart(
        fault_env, tmp_path / "server.log", query, kept, row, wait_for=rebuilt
    )
    assert _moments(after) == _moments(before)
    assert row.data_lost == 0
    # The server names what it found damaged (the file, or the keyword index's folder).
    named = [p for p in files if str(p) in text] or ([index_dir] if str(index_dir) in text else [])
    assert "unreadable" in text and named, text[-3000:]
    assert re.search(r"built from SQLite|building the graph", text), text[-3000:]
    if derived == ".ann":  # saved again at close: whole files, the truncated ones gone
        rebuilt = [p for p in index_dir.glob("*.faiss") if p.stat().st_size > 0]
        assert rebuilt and not set(rebuilt) & set(files), (rebuilt, files)
    row.result = (
        f"{len(files)} files truncated: the server named {named[0].name} unreadable, "
        "answered the same, rebuilt the index from SQLite"
    )


def _moments(found: dict) -> list[tuple[str, float]]:
    return [(r["video_id"], r["start_time"]) for r in found["results"]]


KILLED_MIGRATION = textwrap.dedent(
    """
    import os, sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("PRAGMA cache_size = 2")  # changed pages spill into the file itself
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("ALTER TABLE videos ADD COLUMN half_done TEXT")
    conn.execute("UPDATE videos SET title = 'HALF-WRITTEN ' || title, half_done = 'x'")
    conn.execute("PRAGMA user_version = 99")
    os._exit(9)  # killed inside the migration: the rollback journal stays behind
    """
)


async def test_migration_journal_left_behind(tmp_path, fault_env, row):
    row.fault = "damaged: a killed migration's rollback journal left beside catalog.db"
    row.tool = "catalog_search"
    async with served(fault_env) as session:
        for i in range(200):
            await ok(
                session,
                "catalog_add",
                {"video_id": f"vid{i:08d}", "title": f"Talk {i} " + "words " * 30},
            )
    db = Path(fault_env["VIDEO_RESEARCH_DATA_DIR"]) / "catalog.db"
    killed = subprocess.run([sys.executable, "-c", KILLED_MIGRATION, str(db)], timeout=60)
    assert killed.returncode == 9
    journal = Path(str(db) + "-journal")
    assert journal.exists() and journal.stat().st_size > 0, "no hot journal was left"

    # doctor, read-only, can not roll it back: it says so, and does not call it damage.
    doctor = _cli(fault_env, "doctor", "--stores-only")
    assert doctor.returncode == 0 and "interrupted write" in doctor.stdout, doctor.stdout

    clock = Stopwatch()
    async with served(fault_env) as session:
        found = await ok(session, "catalog_search", {"q": "Talk", "limit": 50})
        row.recovery_s = clock.seconds()
        titles = [v["title"] for v in found["items"]]
        assert titles and not any("HALF-WRITTEN" in t for t in titles), titles[:3]
        row.data_lost = 200 - found["total"]
        assert row.data_lost == 0
        await ok(session, "catalog_add", {"video_id": "aft00000001", "title": "After"})
    assert _cli(fault_env, "doctor", "--stores-only").returncode == 0
    assert not journal.exists() or journal.stat().st_size == 0
    row.result = "journal rolled back at open: the store as before the migration, writable"

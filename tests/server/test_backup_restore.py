"""`video-research backup` while a server writes, and `restore` bringing it back."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.calls import call_ok
from tests.helpers import REPO_ROOT, base_env, mcp_client, tool_json
from video_research.server.stores import store_files
from video_research.support import backup
from video_research.support.errors import ToolFailure

pytestmark = pytest.mark.slow


def _video_ids(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {row[0] for row in conn.execute("SELECT video_id FROM videos")}
    finally:
        conn.close()


async def test_a_backup_taken_under_writes_holds_every_earlier_write_and_restores(
    tmp_path, services, configure
):
    settings = services.settings
    dest = tmp_path / "backup"
    committed: list[str] = []
    stop = asyncio.Event()
    async with mcp_client(base_env(tmp_path)) as session:

        async def writer() -> None:
            n = 0
            while not stop.is_set():
                n += 1
                video_id = f"w{n:05d}"
                result = await session.call_tool(
                    "catalog_add",
                    {
                        "video_id": video_id,
                        "title": f"Written {n}",
                        "manifest_url": f"https://media.example/{video_id}.json",
                    },
                )
                assert not result.is_error, tool_json(result)
                committed.append(video_id)
                if n % 10 == 1:
                    result = await session.call_tool(
                        "knowledge_ingest",
                        {
                            "collection": "VideoMetadata",
                            "properties": {"video_id": video_id, "title": f"Written {n}"},
                        },
                    )
                    assert not result.is_error, tool_json(result)

        task = asyncio.create_task(writer())

        async def until(count: int) -> None:
            while len(committed) < count:
                if task.done():
                    task.result()  # the writer's failure, not a hang
                await asyncio.sleep(0.05)

        await asyncio.wait_for(until(15), 120)
        before = set(committed)
        manifest = await asyncio.to_thread(backup.backup, store_files(settings), dest)
        at_end = len(committed)
        await asyncio.wait_for(until(at_end + 5), 120)  # writes went on past the copy
        stop.set()
        await task
        # The server holds the data dir: restoring under it is refused without --force.
        with pytest.raises(ToolFailure) as refused:
            backup.restore(dest, store_files(settings), settings.data_dir)
        assert "serving from" in refused.value.message
    copied = _video_ids(dest / "catalog.sqlite")
    assert before <= copied
    assert len(copied) == manifest["stores"]["catalog"]["tables"]["videos"]
    assert set(committed) - copied, "the writes after the backup must not be in it"
    for name, entry in manifest["stores"].items():
        assert entry["integrity"] == "ok", name
        conn = sqlite3.connect(dest / entry["file"])
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        conn.close()
    assert manifest["stores"]["knowledge"]["tables"]["obj_VideoMetadata"] >= 2

    # Restore over the live data (server stopped): the later writes are gone, the derived
    # vector index is removed so it is rebuilt from the restored rows.
    ann = Path(str(settings.knowledge_db) + ".ann")
    ann.mkdir(exist_ok=True)
    (ann / "VideoMetadata.json").write_text("{}")
    result = backup.restore(dest, store_files(settings), settings.data_dir)
    assert set(result["restored"]) == set(manifest["stores"])
    assert not ann.exists()
    assert _video_ids(Path(settings.catalog_db)) == copied

    # And into a fresh data dir, read back through the tools.
    fresh = configure(VIDEO_RESEARCH_DATA_DIR=str(tmp_path / "elsewhere"))
    backup.restore(dest, store_files(fresh), fresh.data_dir)
    page = await call_ok("catalog_search", {"limit": 1})
    assert page["total"] == len(copied)
    from video_research.knowledge.store import get_store

    store = await get_store()
    assert (
        await store.count("VideoMetadata")
        == manifest["stores"]["knowledge"]["tables"]["obj_VideoMetadata"]
    )


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "video_research", *args],
        env=base_env(tmp_path),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_cli_backs_up_verifies_and_refuses_a_damaged_backup(tmp_path):
    added = _cli(
        tmp_path,
        "call",
        "catalog_add",
        "--json",
        '{"video_id": "a1", "title": "A", "manifest_url": "https://m.example/a1"}',
    )
    assert added.returncode == 0, added.stderr
    made = _cli(tmp_path, "backup", str(tmp_path / "b"))
    assert made.returncode == 0, made.stderr
    manifest = json.loads(made.stdout)
    assert manifest["stores"]["catalog"]["tables"]["videos"] == 1
    assert json.loads((tmp_path / "b" / "manifest.json").read_text()) == manifest
    again = _cli(tmp_path, "backup", str(tmp_path / "b"))
    assert again.returncode == 1 and "not an empty folder" in again.stderr
    restored = _cli(tmp_path, "restore", str(tmp_path / "b"))
    assert restored.returncode == 0, restored.stderr
    assert "catalog" in json.loads(restored.stdout)["restored"]
    with (tmp_path / "b" / "catalog.sqlite").open("r+b") as handle:
        handle.seek(200)
        handle.write(b"\xff" * 16)
    damaged = _cli(tmp_path, "restore", str(tmp_path / "b"))
    assert damaged.returncode == 1 and "checksum" in damaged.stderr
    missing = _cli(tmp_path, "restore", str(tmp_path))
    assert missing.returncode == 1 and "manifest.json" in missing.stderr

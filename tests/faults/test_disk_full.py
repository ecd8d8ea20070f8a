"""Disk full: SQLite's max_page_count lowered under a running ingest (SQLITE_FULL), and a
small filesystem (tmpfs) for the data dir where this machine lets the test mount one."""

from __future__ import annotations

import anyio
import pytest

from tests.faults.conftest import Stopwatch, assert_whole, error_of, gist, ok, served
from tests.fixtures.documents import make_notes

pytestmark = pytest.mark.slow


def _statuses(report: dict) -> dict[str, str]:
    return {item["path"]: item["status"] for item in report["files"]}


async def _documents(session) -> dict[str, int]:
    """Listed documents (file name -> chunks), each checked whole in the store file."""
    listed = await ok(session, "document_list", {"limit": 500})
    await assert_whole(listed["documents"])
    return {d["source_path"]: d["chunks"] for d in listed["documents"]}


async def test_sqlite_full_under_a_running_document_ingest(tmp_path, fault_env, inlet, row):
    row.fault, row.tool = "disk full: SQLite max_page_count lowered mid-ingest", "document_ingest"
    before = make_notes(tmp_path / "before", 5)
    during = make_notes(tmp_path / "during", 30)
    started = anyio.Event()

    async def on_progress(done, total, message):
        if done >= 2:
            started.set()

    async with served(fault_env) as session:
        accepted = await ok(session, "document_ingest", {"path": str(before)})
        assert set(_statuses(accepted).values()) == {"ingested"}
        kept = await _documents(session)

        async with anyio.create_task_group() as group:
            answers: list = []

            async def ingest() -> None:
                answers.append(
                    await session.call_tool(
                        "document_ingest", {"path": str(during)}, progress_callback=on_progress
                    )
                )

            group.start_soon(ingest)
            with anyio.fail_after(120):
                await started.wait()
            await inlet.inject("max_pages", extra=0)
        (answer,) = answers
        # (a) the call stops with a clear word: a full disk fails every later file alike.
        error = error_of(answer)
        assert error["category"] == "config_error" and "full" in error["message"], error
        assert "Free space" in error["hint"], error
        row.result = gist(error)
        # (b) still serving; (c) what was accepted before is whole, no half-written file.
        listed = await _documents(session)
        assert {name: listed[name] for name in kept} == kept
        assert all(passages > 0 for passages in listed.values()), listed
        found = await ok(session, "document_search", {"query": "Fact 3.1 about topic 3", "k": 3})
        assert found["results"], "searching still works under a full disk"
        row.data_lost = sum(1 for name in kept if name not in listed)

        # (d) the disk has room again: the same call finishes the job, no repair.
        await inlet.inject("max_pages", extra=None)
        clock = Stopwatch()
        again = await ok(session, "document_ingest", {"path": str(during)})
        row.recovery_s = clock.seconds()
        assert "failed" not in _statuses(again).values(), again
        listed = await _documents(session)
        assert len(listed) == 35 and all(p > 0 for p in listed.values())

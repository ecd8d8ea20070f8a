"""End to end over stdio with the real MCP client: ingest a folder with one PDF and one
DOCX, then document_search returns the right passage with page and heading path. And a
client that cancels a large ingest leaves only whole documents behind."""

from __future__ import annotations

import anyio
import pytest

from tests.fixtures.documents import make_notes
from tests.helpers import mcp_client, tool_json
from video_research.documents import library
from video_research.knowledge.filters import Filter
from video_research.knowledge.store import get_store

pytestmark = pytest.mark.slow


async def test_checked_by_ingest_folder_then_search_over_stdio(server_env, library_dir):
    progress: list[tuple[float, float | None]] = []

    async def on_progress(done, total, message):
        progress.append((done, total))

    async with mcp_client(server_env) as session:
        names = {t.name for t in (await session.list_tools()).tools}
        assert {"document_ingest", "document_search", "document_list", "document_delete"} <= names
        ingested = await session.call_tool(
            "document_ingest", {"path": str(library_dir)}, progress_callback=on_progress
        )
        assert not ingested.is_error, tool_json(ingested)
        assert ingested.structured_content["ingested"] == 2
        assert progress[-1] == (2, 2)

        found = await session.call_tool(
            "document_search", {"query": "What was the depth of the primary eclipse?", "k": 3}
        )
        top = found.structured_content["results"][0]
        assert "primary eclipse depth of 0.8 magnitudes" in top["text"]
        assert top["page"] == 3 and top["heading_path"] == ["Results", "Light curves"]
        assert top["citation"] == "report.pdf, p. 3, Results > Light curves"

        found = await session.call_tool(
            "document_search",
            {"query": "working from home", "filters": {"document_type": "docx"}},
        )
        top = found.structured_content["results"][0]
        assert "three days per week" in top["text"]
        assert top["heading_path"] == ["Onboarding", "Remote work"]

        outside = await session.call_tool("document_ingest", {"path": "/etc"})
        assert outside.is_error and tool_json(outside)["category"] == "forbidden"


async def test_client_cancel_leaves_whole_documents(server_env, tmp_path):
    folder = tmp_path / "many"
    make_notes(folder, 40)
    started = anyio.Event()

    async def on_progress(done, total, message):
        if done >= 1:
            started.set()

    async with mcp_client(server_env) as session:
        async with anyio.create_task_group() as group:

            async def ingest() -> None:
                await session.call_tool(
                    "document_ingest", {"path": str(folder)}, progress_callback=on_progress
                )

            group.start_soon(ingest)
            with anyio.fail_after(120):
                await started.wait()
            group.cancel_scope.cancel()  # the client abandons the call: notifications/cancelled

        listed = await session.call_tool("document_list", {"limit": 500})
        assert not listed.is_error, "the server keeps serving after a cancelled call"
        documents = listed.structured_content["documents"]
        assert 1 <= len(documents) < 40

    # The server has exited; open its store file here and count what it holds.
    store = await get_store()
    total = await store.count(library.COLLECTION)
    for document in documents:
        stored = await store.count(
            library.COLLECTION, Filter.eq("document_id", document["document_id"])
        )
        assert stored == document["chunks"], f"{document['file_name']} is half written"
    assert total >= sum(d["chunks"] for d in documents)
    assert total < 40 * 2, "the cancelled ingest stopped"

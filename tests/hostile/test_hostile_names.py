"""A file name that is not UTF-8 never kills the server, over stdio or HTTP.

`bad-\\xff.md` reaches Python as a str with a lone surrogate; before the fix the result
carrying it could not be encoded by the SDK's stdout writer and the stdio server died
("Connection closed"), HTTP answered an empty 200, and the audit log lost the call.
Now the name is shown escaped everywhere it leaves the process, and the file is
ingested like any other.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio

from tests.helpers import http_server, mcp_client, tool_json

BAD_NAME = b"bad-\xff.md"
SHOWN = "bad-\\xff.md"
"""How the name is shown: the raw byte as \\xNN."""
CALL_SECONDS = 60


def _library(tmp_path: Path) -> Path:
    folder = tmp_path / "lib"
    folder.mkdir()
    (folder / "good.md").write_text("# Good\n\nA passage about lighthouses on the coast.\n")
    with open(os.path.join(os.fsencode(folder), BAD_NAME), "wb") as handle:
        handle.write(b"# Bad name\n\nA passage about volcanoes erupting under the sea.\n")
    return folder


def _check_ingested(result, folder: Path) -> None:
    assert not result.is_error, tool_json(result)
    data = result.structured_content
    assert data == tool_json(result)
    assert (data["ingested"], data["failed"]) == (2, 0), data
    shown = sorted(item["path"] for item in data["files"])
    assert shown == [f"{folder}/{SHOWN}", f"{folder}/good.md"]


async def test_non_utf8_name_over_stdio_with_audit_log(server_env, tmp_path):
    folder = _library(tmp_path)
    audit_file = tmp_path / "audit.jsonl"
    env = {**server_env, "VIDEO_RESEARCH_AUDIT_LOG": str(audit_file)}
    progress: list[str] = []

    async def on_progress(done, total, message):
        progress.append(message)

    async with mcp_client(env) as session:
        with anyio.fail_after(CALL_SECONDS):  # before the fix: no answer, or a dead server
            result = await session.call_tool(
                "document_ingest", {"path": str(folder)}, progress_callback=on_progress
            )
        _check_ingested(result, folder)
        assert any(message.startswith(SHOWN) for message in progress), progress

        # the server is alive, and the passage is found under the name as shown
        found = await session.call_tool("document_search", {"query": "volcanoes under the sea"})
        top = found.structured_content["results"][0]
        assert top["source_path"] == f"{folder}/{SHOWN}" and top["file_name"] == SHOWN
        # ... and that shown path is what document_delete takes back
        deleted = await session.call_tool("document_delete", {"paths": [top["source_path"]]})
        assert not deleted.is_error, tool_json(deleted)
        listed = await session.call_tool("document_list", {})
        assert [d["file_name"] for d in listed.structured_content["documents"]] == ["good.md"]

    entries = [json.loads(line) for line in audit_file.read_text("utf-8").splitlines()]
    ingest = [e for e in entries if e["tool"] == "document_ingest"]
    assert len(ingest) == 1 and ingest[0]["ok"]
    assert f"{folder}/{SHOWN}" in [f["path"] for f in ingest[0]["result"]["files"]]


async def test_non_utf8_name_over_http(server_env, tmp_path):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    folder = _library(tmp_path)
    async with (
        http_server(server_env) as (port, _proc),
        streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        with anyio.fail_after(CALL_SECONDS):
            result = await session.call_tool("document_ingest", {"path": str(folder)})
        _check_ingested(result, folder)
        entries = await session.call_tool("audit_log", {"tool": "document_ingest"})
        assert entries.structured_content["entries"][0]["ok"]


async def test_non_utf8_video_name_in_a_batch(gemini_env, tmp_path):
    videos = tmp_path / "videos"
    videos.mkdir()
    with open(os.path.join(os.fsencode(videos), b"caf\xe9.mp4"), "wb") as handle:
        handle.write(b"not really a video" + os.urandom(256))
    (videos / "plain.mp4").write_bytes(b"plain" + os.urandom(256))
    async with mcp_client(gemini_env) as session:
        with anyio.fail_after(CALL_SECONDS):
            result = await session.call_tool("video_batch_analyze", {"directory": str(videos)})
        assert not result.is_error, tool_json(result)
        items = result.structured_content["items"]
        assert [i["status"] for i in items] == ["ok", "ok"], items
        names = sorted(item["file_name"] for item in items)
        assert names == ["caf\\xe9.mp4", "plain.mp4"]
        assert (await session.call_tool("catalog_search", {"q": "x"})).is_error is False


async def test_every_result_and_error_leaves_encodable():
    """The one mechanism (server.tool_result): whatever strings a handler's result or error
    holds (here a name that is not UTF-8, as os.fsdecode gives it, and a lone surrogate),
    the MCP result is valid UTF-8, structured content and text alike. (The SDK's JSON
    parser refuses lone surrogates in requests, so only files bring them in.)"""
    from video_research.handlers.context import CallContext, Caller
    from video_research.server import app as server
    from video_research.tools import dispatch

    name = os.fsdecode(b"/x/bad-\xff.md") + "\ud800"
    ok = server.tool_result(dispatch.Outcome(result={"files": [{"path": name, name: [name]}]}))
    assert ok.structured_content == {
        "files": [
            {"path": "/x/bad-\\xff.md\\ud800", "/x/bad-\\xff.md\\ud800": ["/x/bad-\\xff.md\\ud800"]}
        ]
    }
    ok.model_dump_json().encode("utf-8")
    outcome = await dispatch.call(
        dispatch.TOOLS["document_ingest"],
        {"path": name},
        CallContext(tool="document_ingest", caller=Caller("t", "admin", verified=True)),
    )
    failed = server.tool_result(outcome)
    assert failed.is_error and "/x/bad-" in failed.content[0].text
    failed.model_dump_json().encode("utf-8")

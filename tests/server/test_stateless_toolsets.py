"""Every served tool reachable from a fresh client on both protocol revisions, over stdio and
HTTP, with the SDK's own `Client` and default settings (no VIDEO_RESEARCH_TOOLSETS).

MCP 2026-07-28 has no sessions: each request stands alone. A client finds a tool with
tool_search, reads its schemas with tool_describe and runs it with tool_call, in one
request each; the 2025-11-25 wire (`mode="legacy"`, the initialize handshake) keeps its
per-session toolset_enable besides. A tool the list does not show, called directly,
answers as a tool result whose hint is the call that works on that wire: never
toolset_enable where the next request would have forgotten it. Client roots narrow the
server's on both wires (2026-07-28 asks for them in an input-required round trip).
"""

from __future__ import annotations

import base64
import io
import shutil
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from PIL import Image

from tests.helpers import REPO_ROOT, http_server, tool_json
from video_research.tools import dispatch

pytestmark = pytest.mark.slow

LECTURE = REPO_ROOT / "tests" / "fixtures" / "media" / "lecture.mp4"
LEGACY, MODERN = "legacy", "2026-07-28"
"""Client modes: the initialize handshake (2025-11-25), and a fresh client's default
("auto": server/discover, which this server answers with 2026-07-28)."""
WIRES = [pytest.param(LEGACY, id="2025-11-25"), pytest.param(MODERN, id="2026-07-28")]
TRANSPORTS = ["stdio", "http"]


@asynccontextmanager
async def fresh_client(env, transport: str, mode: str, **options):
    """The SDK's Client on `transport` speaking `mode`, against a server of `env`. The
    2026-07-28 wire is reached as a fresh client reaches it: mode "auto", server/discover."""
    mode = "auto" if mode == MODERN else mode
    if transport == "stdio":
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "video_research"], env=env, cwd=str(REPO_ROOT)
        )
        async with Client(params, mode=mode, **options) as client:
            yield client
        return
    async with (
        http_server(env) as (port, _),
        Client(f"http://127.0.0.1:{port}/mcp", mode=mode, **options) as client,
    ):
        yield client


def _default_env(server_env) -> dict[str, str]:
    env = dict(server_env)
    env.pop("VIDEO_RESEARCH_TOOLSETS")  # the default profile, as a new user has it
    return env


def _note(folder: Path) -> Path:
    note = folder / "tides.md"
    note.write_text(
        "# Tides\n\nThe Moon's gravity raises two bulges in the oceans; the Earth turns "
        "under them, so most coasts see two high tides a day.\n",
        encoding="utf-8",
    )
    return note


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("mode", WIRES)
async def test_a_fresh_client_finds_and_calls_unlisted_tools(server_env, tmp_path, transport, mode):
    video = tmp_path / "lecture.mp4"
    shutil.copyfile(LECTURE, video)
    note = _note(tmp_path)
    async with fresh_client(_default_env(server_env), transport, mode) as client:
        assert client.protocol_version == ("2025-11-25" if mode == LEGACY else MODERN)
        listed = await client.list_tools()
        names = {tool.name for tool in listed.tools}
        assert "media_frames" not in names and "document_ingest" not in names
        assert {"tool_search", "tool_describe", "tool_call"} <= names
        assert len(listed.model_dump_json(by_alias=True, exclude_none=True)) // 4 <= 8_000

        found = tool_json(await client.call_tool("tool_search", {"query": "frames of a video"}))
        assert found["tools"][0] == {
            "name": "media_frames",
            "toolset": "media",
            "summary": dispatch.TOOLS["media_frames"].summary,
            "listed": False,
        }
        assert found["served"] == len(dispatch.TOOLS)
        described = tool_json(await client.call_tool("tool_describe", {"name": "media_frames"}))
        assert described["input_schema"]["required"] == ["path"]
        assert "tool_call" in described["how_to_call"]

        frames = await client.call_tool(
            "tool_call", {"name": "media_frames", "arguments": {"path": str(video), "count": 2}}
        )
        assert not frames.is_error, frames.content
        images = [c for c in frames.content if isinstance(c, types.ImageContent)]
        assert len(images) == len(frames.structured_content["frames"]) == 2
        Image.open(io.BytesIO(base64.b64decode(images[0].data))).load()

        found = tool_json(await client.call_tool("tool_search", {"query": "ingest a PDF"}))
        assert found["tools"][0]["name"] == "document_ingest"
        ingested = await client.call_tool(
            "tool_call", {"name": "document_ingest", "arguments": {"path": str(note)}}
        )
        assert not ingested.is_error, ingested.content
        assert ingested.structured_content["ingested"] == 1

        # the called tool's own error comes back as it stands
        missing = await client.call_tool(
            "tool_call", {"name": "media_frames", "arguments": {"path": str(tmp_path / "x.mp4")}}
        )
        assert missing.is_error and tool_json(missing)["category"] == "not_found"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_on_2026_an_off_tool_and_toolset_enable_answer_with_tool_call(server_env, transport):
    changed: list[object] = []

    async def on_message(message) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.append(message)

    env = _default_env(server_env)
    async with fresh_client(env, transport, MODERN, message_handler=on_message) as client:
        caps = client.server_capabilities
        assert caps.logging is None  # 2026-07-28 has no logging/setLevel
        direct = await client.call_tool("media_frames", {"path": "x.mp4"})
        error = tool_json(direct)
        assert direct.is_error and error["category"] == "not_found"
        assert "tool_call" in error["hint"] and "toolset_enable" not in error["hint"]
        assert error["details"]["call_with"]["arguments"]["name"] == "media_frames"

        enabled = await client.call_tool("toolset_enable", {"toolset": "media"})
        error = tool_json(enabled)
        assert enabled.is_error and error["details"] == {"stateless": True}
        assert "tool_call" in error["hint"] and "VIDEO_RESEARCH_TOOLSETS" in error["hint"]
        assert changed == []  # nothing changed, so nothing is said to have changed

        listed = await client.list_tools()
        assert listed.ttl_ms and listed.ttl_ms > 0 and listed.cache_scope == "public"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_on_2025_toolset_enable_keeps_working_per_session(server_env, transport):
    async with fresh_client(_default_env(server_env), transport, LEGACY) as client:
        direct = await client.call_tool("queue_status", {})
        error = tool_json(direct)
        assert direct.is_error and error["category"] == "not_found"
        assert 'toolset_enable {"toolset": "queue"}' in error["hint"]
        assert "tool_call" in error["hint"]

        enabled = tool_json(await client.call_tool("toolset_enable", {"toolset": "queue"}))
        assert enabled["state"] == "on"
        assert "queue_status" in {t.name for t in (await client.list_tools()).tools}
        assert not (await client.call_tool("queue_status", {})).is_error


async def test_a_server_that_does_not_serve_a_toolset_names_the_setting(server_env):
    env = dict(server_env, VIDEO_RESEARCH_TOOLSETS="video")
    async with fresh_client(env, "stdio", MODERN) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "tool_call" not in names  # explicit toolsets, no dynamic ones: nothing else served
        direct = await client.call_tool("media_frames", {"path": "x.mp4"})
        error = tool_json(direct)
        assert direct.is_error and error["details"]["served"] is False
        assert "VIDEO_RESEARCH_TOOLSETS" in error["hint"] and "tool_call" not in error["hint"]


# ---------------------------------------------------------------- events and resources


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_on_2026_a_listen_stream_gets_the_queue_updates(server_env, transport):
    """subscriptions/listen (the SDK's ListenHandler): a 2026-07-28 client names the
    resources it follows and is told when a tool call changes one."""
    import anyio
    from mcp.client.subscriptions import ResourceUpdated
    from mcp.shared.exceptions import MCPError

    async with fresh_client(server_env, transport, MODERN) as client:
        assert client.server_capabilities.resources.subscribe is True
        listed = await client.list_resources()
        assert listed.cache_scope == "public" and listed.ttl_ms > 0
        with pytest.raises(MCPError) as unknown:
            await client.read_resource("nope://x")
        assert unknown.value.error.code == types.INVALID_PARAMS
        assert unknown.value.error.data == {"uri": "nope://x"}

        video = {
            "video_id": "halloween",
            "title": "Halloween",
            "manifest_url": "https://media.example/halloween.json",
        }
        assert not (await client.call_tool("catalog_add", video)).is_error
        async with client.listen(resource_subscriptions=["queue://current"]) as events:
            added = await client.call_tool("queue_add_video", {"video_id": "halloween"})
            assert not added.is_error, added.content
            with anyio.fail_after(10):
                event = await events.__anext__()
            assert event == ResourceUpdated(uri="queue://current")


@pytest.mark.parametrize(
    "mode,transport",
    [(LEGACY, "stdio"), (MODERN, "stdio"), (MODERN, "http")],
    ids=["2025-11-25-stdio", "2026-07-28-stdio", "2026-07-28-http"],
)
async def test_client_roots_narrow_the_servers_on_both_wires(server_env, tmp_path, transport, mode):
    """A path must be under the client's roots too (the intersection). 2025-11-25 asks with
    roots/list; 2026-07-28, which has no server-to-client request, answers the call with
    an input-required result asking for the roots, and the SDK's client calls again with
    them. A client that declares no roots is never asked: the server's roots decide."""
    shared, other = tmp_path / "shared", tmp_path / "other"
    rows = (
        "video_id,title,categories,duration_seconds,manifest_url\nc1,One,Comedy,100,https://m/c1\n"
    )
    for folder in (shared, other):
        folder.mkdir()
        (folder / "videos.csv").write_text(rows, encoding="utf-8")
    asked: list[object] = []

    async def roots(context) -> types.ListRootsResult:
        asked.append(context)
        return types.ListRootsResult(roots=[types.Root(uri=shared.as_uri())])

    def dry_import(folder):
        arguments = {"file_path": str(folder / "videos.csv"), "dry_run": True}
        return {"name": "catalog_import", "arguments": arguments}

    env = _default_env(server_env)
    async with fresh_client(env, transport, mode, list_roots_callback=roots) as client:
        refused = await client.call_tool("tool_call", dry_import(other))
        error = tool_json(refused)
        assert refused.is_error and error["category"] == "forbidden"
        assert "your MCP client shares" in error["error"] and str(shared) in error["error"]
        assert "must be under both" in error["error"]
        assert asked
        read = await client.call_tool("tool_call", dry_import(shared))
        assert not read.is_error, read.content
    async with fresh_client(env, transport, mode) as client:
        assert not (await client.call_tool("tool_call", dry_import(other))).is_error

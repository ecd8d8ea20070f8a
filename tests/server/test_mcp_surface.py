"""The same MCP surface on every transport: capabilities, list cursors, early progress."""

from __future__ import annotations

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.helpers import http_server, mcp_client


def _capabilities(result: types.InitializeResult) -> dict:
    return result.capabilities.model_dump(by_alias=True, exclude_none=True)


async def test_every_transport_advertises_the_same_capabilities(server_env):
    from mcp import ClientSession
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client

    async with mcp_client(server_env) as stdio:
        expected = _capabilities(stdio.initialize_result)
    assert expected["resources"] == {"subscribe": True, "listChanged": True}
    assert expected["tools"] == {"listChanged": True}
    assert "logging" in expected and "completions" in expected

    async with (
        http_server(server_env) as (port, _),
        streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
        ClientSession(read, write) as http,
    ):
        assert _capabilities(await http.initialize()) == expected
    async with (
        http_server(server_env, "sse") as (port, _),
        sse_client(f"http://127.0.0.1:{port}/sse") as streams,
        ClientSession(*streams) as sse,
    ):
        assert _capabilities(await sse.initialize()) == expected


async def _lists_reject_a_bogus_cursor(session) -> None:
    bogus = types.PaginatedRequestParams(cursor="not-a-cursor-we-gave")
    for listing in (
        session.list_tools,
        session.list_resources,
        session.list_resource_templates,
        session.list_prompts,
    ):
        with pytest.raises(MCPError, match="Invalid cursor") as raised:
            await listing(params=bogus)
        assert raised.value.error.code == types.INVALID_PARAMS
    assert (await session.list_tools()).tools  # no cursor: one page, everything


async def test_an_invalid_cursor_is_invalid_params_over_stdio(server_env):
    async with mcp_client(server_env) as session:
        await _lists_reject_a_bogus_cursor(session)


async def test_an_invalid_cursor_is_invalid_params_over_http(server_env):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        http_server(server_env) as (port, _),
        streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        await _lists_reject_a_bogus_cursor(session)


async def test_a_long_call_reports_progress_before_its_first_item(
    gemini_env, gemini_stub, tmp_path
):
    """video_batch_analyze reports 0/N before its first file, then 1/N, 2/N after each
    finished one (Gemini taking 1.5 s per file)."""
    for name in ("a.mp4", "b.mp4"):
        (tmp_path / name).write_bytes(name.encode() + b"\0" * 2048)
    gemini_stub.latency = 1.5
    events: list[tuple[float, float | None, str | None]] = []

    async def progress(done, total, message):
        events.append((done, total, message))

    async with mcp_client(gemini_env) as session:
        result = await session.call_tool(
            "video_batch_analyze",
            {"directory": str(tmp_path)},
            progress_callback=progress,
        )
    assert not result.is_error, result.content
    assert events[0][:2] == (0, 2), "0/N before the first file"
    assert [e[0] for e in events[1:]] == [1, 2] and all(e[1] == 2 for e in events[1:])


async def test_a_long_call_without_steps_says_it_started(gemini_env, gemini_stub, tmp_path):
    """A call with no steps of its own (one video_analyze, Gemini taking 1.5 s) still hears
    progress 0 ("started") half a second in, long before its answer."""
    (tmp_path / "a.mp4").write_bytes(b"a.mp4" + b"\0" * 2048)
    gemini_stub.latency = 1.5
    events: list[tuple[float, float | None, str | None]] = []

    async def progress(done, total, message):
        events.append((done, total, message))

    async with mcp_client(gemini_env) as session:
        result = await session.call_tool(
            "video_analyze", {"file_path": str(tmp_path / "a.mp4")}, progress_callback=progress
        )
    assert not result.is_error, result.content
    assert events and events[0][0] == 0 and "started" in (events[0][2] or ""), events

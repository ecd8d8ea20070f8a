"""`video-research serve --transport http` answers a real streamable-HTTP MCP client."""

from __future__ import annotations

import pytest

from tests.helpers import http_server

pytestmark = pytest.mark.slow


async def test_http_transport_lists_and_calls(server_env):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        http_server(server_env) as (port, proc),
        streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        names = {t.name for t in (await session.list_tools()).tools}
        assert "infra_cache" in names
        result = await session.call_tool("infra_cache", {"action": "stats"})
        assert not result.is_error
    assert proc.stdout.read() == b"", "the HTTP server must not print to stdout"

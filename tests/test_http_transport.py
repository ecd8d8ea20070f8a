"""`video-research serve --transport http` answers a real streamable-HTTP MCP client."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import REPO_ROOT, free_port, wait_listening


async def test_http_transport_lists_and_calls(server_env):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "video_research",
            "serve",
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        env=server_env,
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        await wait_listening(port, proc)
        async with (
            streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names = {t.name for t in (await session.list_tools()).tools}
            assert "infra_cache" in names
            result = await session.call_tool("infra_cache", {"action": "stats"})
            assert not result.is_error
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert proc.stdout.read() == b"", "the HTTP server must not print to stdout"

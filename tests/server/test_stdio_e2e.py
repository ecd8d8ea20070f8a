"""The real MCP ClientSession against `python -m video_research` over stdio."""

from __future__ import annotations

import asyncio
import json
import re
import sys

import pytest
from mcp.shared.exceptions import MCPError

from tests.helpers import REPO_ROOT, mcp_client, tool_json

pytestmark = pytest.mark.slow

INVALID_PARAMS = -32602


async def test_infra_tools_end_to_end(server_env):
    async with mcp_client(server_env) as session:
        names = {t.name for t in (await session.list_tools()).tools}
        assert {"infra_cache", "infra_configure"} <= names

        stats = await session.call_tool("infra_cache", {"action": "stats"})
        assert not stats.is_error
        assert stats.structured_content["stats"]["total_files"] == 0
        assert tool_json(stats) == stats.structured_content

        listed = await session.call_tool("infra_cache", {"action": "list"})
        assert listed.structured_content["entries"] == []

        cleared = await session.call_tool("infra_cache", {"action": "clear"})
        assert cleared.structured_content["removed"] == 0

        configured = await session.call_tool(
            "infra_configure", {"preset": "budget", "thinking_level": "low"}
        )
        assert not configured.is_error
        assert configured.structured_content["active_preset"] == "budget"
        assert configured.structured_content["current_config"]["default_thinking_level"] == "low"
        again = await session.call_tool("infra_configure", {})
        assert again.structured_content["active_preset"] == "budget", (
            "runtime change must persist in the process"
        )


async def test_unknown_tool_is_jsonrpc_invalid_params(server_env):
    async with mcp_client(server_env) as session:
        with pytest.raises(MCPError) as info:
            await session.call_tool("no_such_tool", {})
        assert info.value.code == INVALID_PARAMS
        assert "no_such_tool" in info.value.message


async def test_invalid_input_is_a_structured_tool_error(server_env):
    async with mcp_client(server_env) as session:
        result = await session.call_tool("infra_cache", {"action": "explode", "limit": -1})
    assert result.is_error
    error = tool_json(result)
    assert error["category"] == "invalid_input"
    assert error["retryable"] is False
    assert error["hint"]
    assert {e["path"] for e in error["details"]["errors"]} == {"$.action", "$.limit"}


async def test_toolsets_hide_and_block_tools(server_env):
    server_env["VIDEO_RESEARCH_TOOLSETS"] = "infra"
    async with mcp_client(server_env) as session:
        names = {t.name for t in (await session.list_tools()).tools}
        assert names and all(n.startswith("infra_") for n in names)


def _rpc(id_, method, params=None):
    message = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message)


async def test_stdout_carries_only_json_rpc(server_env):
    """Drive the server with raw JSON-RPC lines; every stdout line must be JSON-RPC,
    while logs (DEBUG here, to make plenty) go to stderr without the API key."""
    secret = "AIzaSyTESTSECRET0000000000000000000000"
    server_env.update({"VIDEO_RESEARCH_LOG_LEVEL": "DEBUG", "GEMINI_API_KEY": secret})
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    lines = [
        _rpc(1, "initialize", init),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        _rpc(2, "tools/list"),
        _rpc(3, "tools/call", {"name": "infra_cache", "arguments": {"action": "stats"}}),
        _rpc(4, "tools/call", {"name": "infra_cache", "arguments": {"action": 7}}),
        _rpc(5, "tools/call", {"name": "nope", "arguments": {}}),
        _rpc(6, "tools/call", {"name": "infra_configure", "arguments": {"preset": "stable"}}),
        "this is not json",
        _rpc(7, "ping"),
    ]
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "video_research",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=server_env,
        cwd=REPO_ROOT,
        limit=16 * 1024 * 1024,  # tools/list with every schema is one line of a few hundred KB
    )
    proc.stdin.write(("\n".join(lines) + "\n").encode())
    await proc.stdin.drain()
    out_lines: list[str] = []
    ids: set = set()
    try:
        async with asyncio.timeout(60):
            while not {1, 2, 3, 4, 5, 6, 7} <= ids:
                raw = await proc.stdout.readline()
                assert raw, "server closed stdout early"
                line = raw.decode().strip()
                if not line:
                    continue
                out_lines.append(line)
                message = json.loads(line)
                assert message.get("jsonrpc") == "2.0", line
                ids.add(message.get("id"))
    finally:
        proc.stdin.close()
        rest, stderr = await asyncio.wait_for(proc.communicate(), 30)
    for line in rest.decode().splitlines():
        if line.strip():
            assert json.loads(line).get("jsonrpc") == "2.0", line
    stderr_text = stderr.decode()
    assert secret not in "\n".join(out_lines) + rest.decode() and secret not in stderr_text
    assert "video_research" in stderr_text, "expected DEBUG logs on stderr"
    # the start-up heap was frozen before serving (support/memory.py)
    assert re.search(r"froze [1-9]\d{3,} start-up objects", stderr_text), stderr_text[-2000:]


async def test_concurrent_calls_on_one_session(server_env):
    async with mcp_client(server_env) as session:
        results = await asyncio.gather(
            *(session.call_tool("infra_cache", {"action": "stats"}) for _ in range(20))
        )
    assert all(not r.is_error for r in results)

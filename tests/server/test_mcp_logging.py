"""MCP logging: `logging/setLevel` per session; the server's log records at or above it
come back as `notifications/message` to the session whose call caused them, with
secrets masked exactly as on stderr."""

from __future__ import annotations

import asyncio
import warnings

import mcp_types as types

from tests.helpers import http_server, mcp_client

SECRET = "AIzaSyFAKE-logging-key-000000000000000"


class Logs:
    def __init__(self):
        self.messages: list[types.LoggingMessageNotificationParams] = []

    async def __call__(self, params):
        self.messages.append(params)


async def set_level(session, level: str) -> None:
    with warnings.catch_warnings():  # the SDK marks logging deprecated for 2026-07-28
        warnings.simplefilter("ignore")
        await session.set_logging_level(level)


async def failing_call(session) -> None:
    """A call whose failure the server logs at INFO, the secret in the logged message."""
    result = await session.call_tool("catalog_get_video", {"video_id": SECRET})
    assert result.is_error


def check_redacted(logs: Logs) -> None:
    assert logs.messages, "no log notification arrived"
    for params in logs.messages:
        assert SECRET not in str(params.data)
    failure = [p for p in logs.messages if "catalog_get_video failed" in str(p.data)]
    assert failure and failure[0].level == "info"
    assert failure[0].logger == "video_research.tools.dispatch"
    assert "[REDACTED]" in str(failure[0].data)


async def test_stdio_log_notifications_follow_the_session_level(server_env):
    logs = Logs()
    env = {**server_env, "GEMINI_API_KEY": SECRET}
    async with mcp_client(env, logging_callback=logs) as session:
        assert session.initialize_result.capabilities.logging is not None
        await failing_call(session)
        assert logs.messages == [], "nothing is sent before logging/setLevel"

        await set_level(session, "info")
        await failing_call(session)
        check_redacted(logs)

        logs.messages.clear()
        await set_level(session, "error")
        await failing_call(session)
        await asyncio.sleep(0.2)
        assert logs.messages == []


async def test_http_log_notifications_go_to_the_session_that_asked(server_env):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    asking, other = Logs(), Logs()
    async with http_server({**server_env, "GEMINI_API_KEY": SECRET}) as (port, proc):
        url = f"http://127.0.0.1:{port}/mcp"
        async with (
            streamable_http_client(url) as (read_a, write_a),
            ClientSession(read_a, write_a, logging_callback=asking) as first,
            streamable_http_client(url) as (read_b, write_b),
            ClientSession(read_b, write_b, logging_callback=other) as second,
        ):
            await first.initialize()
            await second.initialize()
            assert first.initialize_result.capabilities.logging is not None
            await set_level(first, "debug")
            await failing_call(first)
            await failing_call(second)
            check_redacted(asking)
            assert other.messages == []
    stderr = proc.stderr.read().decode()
    assert "catalog_get_video failed" in stderr and SECRET not in stderr


async def test_records_below_the_level_are_not_sent(server_env):
    logs = Logs()
    async with mcp_client(server_env, logging_callback=logs) as session:
        await set_level(session, "warning")
        await failing_call(session)  # logged at info
        await asyncio.sleep(0.2)
    assert logs.messages == []

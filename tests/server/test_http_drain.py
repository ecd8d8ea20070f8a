"""SIGTERM on `serve --transport http`: a call in flight finishes and is answered within
VIDEO_RESEARCH_DRAIN_SECONDS, new connections are refused, and the process exits."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import time

import pytest

from tests.fixtures.documents import make_notes
from tests.helpers import base_env, http_server, tool_json

pytestmark = pytest.mark.slow

ADMIN_TOKEN = "drain-admin-token-0123456789"
TOKENS = {ADMIN_TOKEN: {"username": "ops", "role": "admin"}}


async def test_a_call_in_flight_at_sigterm_is_answered_then_the_server_exits(tmp_path):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    notes = make_notes(tmp_path / "notes", 300)
    env = base_env(
        tmp_path,
        VIDEO_RESEARCH_HTTP_TOKENS=json.dumps(TOKENS),
        VIDEO_RESEARCH_DRAIN_SECONDS="60",
    )
    async with http_server(env) as (port, proc):
        url = f"http://127.0.0.1:{port}/mcp"
        async with (
            create_mcp_http_client(headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            # As clients do: list first. Otherwise the SDK asks tools/list for the output
            # schema after the answer arrives, and that request races the listener closing
            # once the drain has nothing left in flight.
            await session.list_tools()
            call = asyncio.create_task(
                session.call_tool("document_ingest", {"path": str(notes), "glob": "*.md"})
            )
            await asyncio.sleep(1.0)
            assert not call.done(), "the ingest must still run when the signal arrives"
            proc.send_signal(signal.SIGTERM)
            signalled = time.monotonic()
            # New work is refused while the call drains: a new session gets 503 (once
            # the server has seen the signal).
            for _ in range(50):
                refused = await http.post(
                    url,
                    json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
                    headers={"Accept": "application/json, text/event-stream"},
                )
                if refused.status_code == 503:
                    break
                await asyncio.sleep(0.1)
            assert refused.status_code == 503, refused.status_code
            assert refused.json()["error"] == "shutting_down"
            result = await asyncio.wait_for(call, 60)
            answered = time.monotonic() - signalled
        assert not result.is_error, tool_json(result)
        assert tool_json(result)["ingested"] == 300
        await asyncio.to_thread(proc.wait, 60)
        exited = time.monotonic() - signalled
    assert proc.returncode in (0, -signal.SIGTERM), proc.returncode
    assert exited < 60, exited
    # Every chunk the answer counted is stored, and the stores are whole.
    for name in ("knowledge.db", "catalog.db"):
        path = tmp_path / "data" / name
        if path.exists():
            conn = sqlite3.connect(path)
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            conn.close()
    print(f"answered {answered:.1f} s after SIGTERM, exited after {exited:.1f} s")


async def test_an_open_listen_stream_does_not_hold_up_sigterm(tmp_path):
    """A 2026-07-28 subscriptions/listen stream never ends by itself: the drain must not
    wait VIDEO_RESEARCH_DRAIN_SECONDS for it, and the stream ends when the server does."""
    from mcp import Client
    from mcp.client.subscriptions import SubscriptionLost

    env = base_env(tmp_path, VIDEO_RESEARCH_DRAIN_SECONDS="60")
    async with http_server(env) as (port, proc):
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            assert client.protocol_version == "2026-07-28"
            async with client.listen(resource_subscriptions=["queue://current"]) as events:
                proc.send_signal(signal.SIGTERM)
                signalled = time.monotonic()
                try:
                    async for _event in events:
                        pass
                except SubscriptionLost:
                    pass  # an abrupt end is as good as a graceful one here
                exited = await asyncio.to_thread(proc.wait, 30)
        assert exited in (0, -signal.SIGTERM), exited
        assert time.monotonic() - signalled < 20, "the drain waited for the listen stream"

"""Resumable streamable HTTP: a client whose stream drops during a long call reconnects
with Last-Event-ID and gets what it missed, the call's result included."""

from __future__ import annotations

import json

import anyio
import pytest

from tests.helpers import http_server

pytestmark = pytest.mark.slow

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def rpc(id_: int | None, method: str, params: dict | None = None) -> dict:
    message: dict = {"jsonrpc": "2.0", "method": method}
    if id_ is not None:
        message["id"] = id_
    if params is not None:
        message["params"] = params
    return message


async def read_events(response, until_id: int | None = None, limit: int = 200) -> list[dict]:
    """SSE events of `response` as dicts (id, retry, data), up to the JSON-RPC response
    with id `until_id` (or the first event when None)."""
    events, event = [], {}
    async for line in response.aiter_lines():
        if line == "":
            if event:
                events.append(event)
                if until_id is None:
                    return events
                data = event.get("data")
                if data and json.loads(data).get("id") == until_id:
                    return events
                if len(events) >= limit:
                    return events
            event = {}
            continue
        field, _, value = line.partition(":")
        event[field] = value.lstrip(" ")
    return events


async def test_a_dropped_stream_is_resumed_with_last_event_id(server_env, tmp_path):
    import httpx2

    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(3):
        (docs / f"note{n}.md").write_text(f"# Note {n}\n\nResumable streams keep event {n}.\n")
    async with http_server(server_env) as (port, _), httpx2.AsyncClient(timeout=60) as http:
        url = f"http://127.0.0.1:{port}/mcp"
        async with http.stream(
            "POST",
            url,
            json=rpc(
                1,
                "initialize",
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            ),
            headers=ACCEPT,
        ) as opened:
            session = opened.headers["mcp-session-id"]
            events = await read_events(opened, until_id=1)
        priming = events[0]
        assert priming["id"] and priming.get("data", "") == "" and int(priming["retry"]) > 0
        headers = {**ACCEPT, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
        await http.post(url, json=rpc(None, "notifications/initialized"), headers=headers)

        call = rpc(
            2,
            "tools/call",
            {
                "name": "document_ingest",
                "arguments": {"path": str(docs)},
                "_meta": {"progressToken": "p"},
            },
        )
        async with http.stream("POST", url, json=call, headers=headers) as streaming:
            first = (await read_events(streaming))[0]
        # The connection is gone; the call goes on and its events are kept.
        assert first["id"] and "retry" in first

        resume = {**headers, "Accept": "text/event-stream", "Last-Event-ID": first["id"]}
        async with http.stream("GET", url, headers=resume) as resumed:
            assert resumed.status_code == 200
            replayed = await read_events(resumed, until_id=2)
        messages = [json.loads(e["data"]) for e in replayed if e.get("data")]
        result = messages[-1]
        assert result["id"] == 2 and not result["result"].get("isError"), result
        assert result["result"]["structuredContent"]["ingested"]
        ids = [e["id"] for e in replayed if e.get("data")]
        assert all(i.startswith(first["id"].rsplit(".", 1)[0] + ".") for i in ids)

        # Another session cannot replay this session's events.
        async with http.stream(
            "POST",
            url,
            json=rpc(
                1,
                "initialize",
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "u", "version": "1"},
                },
            ),
            headers=ACCEPT,
        ) as other:
            other_session = other.headers["mcp-session-id"]
            await read_events(other, until_id=1)
        foreign = {**resume, "mcp-session-id": other_session}
        leaked = []
        with anyio.move_on_after(2):
            async with http.stream("GET", url, headers=foreign) as refused:
                async for line in refused.aiter_lines():
                    if line.startswith("data:") and line.strip() != "data:":
                        leaked.append(line)
        assert leaked == []


def test_event_store_is_bounded(tmp_path):
    import asyncio

    from mcp_types import JSONRPCNotification

    from video_research.server.event_store import SqliteEventStore

    store = SqliteEventStore(tmp_path / "events.db", max_events=50)
    note = JSONRPCNotification(jsonrpc="2.0", method="notifications/progress", params={})

    async def fill() -> None:
        for _ in range(500):
            await store.store_event("1", note)

    asyncio.run(fill())
    assert store.count() <= 150
    store.close()

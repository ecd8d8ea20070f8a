"""Bearer tokens on `serve --transport http|sse`: no valid token, 401 before MCP; a
token's username and role become the caller."""

from __future__ import annotations

import json

import pytest

from tests.helpers import http_server, tool_json

pytestmark = pytest.mark.slow

VIEWER_TOKEN = "viewer-token-0123456789abcdef"
ADMIN_TOKEN = "admin-token-0123456789abcdef"
TOKENS = {
    VIEWER_TOKEN: {"username": "kiosk", "role": "viewer"},
    ADMIN_TOKEN: {"username": "ops", "role": "admin"},
}


def serving(env, transport: str):
    return http_server({**env, "VIDEO_RESEARCH_HTTP_TOKENS": json.dumps(TOKENS)}, transport)


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("transport,path", [("http", "/mcp"), ("sse", "/sse")])
async def test_requests_without_a_valid_token_get_401(server_env, transport, path):
    import httpx2

    async with serving(server_env, transport) as (port, proc):
        url = f"http://127.0.0.1:{port}{path}"
        async with httpx2.AsyncClient() as http:
            said = {}
            for headers, reason in (
                ({}, "missing"),
                (_auth("not-a-token-at-all"), "invalid"),
                ({"Authorization": ADMIN_TOKEN}, "missing"),  # not the Bearer scheme
            ):
                response = await http.post(url, json={}, headers=headers)
                assert response.status_code == 401, headers
                challenge = response.headers["www-authenticate"]
                assert challenge.startswith("Bearer")
                body = response.json()
                assert body["error"] == "invalid_token" and body["reason"] == reason
                assert ('error="invalid_token"' in challenge) is (reason != "missing")
                assert "not-a-token-at-all" not in response.text
                assert ADMIN_TOKEN not in response.text
                said[reason] = body["error_description"]
    assert said["missing"].startswith("No bearer token was sent")
    assert "VIDEO_RESEARCH_HTTP_TOKENS" in said["missing"]
    assert said["invalid"].startswith("The bearer token is not valid for this server")
    assert ADMIN_TOKEN.encode() not in proc.stderr.read()


async def test_http_token_names_the_caller(server_env):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with serving(server_env, "http") as (port, proc):
        url = f"http://127.0.0.1:{port}/mcp"
        async with (
            create_mcp_http_client(headers=_auth(VIEWER_TOKEN)) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as viewer,
        ):
            await viewer.initialize()
            assert not (await viewer.call_tool("catalog_search", {"q": "x"})).is_error
            denied = await viewer.call_tool(
                "catalog_add", {"video_id": "dQw4w9WgXcQ", "title": "A video"}
            )
            assert (
                tool_json(denied)["category"] == "forbidden"
                and "kiosk" in tool_json(denied)["error"]
            )
        async with (
            create_mcp_http_client(headers=_auth(ADMIN_TOKEN)) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as admin,
        ):
            await admin.initialize()
            added = await admin.call_tool(
                "catalog_add", {"video_id": "dQw4w9WgXcQ", "title": "A video"}
            )
            assert not added.is_error, added.content
            entries = tool_json(await admin.call_tool("audit_log", {}))["entries"]
            assert [(e["tool"], e["username"], e["role"], e["ok"]) for e in entries] == [
                ("catalog_add", "ops", "admin", True),
                ("catalog_add", "kiosk", "viewer", False),
            ]
    assert VIEWER_TOKEN.encode() not in proc.stderr.read()


async def test_sse_token_names_the_caller(server_env):
    from mcp import ClientSession
    from mcp.client.sse import sse_client

    async with (
        serving(server_env, "sse") as (port, _),
        sse_client(f"http://127.0.0.1:{port}/sse", headers=_auth(VIEWER_TOKEN)) as streams,
        ClientSession(*streams) as session,
    ):
        await session.initialize()
        assert not (await session.call_tool("playlist_list", {})).is_error
        denied = await session.call_tool("playlist_create", {"name": "x", "video_ids": ["a"]})
        assert tool_json(denied)["category"] == "forbidden"

"""OAuth 2.1 on `serve --transport http|sse`: the server as a resource server, against a
real authorization server (oidc-provider, tests/fixtures/oauth.py).

Valid tokens reach the tools with the role their scopes grant; expired, wrong-audience,
wrong-issuer and forged tokens get 401 with the spec's WWW-Authenticate header and never
reach a tool; static tokens keep working beside OAuth.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.helpers import http_server, tool_json

pytestmark = pytest.mark.slow

STATIC_ADMIN = "static-admin-token-0123456789"


def oauth_env(env, issuer: str) -> dict[str, str]:
    return {
        **env,
        "VIDEO_RESEARCH_OAUTH_ISSUER": issuer,
        "VIDEO_RESEARCH_HTTP_TOKENS": json.dumps(
            {STATIC_ADMIN: {"username": "ops", "role": "admin"}}
        ),
    }


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def call_as(url: str, token: str, tool: str, arguments: dict):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with (
        create_mcp_http_client(headers=bearer(token)) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return await session.call_tool(tool, arguments)


def forged_token(resource: str, issuer: str) -> str:
    """A well-formed RS256 access token with the right claims, signed by a key of ours."""
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = int(time.time())
    claims = {
        "iss": issuer,
        "aud": resource,
        "sub": "mallory",
        "client_id": "mcp-test",
        "scope": "video-research:admin",
        "iat": now,
        "exp": now + 600,
    }
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": "keystore-CHANGE-ME"})


async def test_protected_resource_metadata_and_401_headers(server_env, authorization_server):
    import httpx2

    async with http_server(oauth_env(server_env, authorization_server.issuer)) as (port, _):
        base = f"http://127.0.0.1:{port}"
        async with httpx2.AsyncClient() as http:
            for path in (
                "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-protected-resource",
            ):
                metadata = (await http.get(base + path)).json()
                assert metadata["resource"] == f"{base}/mcp"
                assert metadata["authorization_servers"] == [authorization_server.issuer]
                assert set(metadata["scopes_supported"]) == {
                    "video-research:viewer",
                    "video-research:blessed",
                    "video-research:admin",
                }
            response = await http.post(f"{base}/mcp", json={})
            assert response.status_code == 401
            challenge = response.headers["www-authenticate"]
            assert challenge.startswith("Bearer ")
            assert (
                f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"' in challenge
            )


async def test_token_scopes_become_the_callers_role(server_env, authorization_server):
    async with http_server(oauth_env(server_env, authorization_server.issuer)) as (port, proc):
        url = f"http://127.0.0.1:{port}/mcp"
        viewer = authorization_server.token(url, "video-research:viewer")
        denied = await call_as(
            url, viewer, "catalog_add", {"video_id": "dQw4w9WgXcQ", "title": "A"}
        )
        assert tool_json(denied)["category"] == "forbidden"
        assert "mcp-test" in tool_json(denied)["error"]
        admin = authorization_server.token(url, "video-research:viewer video-research:admin")
        added = await call_as(url, admin, "catalog_add", {"video_id": "dQw4w9WgXcQ", "title": "A"})
        assert not added.is_error, added.content
        # the static token keeps working beside OAuth
        entries = tool_json(await call_as(url, STATIC_ADMIN, "audit_log", {}))["entries"]
        assert [(e["username"], e["role"], e["ok"]) for e in entries] == [
            ("mcp-test", "admin", True),
            ("mcp-test", "viewer", False),
        ]
    stderr = proc.stderr.read()
    assert viewer.encode() not in stderr and admin.encode() not in stderr


async def test_bad_tokens_get_401_and_never_reach_a_tool(
    server_env, authorization_server, foreign_authorization_server
):
    import httpx2

    async with http_server(oauth_env(server_env, authorization_server.issuer)) as (port, proc):
        url = f"http://127.0.0.1:{port}/mcp"
        expiring = authorization_server.token(url, "video-research:admin", client="mcp-expiring")
        bad = {
            "wrong audience": authorization_server.token(
                "http://other.example/mcp", "video-research:admin"
            ),
            "wrong issuer": foreign_authorization_server.token(url, "video-research:admin"),
            "forged": forged_token(url, authorization_server.issuer),
            "garbage": "not.a.jwt",
        }
        time.sleep(1.5)
        bad["expired"] = expiring
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        headers = {"Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient() as http:
            for why, token in bad.items():
                response = await http.post(url, json=call, headers={**headers, **bearer(token)})
                assert response.status_code == 401, why
                challenge = response.headers["www-authenticate"]
                assert 'error="invalid_token"' in challenge and "resource_metadata=" in challenge
                body = response.json()
                assert token not in response.text and token not in challenge
                if why == "expired":
                    assert body["reason"] == "expired", body
                    assert body["error_description"].startswith("The bearer token has expired at ")
                    assert authorization_server.issuer in body["error_description"]
                else:
                    assert body["reason"] == "invalid", (why, body)
                    assert "not valid for this server" in body["error_description"]
                if why == "wrong audience":
                    assert "issued for another server" in body["error_description"]
            missing = await http.post(url, json=call, headers=headers)
            assert missing.status_code == 401 and missing.json()["reason"] == "missing"
            assert "error=" not in missing.headers["www-authenticate"]
            assert "No bearer token was sent" in missing.json()["error_description"]
        entries = tool_json(await call_as(url, STATIC_ADMIN, "audit_log", {}))["entries"]
        assert entries == []
    stderr = proc.stderr.read()
    for token in bad.values():
        assert token.encode() not in stderr


async def test_a_token_without_any_of_the_scopes_gets_403(server_env, authorization_server):
    import httpx2

    async with http_server(oauth_env(server_env, authorization_server.issuer)) as (port, _):
        url = f"http://127.0.0.1:{port}/mcp"
        token = authorization_server.token(url, scope="")
        async with httpx2.AsyncClient() as http:
            response = await http.post(url, json={}, headers=bearer(token))
        assert response.status_code == 403
        challenge = response.headers["www-authenticate"]
        assert 'error="insufficient_scope"' in challenge
        assert "video-research:viewer" in challenge


async def test_sse_accepts_oauth_tokens(server_env, authorization_server):
    from mcp import ClientSession
    from mcp.client.sse import sse_client

    async with http_server(oauth_env(server_env, authorization_server.issuer), "sse") as (
        port,
        _,
    ):
        url = f"http://127.0.0.1:{port}/sse"
        token = authorization_server.token(url, "video-research:viewer")
        async with (
            sse_client(url, headers=bearer(token)) as streams,
            ClientSession(*streams) as session,
        ):
            await session.initialize()
            assert not (await session.call_tool("playlist_list", {})).is_error
            denied = await session.call_tool("playlist_create", {"name": "x", "video_ids": ["a"]})
            assert tool_json(denied)["category"] == "forbidden"


@pytest.mark.parametrize("value", ["{}", " { } "])
def test_empty_token_map_is_a_config_error(value):
    from video_research.config import ConfigError, load_settings

    with pytest.raises(ConfigError, match="VIDEO_RESEARCH_HTTP_TOKENS"):
        load_settings({"VIDEO_RESEARCH_HTTP_TOKENS": value})

"""HTTP hardening: Host/Origin checks on every bind, no unauthenticated admin on a public
address, and slow clients cut off."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager

import pytest

from tests.helpers import REPO_ROOT, free_port, wait_listening

pytestmark = pytest.mark.slow

TOKEN = "ops-token-0123456789abcdef"
TOKENS = json.dumps({TOKEN: {"username": "ops", "role": "admin"}})
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def spawn(env, host: str, port: int, transport: str = "http") -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "video_research", "serve", "--transport", transport]
        + ["--host", host, "--port", str(port)],
        env=dict(env),
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@asynccontextmanager
async def serving(env, host: str = "127.0.0.1", transport: str = "http"):
    port = free_port()
    proc = spawn(env, host, port, transport)
    try:
        await wait_listening(port, proc)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_public_bind_without_auth_is_refused(server_env):
    proc = spawn(server_env, "0.0.0.0", free_port())
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 2
    message = stderr.decode()
    assert "Refusing to serve on 0.0.0.0 without authentication" in message
    assert "VIDEO_RESEARCH_HTTP_TOKENS" in message and "VIDEO_RESEARCH_OAUTH_ISSUER" in message


@pytest.mark.parametrize(
    "extra",
    [
        {"VIDEO_RESEARCH_HTTP_TOKENS": TOKENS},
        {"VIDEO_RESEARCH_HTTP_ALLOW_UNAUTHENTICATED": "true"},
    ],
)
async def test_public_bind_still_checks_host_and_origin(server_env, extra):
    import httpx2

    env = {**server_env, **extra, "VIDEO_RESEARCH_HTTP_ALLOWED_HOSTS": "mcp.example.com"}
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with serving(env, "0.0.0.0") as port, httpx2.AsyncClient() as http:
        url = f"http://127.0.0.1:{port}/mcp"
        evil_host = await http.post(
            url, json=INITIALIZE, headers={**ACCEPT, **auth, "Host": "evil.example"}
        )
        assert evil_host.status_code == 421
        evil_origin = await http.post(
            url, json=INITIALIZE, headers={**ACCEPT, **auth, "Origin": "http://evil.example"}
        )
        assert evil_origin.status_code == 403
        allowed = await http.post(
            url, json=INITIALIZE, headers={**ACCEPT, **auth, "Host": "mcp.example.com"}
        )
        assert allowed.status_code == 200
        loopback = await http.post(url, json=INITIALIZE, headers={**ACCEPT, **auth})
        assert loopback.status_code == 200


async def test_sse_checks_host_on_a_public_bind(server_env):
    import httpx2

    env = {**server_env, "VIDEO_RESEARCH_HTTP_TOKENS": TOKENS}
    auth = {"Authorization": f"Bearer {TOKEN}"}
    async with serving(env, "0.0.0.0", "sse") as port, httpx2.AsyncClient() as http:
        response = await http.get(
            f"http://127.0.0.1:{port}/sse", headers={**auth, "Host": "evil.example"}
        )
        assert response.status_code == 421


def test_a_viewer_only_local_role_may_serve_publicly_without_auth():
    from video_research.config import load_settings
    from video_research.server.transports import check_exposure

    check_exposure(load_settings({"VIDEO_RESEARCH_LOCAL_ROLE": "viewer"}), "0.0.0.0")
    check_exposure(load_settings({}), "127.0.0.1")


def _closed_within(sock: socket.socket, seconds: float) -> float:
    """Seconds until the server closed `sock` (recv gave b"" or a reset)."""
    started = time.monotonic()
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except ConnectionResetError:
        pass
    except TimeoutError:
        return float("inf")
    return time.monotonic() - started


async def test_slow_and_idle_connections_are_closed(server_env):
    env = {
        **server_env,
        "VIDEO_RESEARCH_HTTP_HEADER_TIMEOUT": "1",
        "VIDEO_RESEARCH_HTTP_BODY_TIMEOUT": "1",
    }
    async with serving(env) as port:
        # connects and says nothing
        idle = socket.create_connection(("127.0.0.1", port))
        # slowloris: a request head that never ends, one header line at a time
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        for n in range(3):
            time.sleep(0.3)
            slow.sendall(f"X-Drip-{n}: 1\r\n".encode())
        # a body that stops halfway
        stalled = socket.create_connection(("127.0.0.1", port))
        stalled.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b'Accept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{"jsonrpc"'
        )
        for sock in (idle, slow, stalled):
            assert _closed_within(sock, 10) < 9, "the server kept a slow connection open"
            sock.close()

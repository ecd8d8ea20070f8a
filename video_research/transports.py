"""Serving the one Server over stdio, streamable HTTP or SSE.

stdio is the default and what MCP clients spawn. HTTP and SSE bind to 127.0.0.1 unless
told otherwise; binding to any other address is the user's explicit choice.

With VIDEO_RESEARCH_HTTP_TOKENS set, every HTTP request must carry
`Authorization: Bearer <token>` for one of the configured tokens, or it is answered 401
before it reaches MCP; the token's username and role become the caller (auth.py).
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

import anyio

from video_research import auth, lifecycle
from video_research.config import Settings
from video_research.server import build_server, initialization_options

logger = logging.getLogger(__name__)

DEFAULT_PORT = 8089
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


async def serve_stdio(settings: Settings) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(settings)
    async with stdio_server() as (read_stream, write_stream):
        # The SDK points fd 1 at stderr while it serves; make Python's own stdout follow,
        # so a stray print() from any library can never corrupt the protocol stream.
        sys.stdout = sys.stderr
        logger.info("video-research serving on stdio")
        await server.run(read_stream, write_stream, initialization_options(server))
    await lifecycle.leave_busy_workers()  # stdin closed: exit soon, even mid-ingest


class BearerAuth:
    """ASGI middleware: answer 401 to any HTTP request without a configured bearer token."""

    def __init__(self, app: Any, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            from starlette.datastructures import Headers

            token = auth.bearer_token(Headers(scope=scope))
            if auth.token_identity(token, self.settings) is None:
                await self._reject(
                    send,
                    "a bearer token is required"
                    if token is None
                    else "the bearer token is not valid",
                )
                return
        await self.app(scope, receive, send)

    @staticmethod
    async def _reject(send: Any, why: str) -> None:
        body = json.dumps(
            {
                "error": "unauthorized",
                "message": f"Unauthorized: {why}.",
                "hint": "Send Authorization: Bearer <token> with a token from VIDEO_RESEARCH_HTTP_TOKENS.",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="video-research"'),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _guarded(app: Any, settings: Settings, host: str) -> Any:
    if settings.token_identities:
        return BearerAuth(app, settings)
    if host not in _LOOPBACK:
        logger.warning(
            "serving on %s without VIDEO_RESEARCH_HTTP_TOKENS: anyone who can reach it acts as "
            "the local user (%s)",
            host,
            settings.local_role,
        )
    return app


def http_app(settings: Settings, host: str):
    """The streamable-HTTP ASGI app (endpoint /mcp)."""
    server = build_server(settings)
    return _guarded(server.streamable_http_app(host=host), settings, host)


def sse_app(settings: Settings, host: str):
    """The legacy SSE ASGI app (GET /sse, POST /messages/)."""
    from mcp.server.sse import SseServerTransport
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Mount, Route

    server = build_server(settings)
    security = None
    if host in _LOOPBACK:
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
    sse = SseServerTransport("/messages/", security_settings=security)

    async def handle_sse(request):
        async with sse.connect_sse(request.scope, request.receive, request._send) as (read, write):
            await server.run(read, write, initialization_options(server))
        return Response()

    app = Starlette(
        routes=[
            Route("/sse", endpoint=handle_sse, methods=["GET"]),
            Mount("/messages/", app=sse.handle_post_message),
        ]
    )
    return _guarded(app, settings, host)


async def serve_http(settings: Settings, transport: str, host: str, port: int) -> None:
    import uvicorn

    app = http_app(settings, host) if transport == "http" else sse_app(settings, host)
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", access_log=False, lifespan="on"
    )
    logger.info(
        "video-research serving %s on http://%s:%d%s",
        transport,
        host,
        port,
        "/mcp" if transport == "http" else "/sse",
    )
    await uvicorn.Server(config).serve()


def run(
    settings: Settings, transport: str = "stdio", host: str = "127.0.0.1", port: int = DEFAULT_PORT
) -> None:
    if transport == "stdio":
        anyio.run(serve_stdio, settings)
    else:
        anyio.run(serve_http, settings, transport, host, port)

"""Serving the one Server over stdio, streamable HTTP or SSE.

stdio is the default and what MCP clients spawn. HTTP and SSE bind to 127.0.0.1 unless
told otherwise; binding to any other address is the user's explicit choice.
"""

from __future__ import annotations

import logging
import sys

import anyio

from video_research.config import Settings
from video_research.server import build_server, initialization_options

logger = logging.getLogger(__name__)

DEFAULT_PORT = 8089


async def serve_stdio(settings: Settings) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(settings)
    async with stdio_server() as (read_stream, write_stream):
        # The SDK points fd 1 at stderr while it serves; make Python's own stdout follow,
        # so a stray print() from any library can never corrupt the protocol stream.
        sys.stdout = sys.stderr
        logger.info("video-research serving on stdio")
        await server.run(read_stream, write_stream, initialization_options(server))


def http_app(settings: Settings, host: str):
    """The streamable-HTTP ASGI app (endpoint /mcp)."""
    server = build_server(settings)
    return server.streamable_http_app(host=host)


def sse_app(settings: Settings, host: str):
    """The legacy SSE ASGI app (GET /sse, POST /messages/)."""
    from mcp.server.sse import SseServerTransport
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Mount, Route

    server = build_server(settings)
    security = None
    if host in ("127.0.0.1", "localhost", "::1"):
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

    return Starlette(
        routes=[
            Route("/sse", endpoint=handle_sse, methods=["GET"]),
            Mount("/messages/", app=sse.handle_post_message),
        ]
    )


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

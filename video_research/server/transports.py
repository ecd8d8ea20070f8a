"""Serving the one Server over stdio, streamable HTTP or SSE.

stdio is the default and what MCP clients spawn. HTTP and SSE bind to 127.0.0.1 unless
told otherwise, and on every bind:

- Host and Origin are checked (DNS rebinding): loopback names, the bound address and
  VIDEO_RESEARCH_HTTP_ALLOWED_HOSTS / _ORIGINS; anything else is 421 / 403.
- With VIDEO_RESEARCH_HTTP_TOKENS or VIDEO_RESEARCH_OAUTH_ISSUER set, every request to
  the MCP endpoints needs `Authorization: Bearer <token>` (oauth.py); without one it is
  answered 401 with `WWW-Authenticate: Bearer ... resource_metadata="..."` before it
  reaches MCP. OAuth adds the protected-resource metadata (RFC 9728) at
  /.well-known/oauth-protected-resource[/mcp].
- Without any of them, a non-loopback bind is refused when the local role can write
  (blessed or admin), unless VIDEO_RESEARCH_HTTP_ALLOW_UNAUTHENTICATED says so.
- Slow clients are cut off: a request head must arrive within
  VIDEO_RESEARCH_HTTP_HEADER_TIMEOUT, each piece of a body within
  VIDEO_RESEARCH_HTTP_BODY_TIMEOUT, and idle keep-alive connections close after
  VIDEO_RESEARCH_HTTP_KEEPALIVE.
- Streamable HTTP keeps its events (event_store.py) so a client that reconnects with
  Last-Event-ID gets what it missed; every stream starts with a priming event carrying
  `retry` (VIDEO_RESEARCH_HTTP_RETRY_MS).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import os
import sys
from typing import Any

import anyio

from video_research.config import ConfigError, Settings
from video_research.server.app import build_server, initialization_options
from video_research.server.http_json import send_json
from video_research.support.memory import freeze_start_up_heap

logger = logging.getLogger(__name__)

DEFAULT_PORT = 8089
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]", "127.0.0.1:*", "localhost:*", "[::1]:*"]
_LOOPBACK_ORIGINS = [
    "http://127.0.0.1",
    "http://localhost",
    "http://[::1]",
    "http://127.0.0.1:*",
    "http://localhost:*",
    "http://[::1]:*",
]


async def serve_stdio(settings: Settings) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(settings)
    freeze_start_up_heap()
    async with stdio_server() as (read_stream, write_stream):
        # The SDK points fd 1 at stderr while it serves; make Python's own stdout follow,
        # so a stray print() from any library can never corrupt the protocol stream.
        sys.stdout = sys.stderr
        logger.info("video-research serving on stdio")
        await server.run(read_stream, write_stream, initialization_options(server))
    await leave_busy_workers()  # stdin closed: exit soon, even mid-ingest


WORKER_GRACE_SECONDS = 3.0
"""How long a stopping server waits for worker threads still busy with cancelled work."""


async def leave_busy_workers(grace: float = WORKER_GRACE_SECONDS) -> None:
    """Once the server has stopped: wait at most `grace` seconds for worker threads, then
    end the process without them.

    A cancelled call's worker thread (a document being extracted or embedded) cannot be
    stopped and may run for minutes, and asyncio waits for every worker thread before
    the process may exit, so a client that closed stdin mid-ingest kept the server
    alive long after (81 s, or more). The work such a thread does is either committed in
    one SQLite transaction or not at all, and an uncommitted transaction is rolled back
    when the database is next opened, so leaving it stores nothing partial.
    """
    loop = asyncio.get_running_loop()
    try:
        await asyncio.wait_for(asyncio.shield(loop.shutdown_default_executor()), grace)
    except TimeoutError:
        logger.warning(
            "worker threads still busy %.0f s after the server stopped: exiting without them "
            "(their unfinished work is not stored)",
            grace,
        )
        logging.shutdown()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(0)


# ---------------------------------------------------------------- who may connect


def is_loopback(host: str) -> bool:
    if host in _LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def auth_configured(settings: Settings) -> bool:
    return bool(settings.token_identities or settings.oauth_issuer)


def check_exposure(settings: Settings, host: str) -> None:
    """Refuse to serve a writable local role without auth on a non-loopback address."""
    if is_loopback(host) or auth_configured(settings):
        return
    if settings.local_role == "viewer":
        logger.warning(
            "serving on %s without tokens or OAuth: anyone who can reach it reads as a viewer",
            host,
        )
        return
    if settings.http_allow_unauthenticated:
        logger.warning(
            "serving on %s without tokens or OAuth: anyone who can reach it acts as the local "
            "user (%s) because VIDEO_RESEARCH_HTTP_ALLOW_UNAUTHENTICATED is set",
            host,
            settings.local_role,
        )
        return
    raise ConfigError(
        f"Refusing to serve on {host} without authentication: every caller would act as the "
        f"local user ({settings.local_role}). Set VIDEO_RESEARCH_HTTP_TOKENS or "
        "VIDEO_RESEARCH_OAUTH_ISSUER, bind to 127.0.0.1, set VIDEO_RESEARCH_LOCAL_ROLE=viewer, "
        "or set VIDEO_RESEARCH_HTTP_ALLOW_UNAUTHENTICATED=true if this network is trusted."
    )


def transport_security(settings: Settings, host: str) -> Any:
    """Host/Origin checking for every bind: loopback, the bound address, and the allow lists."""
    from mcp.server.transport_security import TransportSecuritySettings

    hosts = list(_LOOPBACK_HOSTS)
    origins = list(_LOOPBACK_ORIGINS)
    if not is_loopback(host) and host not in ("0.0.0.0", "::", ""):
        bound = f"[{host}]" if ":" in host else host
        hosts += [bound, f"{bound}:*"]
        origins += [
            f"http://{bound}",
            f"http://{bound}:*",
            f"https://{bound}",
            f"https://{bound}:*",
        ]
    hosts += settings.http_allowed_hosts
    origins += settings.http_allowed_origins
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def resource_url(settings: Settings, host: str, port: int, path: str) -> str:
    """This server's OAuth resource identifier (the audience its tokens must carry)."""
    if settings.oauth_resource:
        return settings.oauth_resource
    if settings.oauth_issuer and not is_loopback(host):
        raise ConfigError(
            "VIDEO_RESEARCH_OAUTH_RESOURCE must be set to the URL clients use to reach this "
            f"server (e.g. https://mcp.example.com{path}) when serving OAuth on {host}."
        )
    name = "127.0.0.1" if host in ("localhost", "") else host
    name = f"[{name}]" if ":" in name else name
    return f"http://{name}:{port}{path}"


# ---------------------------------------------------------------- authentication


class RoleGate:
    """After RequireToken (token_gate.py): a valid token whose scopes grant no role is
    answered 403 insufficient_scope, naming the scopes that would."""

    def __init__(self, app: Any, scopes: list[str], metadata_url: str | None) -> None:
        self.app = app
        self.scopes = scopes
        self.metadata_url = metadata_url

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        user = scope.get("user")
        claims = getattr(getattr(user, "access_token", None), "claims", None) or {}
        if scope["type"] == "http" and claims.get("role") is None:
            parts = [
                'error="insufficient_scope"',
                'error_description="The token grants none of this server\'s roles"',
                f'scope="{" ".join(self.scopes)}"',
            ]
            if self.metadata_url:
                parts.append(f'resource_metadata="{self.metadata_url}"')
            await send_json(
                send,
                403,
                {
                    "error": "insufficient_scope",
                    "error_description": f"The token needs one of the scopes {', '.join(self.scopes)}.",
                },
                [(b"www-authenticate", ("Bearer " + ", ".join(parts)).encode())],
            )
            return
        await self.app(scope, receive, send)


def _protected(app: Any, settings: Settings, verifier: Any, metadata_url: str | None) -> Any:
    """`app` behind the bearer-token pieces (401 + WWW-Authenticate saying why, see
    token_gate.py) and the role gate."""
    from starlette.middleware.authentication import AuthenticationMiddleware

    from video_research.server.token_gate import ExplainingBearerBackend, RequireToken

    gated = RoleGate(app, sorted(settings.scope_roles), metadata_url)
    required = RequireToken(gated, settings, metadata_url)
    return AuthenticationMiddleware(required, backend=ExplainingBearerBackend(verifier))


def _metadata_routes(settings: Settings, resource: str) -> tuple[list[Any], str | None]:
    """RFC 9728 protected-resource metadata (OAuth only), at the path-suffixed URL the SDK
    builds and at the bare /.well-known/oauth-protected-resource."""
    if not settings.oauth_issuer:
        return [], None
    from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
    from mcp.server.auth.routes import build_resource_metadata_url, cors_middleware
    from mcp.shared.auth import ProtectedResourceMetadata
    from pydantic import AnyHttpUrl
    from starlette.routing import Route

    # Strings, so the model keeps an issuer without a path exactly as configured (no "/"
    # appended): RFC 8414 compares issuers as exact strings.
    metadata = ProtectedResourceMetadata.model_validate(
        {
            "resource": resource,
            "authorization_servers": [settings.oauth_issuer],
            "scopes_supported": sorted(settings.scope_roles),
            "resource_name": "video-research",
        }
    )
    handler = cors_middleware(ProtectedResourceMetadataHandler(metadata).handle, ["GET", "OPTIONS"])
    metadata_url = str(build_resource_metadata_url(AnyHttpUrl(resource)))
    paths = dict.fromkeys(
        [
            "/.well-known/oauth-protected-resource" + _path_of(resource),
            "/.well-known/oauth-protected-resource",
        ]
    )
    routes = [Route(path, endpoint=handler, methods=["GET", "OPTIONS"]) for path in paths]
    return routes, metadata_url


def _path_of(url: str) -> str:
    from urllib.parse import urlsplit

    path = urlsplit(url).path
    return "" if path in ("", "/") else path


# ---------------------------------------------------------------- slow clients


class BodyTimeout:
    """ASGI middleware: drop a request whose body stalls for `seconds` between pieces.

    Only while a body is still arriving: once it is complete, `receive` waits for the
    client to go away as long as a stream stays open (an SSE stream may live for hours).
    """

    def __init__(self, app: Any, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body_done = scope.get("method") in ("GET", "HEAD", "DELETE", "OPTIONS")

        async def timed_receive() -> dict[str, Any]:
            nonlocal body_done
            if body_done:
                return await receive()
            with anyio.move_on_after(self.seconds) as waited:
                message = await receive()
            if waited.cancelled_caught:
                logger.info("dropping a request whose body stalled for %.0f s", self.seconds)
                body_done = True
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
            return message

        await self.app(scope, timed_receive, send)


def timed_protocol(header_seconds: float) -> type:
    """uvicorn's h11 protocol with a deadline for the request head.

    uvicorn closes idle keep-alive connections but waits forever for a request head that
    trickles in (slowloris) or never comes. This closes a connection whose head is not
    complete `header_seconds` after it opened, or after its last response.
    """
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadTimeoutH11Protocol(H11Protocol):
        _head_timer: Any = None

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm_head_timer()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._disarm_head_timer()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm_head_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_head_timer()
            super().connection_lost(exc)

        def _arm_head_timer(self) -> None:
            self._disarm_head_timer()
            self._head_timer = self.loop.call_later(header_seconds, self._head_timed_out)

        def _disarm_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timed_out(self) -> None:
            self._head_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                logger.info("closing a connection that sent no complete request in time")
                self.transport.close()

    return HeadTimeoutH11Protocol


# ---------------------------------------------------------------- the apps


def http_app(settings: Settings, host: str, port: int = DEFAULT_PORT) -> Any:
    """The streamable-HTTP ASGI app (endpoint /mcp), resumable, behind auth when set."""
    from mcp.server.streamable_http_manager import (
        StreamableHTTPASGIApp,
        StreamableHTTPSessionManager,
    )
    from starlette.applications import Starlette
    from starlette.routing import Route

    from video_research.server import oauth
    from video_research.server.event_store import SessionKeys, SqliteEventStore

    server = build_server(settings)
    event_store = None
    if settings.http_event_store_max_events > 0:
        event_store = SqliteEventStore(settings.http_event_db, settings.http_event_store_max_events)
    manager = StreamableHTTPSessionManager(
        app=server,
        event_store=event_store,
        retry_interval=settings.http_retry_ms if event_store is not None else None,
        security_settings=transport_security(settings, host),
    )
    endpoint: Any = StreamableHTTPASGIApp(manager)
    resource = resource_url(settings, host, port, "/mcp")
    routes, metadata_url = _metadata_routes(settings, resource)
    verifier = oauth.verifier_for(settings, resource)
    if verifier is not None:
        endpoint = _protected(endpoint, settings, verifier, metadata_url)
    endpoint = SessionKeys(BodyTimeout(endpoint, settings.http_body_timeout_seconds))
    routes.append(Route("/mcp", endpoint=endpoint))
    return Starlette(routes=routes, lifespan=lambda app: manager.run())


def sse_app(settings: Settings, host: str, port: int = DEFAULT_PORT) -> Any:
    """The legacy SSE ASGI app (GET /sse, POST /messages/), behind auth when set."""
    from mcp.server.sse import SseServerTransport
    from starlette.applications import Starlette
    from starlette.routing import Mount, Route

    from video_research.server import oauth

    server = build_server(settings)
    sse = SseServerTransport("/messages/", security_settings=transport_security(settings, host))

    async def handle_sse(scope: Any, receive: Any, send: Any) -> None:
        async with sse.connect_sse(scope, receive, send) as (read, write):
            await server.run(read, write, initialization_options(server))

    timeout = settings.http_body_timeout_seconds
    inner: Any = Starlette(
        routes=[
            Route("/sse", endpoint=BodyTimeout(handle_sse, timeout), methods=["GET"]),
            Mount("/messages/", app=BodyTimeout(sse.handle_post_message, timeout)),
        ]
    )
    resource = resource_url(settings, host, port, "/sse")
    routes, metadata_url = _metadata_routes(settings, resource)
    verifier = oauth.verifier_for(settings, resource)
    if verifier is not None:
        inner = _protected(inner, settings, verifier, metadata_url)
    return Starlette(routes=[*routes, Mount("/", app=inner)])


class Drain:
    """ASGI middleware: counts the requests being answered and, once the server drains,
    refuses new work (503) while letting the calls in flight finish.

    A streamable-HTTP tool call is one POST whose response ends with the call's result,
    so "POSTs in flight" are the calls a graceful shutdown waits for. GETs (the event
    streams a session keeps open) and subscriptions/listen POSTs (2026-07-28's event
    streams) are not counted: they never end by themselves. While
    draining, a POST that starts new work (a tool call, a new session) is refused; the
    rest (responses, notifications, tools/list, ping) is let through: a call in flight
    may wait on the client's answer (its roots), and the client on a tools/list to check
    the call's result.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.in_flight = 0
        self.draining = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            if self.draining and scope["type"] == "http":
                await _refuse(send)
                return
            await self.app(scope, receive, send)
            return
        if _is_listen(scope):
            # A 2026-07-28 subscriptions/listen stream: like a GET stream it never ends by
            # itself, so a drain does not wait for it (it ends with the other streams).
            if self.draining:
                await _refuse(send)
                return
            await self.app(scope, receive, send)
            return
        if self.draining:
            body, receive = await _buffered(receive)
            if _starts_work(body):
                await _refuse(send)
                return
        self.in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1


async def _buffered(receive: Any) -> tuple[bytes, Any]:
    """The request body read whole, and a `receive` that hands it to the app again."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Any:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay


def _is_listen(scope: Any) -> bool:
    """A POST opening a subscriptions/listen stream, by its `Mcp-Method` header (which
    2026-07-28 requires and the SDK checks against the body)."""
    return any(
        name == b"mcp-method" and value.strip() == b"subscriptions/listen"
        for name, value in scope.get("headers", ())
    )


_NEW_WORK = frozenset({"tools/call", "initialize"})
"""What a draining server refuses. Everything else is quick and may be what a call in
flight waits on: the SDK's client lists the tools again to check a call's result."""


def _starts_work(body: bytes) -> bool:
    try:
        parsed = json.loads(body or b"null")
    except ValueError:
        return True
    messages = parsed if isinstance(parsed, list) else [parsed]
    return any(isinstance(m, dict) and m.get("method") in _NEW_WORK for m in messages)


async def _refuse(send: Any) -> None:
    await send_json(
        send,
        503,
        {
            "error": "shutting_down",
            "error_description": "The server is shutting down; retry against its replacement.",
        },
        [(b"retry-after", b"5"), (b"connection", b"close")],
    )


def _draining_server(config: Any, drain: Drain, drain_seconds: float) -> Any:
    """uvicorn's Server with a drain first: on SIGTERM it refuses new calls and sessions,
    waits up to `drain_seconds` for the calls in flight, and only then lets the open
    event streams end and uvicorn shut down (closing the listener).

    sse-starlette (the SDK's SSE responses) would otherwise end every open stream the
    moment uvicorn sees the signal, a call's result stream included: the client then
    loses the answer to a call that went on to commit.
    """
    import time

    import uvicorn
    from sse_starlette.sse import AppStatus

    AppStatus.disable_automatic_graceful_drain()

    class DrainingServer(uvicorn.Server):
        async def shutdown(self, sockets: Any = None) -> None:
            drain.draining = True  # the listener stays open: a call may await a reply
            deadline = time.monotonic() + drain_seconds
            if drain.in_flight:
                logger.info("draining: %d call(s) in flight", drain.in_flight)
            while drain.in_flight and time.monotonic() < deadline and not self.force_exit:
                await asyncio.sleep(0.05)
            if drain.in_flight:
                logger.warning(
                    "drain timeout (%.0f s): %d call(s) still running are cancelled",
                    drain_seconds,
                    drain.in_flight,
                )
            AppStatus.should_exit = True  # the idle event streams may end now
            await super().shutdown(sockets)

    return DrainingServer(config)


async def serve_http(settings: Settings, transport: str, host: str, port: int) -> None:
    import uvicorn

    check_exposure(settings, host)
    app = http_app(settings, host, port) if transport == "http" else sse_app(settings, host, port)
    drain = Drain(app)
    freeze_start_up_heap()
    config = uvicorn.Config(
        drain,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on",
        http=timed_protocol(settings.http_header_timeout_seconds),
        timeout_keep_alive=settings.http_keepalive_seconds,
        # After the drain (calls in flight had drain_seconds to finish; each store write
        # is one transaction, so a call cut off commits nothing), what is still open gets
        # this long to close before it is cancelled.
        timeout_graceful_shutdown=3,
    )
    logger.info(
        "video-research serving %s on http://%s:%d%s%s",
        transport,
        host,
        port,
        "/mcp" if transport == "http" else "/sse",
        " (bearer tokens required)" if auth_configured(settings) else "",
    )
    await _draining_server(config, drain, settings.drain_seconds).serve()


def run(
    settings: Settings, transport: str = "stdio", host: str = "127.0.0.1", port: int = DEFAULT_PORT
) -> None:
    if transport == "stdio":
        anyio.run(serve_stdio, settings)
    else:
        check_exposure(settings, host)
        anyio.run(serve_http, settings, transport, host, port)

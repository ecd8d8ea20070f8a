"""The MCP server: one low-level `Server`, its handlers routed through the dispatch table.

`tools/list` publishes each enabled tool with its schemas/ contracts as inputSchema and
outputSchema. `tools/call` resolves the caller, runs the call through
`dispatch.call` and wraps the outcome: a result as structured content plus the same
JSON as text (followed by the images a handler attached, as image content), an error as `isError` with the ToolError JSON as its one text content.
An unknown tool is a JSON-RPC invalid-params error; a tool of the table that the list here
does not show answers as a `not_found` tool result whose hint is the call that reaches it
(tool_call, toolset_enable in a handshake-era session, or the setting that serves it).

Resources, prompts and completions are served from their own modules, so later features
plug in there without touching this file.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from video_research import __version__
from video_research.config import Settings
from video_research.handlers.context import CallContext
from video_research.server import apps, auth, client_logging, tool_listing
from video_research.support import printable
from video_research.support.services import Services, current_services, use_services
from video_research.tools import dispatch, toolsets

logger = logging.getLogger(__name__)

INSTRUCTIONS = (
    "video-research: tools to analyse videos with Gemini (YouTube URLs or local files), read YouTube "
    "metadata and playlists, run evidence-tiered research, analyse and extract from content, search "
    "the web, search a knowledge base that every result is written to, and manage a channel's video "
    "catalog, playlists, marathons and watch queue (roles viewer/blessed/admin). Failed calls return a "
    "JSON ToolError with category, hint and retryable."
)
TOOLSETS_INSTRUCTIONS = (
    " Only part of the tools is listed: tool_search finds any tool this server serves by what "
    "you need, tool_describe gives its schemas and tool_call runs it, on every protocol "
    "revision. In a session of MCP 2025-11-25 or older, toolset_enable also lists a toolset "
    "for that session."
)


def tool_result(outcome: dispatch.Outcome) -> types.CallToolResult:
    if outcome.error is not None:
        payload, text = _encodable_json(outcome.error.to_json_dict())
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=True
        )
    result, text = _encodable_json(outcome.result or {})
    content: list[Any] = [types.TextContent(type="text", text=text)]
    content.extend(
        types.ImageContent(
            type="image",
            data=base64.b64encode(image.data).decode("ascii"),
            mime_type=image.mime_type,
        )
        for image in outcome.images
    )
    return types.CallToolResult(content=content, structured_content=result)


def _encodable_json(payload: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """(payload, its JSON text), both encodable as UTF-8 whatever strings they hold.

    A file name that is not UTF-8 reaches a result as a str with lone surrogates, which
    the SDK's stdout writer (and the HTTP response) cannot encode: on stdio that killed
    the server. Such strings are escaped here, once for every tool (see printable.py);
    a result without them is passed through after one encode check.
    """
    text = json.dumps(payload, ensure_ascii=False, default=str)
    if not printable.is_encodable(text):
        payload = printable.data(payload)
        text = json.dumps(payload, ensure_ascii=False, default=str)
    return payload, text


ROOTS_INPUT = "roots"
"""The key of the client's roots in an input-required round trip (2026-07-28)."""

LOCAL_PATH_ARGUMENTS = frozenset({"path", "paths", "file_path", "file_paths", "directory"})
"""The argument names through which a tool is given local files (docs/security.md)."""


def _names_local_path(arguments: Any) -> bool:
    """Whether a call's arguments name a local file (also inside tool_call's `arguments`):
    the calls for which a 2026-07-28 client that shares roots is asked for them."""
    if not isinstance(arguments, dict):
        return False
    if any(arguments.get(name) for name in LOCAL_PATH_ARGUMENTS):
        return True
    return _names_local_path(arguments.get("arguments"))


def _declares_roots(session: Any) -> bool:
    try:
        return session.check_client_capability(
            types.ClientCapabilities(roots=types.RootsCapability())
        )
    except Exception:  # a session that cannot say: treated as declaring none
        return False


def _meta_dict(meta: Any) -> dict[str, Any]:
    if meta is None:
        return {}
    if isinstance(meta, dict):
        return meta
    if hasattr(meta, "model_dump"):
        return meta.model_dump(by_alias=True, exclude_none=True)
    return dict(meta)


class VideoResearchServer(Server):
    """The SDK's low-level Server, advertising the same capabilities on every transport.

    The streamable-HTTP session manager asks the server for its initialization options
    itself, with no notification options, so the list-changed flags are the server's
    own defaults here rather than an argument only stdio and SSE pass.
    """

    notification_options = NotificationOptions(resources_changed=True, tools_changed=True)

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        return super().create_initialization_options(
            notification_options or self.notification_options,
            experimental_capabilities,
            extensions,
        )

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        capabilities = super().get_capabilities(
            notification_options or self.notification_options,
            experimental_capabilities,
            extensions,
            protocol_version=protocol_version,
        )
        if protocol_version in MODERN_PROTOCOL_VERSIONS:
            # 2026-07-28 has no logging/setLevel (the SDK answers it as an unknown method
            # there): a client asks for log messages per request, in `_meta`, which works
            # without the capability. Declaring it would promise a method that is not there.
            capabilities = capabilities.model_copy(update={"logging": None})
        return capabilities


LIST_TTL_MS = 300_000
"""How long a client may reuse a list (five minutes): the lists change only when the
server restarts with other settings, which a client notices within this time."""

LIST_CACHE_HINTS: dict[str, CacheHint] = {
    method: CacheHint(ttl_ms=LIST_TTL_MS, scope="public")
    for method in (
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
        "server/discover",
    )
}
"""The cache hints (2026-07-28) of every list: each is the same for every request and every
caller of one server configuration (roles apply to calls, not to what is listed), so a
cache may share it ("public"). A 2025-11-25 session that turned toolsets on has a list of
its own; that revision carries no hints. resources/read has none: the queue changes."""

START_PROGRESS_DELAY = 0.5
"""Seconds a call may run before it reports progress 0 itself (see CallContext.announce_start)."""


def _one_page(handler: Any) -> Any:
    """A list handler that answers an unknown cursor with invalid params (-32602).

    Every list fits one page, so no cursor this server hands out exists: a client that
    sends one has it from somewhere else and must start again without it.
    """

    async def listing(ctx: Any, params: Any) -> Any:
        cursor = getattr(params, "cursor", None)
        if cursor is not None:
            raise MCPError(
                types.INVALID_PARAMS,
                f"Invalid cursor {cursor[:64]!r}: this server answers every list in one page; "
                "call again without a cursor.",
            )
        return await handler(ctx, params)

    return listing


def _serving(services: Services, handler: Any) -> Any:
    """`handler` with `services` in force while it runs: resources, prompts and
    completions read shared resources outside any tool call."""

    async def within(*args: Any) -> Any:
        with use_services(services):
            return await handler(*args)

    return within


def build_server(settings: Settings | None = None, services: Services | None = None) -> Server:
    """The server for `settings` (the live config when omitted) and `services` (the
    Services in force when omitted: `default_services()`, which follow the live
    config, unless a caller put others in force with `use_services`).

    Every call context carries these services, and the server's lifespan closes them:
    the one shutdown path of every shared resource.
    """
    services = services or current_services()
    settings = settings or services.settings
    dispatch.enabled_tools(settings)  # a bad VIDEO_RESEARCH_TOOLSETS fails here, not per call

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        specs = toolsets.visible_specs(services.settings, toolsets.of(ctx.session))
        # The views' links are always there (a host without MCP Apps ignores `_meta.ui`),
        # so the list is one per configuration: what a shared cache needs.
        return types.ListToolsResult(tools=apps.with_views(tool_listing.definitions(specs)))

    async def call_tool(
        ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        live = services.settings
        listed = toolsets.of(ctx.session)
        stateless = toolsets.is_stateless(ctx.session)
        spec = toolsets.lookup(params.name, live, listed)
        if spec is None:
            if params.name in dispatch.TOOLS:
                error = toolsets.off_tool_error(params.name, live, listed, stateless=stateless)
                return tool_result(dispatch.Outcome(error=error))
            raise MCPError(
                types.INVALID_PARAMS,
                toolsets.unknown_tool_message(params.name, live, listed, stateless=stateless),
            )
        answered_roots = None
        if stateless and _names_local_path(params.arguments) and _declares_roots(ctx.session):
            answer = (params.input_responses or {}).get(ROOTS_INPUT)
            if not isinstance(answer, types.ListRootsResult):
                # 2026-07-28 has no roots/list request: ask inside this call, and the
                # client calls again with its roots (input-required round trip).
                return types.InputRequiredResult(
                    input_requests={ROOTS_INPUT: types.ListRootsRequest()}
                )
            answered_roots = [str(root.uri) for root in answer.roots]
        meta = _meta_dict(ctx.meta)
        identity = await auth.identity_from_request(getattr(ctx, "request", None), live)
        caller = await auth.resolve_caller(meta, live, transport_identity=identity)

        async def progress(done: float, total: float | None, message: str | None) -> None:
            await ctx.session.report_progress(
                done, total, printable.text(message) if message else message
            )

        call_ctx = CallContext(
            tool=spec.name,
            caller=caller,
            meta=meta,
            progress_fn=progress,
            session=ctx.session,
            request_id=ctx.request_id,
            services=services,
            answered_roots=answered_roots,
        )
        if meta.get("progress_token", meta.get("progressToken")) is None:
            return tool_result(await dispatch.call(spec, params.arguments, call_ctx))
        stop_timer = call_ctx.start_progress_timer(START_PROGRESS_DELAY)
        try:
            outcome = await dispatch.call(spec, params.arguments, call_ctx)
        finally:
            stop_timer()
        return tool_result(outcome)

    from video_research.server import completions, resources
    from video_research.server import prompts as mcp_prompts

    # subscriptions/listen (2026-07-28): one stream per request, fed from resources.BUS.
    listen = ListenHandler(resources.BUS, max_subscriptions=256)

    @asynccontextmanager
    async def lifespan(_: Server) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {}
        finally:
            listen.close()  # open listen streams end with their final result, not a drop
            await services.aclose()

    server = VideoResearchServer(
        "video-research",
        cache_hints=LIST_CACHE_HINTS,
        version=__version__,
        title="Video Research",
        instructions=INSTRUCTIONS
        + (TOOLSETS_INSTRUCTIONS if dispatch.dynamic_toolsets(settings) else ""),
        lifespan=lifespan,
        get_tool_input_schema=lambda name: (
            dispatch.TOOLS[name].input_schema if name in dispatch.TOOLS else None
        ),
        on_list_tools=_one_page(_serving(services, list_tools)),
        on_call_tool=_serving(services, call_tool),
        on_list_resources=_one_page(_serving(services, resources.list_resources)),
        on_list_resource_templates=_one_page(_serving(services, resources.list_resource_templates)),
        on_read_resource=_serving(services, resources.read_resource),
        on_subscribe_resource=_serving(services, resources.subscribe),
        on_unsubscribe_resource=_serving(services, resources.unsubscribe),
        on_subscriptions_listen=listen,
        on_list_prompts=_one_page(_serving(services, mcp_prompts.list_prompts)),
        on_get_prompt=_serving(services, mcp_prompts.get_prompt),
        on_completion=_serving(services, completions.complete),
    )
    # Advertised to every client (the SDK leaves it out of a handshake-era initialize
    # result, whose schema has no such field); only clients that declare it see the views.
    server.extensions[apps.EXTENSION_ID] = {}
    # Registered directly rather than as on_set_logging_level: the SDK warns that the
    # capability is deprecated for protocol 2026-07-28, but every handshake-era client
    # (2025-11-25 and older) still uses it.
    server.add_request_handler(
        "logging/setLevel", types.SetLevelRequestParams, client_logging.set_level
    )
    server.middleware.append(client_logging.SessionLogMiddleware())
    client_logging.install()
    return server


def initialization_options(server: Server):
    return server.create_initialization_options()

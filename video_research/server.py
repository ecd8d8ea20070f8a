"""The MCP server: one low-level `Server`, its handlers routed through the dispatch table.

`tools/list` publishes each enabled tool with its schemas/ contracts as inputSchema and
outputSchema. `tools/call` resolves the caller, runs the call through
`dispatch.call` and wraps the outcome: a result as structured content plus the same
JSON as text, an error as `isError` with the ToolError JSON as its one text content.
An unknown (or switched-off) tool is a JSON-RPC invalid-params error.

Resources, prompts and completions are served from their own modules, so later features
plug in there without touching this file.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.shared.exceptions import MCPError

from video_research import __version__, auth, dispatch, lifecycle, printable
from video_research.config import Settings, get_config
from video_research.context import CallContext

logger = logging.getLogger(__name__)

INSTRUCTIONS = (
    "video-research: tools to analyse videos with Gemini (YouTube URLs or local files), read YouTube "
    "metadata and playlists, run evidence-tiered research, analyse and extract from content, search "
    "the web, search a knowledge base that every result is written to, and manage a channel's video "
    "catalog, playlists, marathons and watch queue (roles viewer/blessed/admin). Failed calls return a "
    "JSON ToolError with category, hint and retryable."
)


def _tool(spec: dispatch.ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema,
        output_schema=spec.output_schema,
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent,
            open_world_hint=spec.open_world,
        ),
    )


def tool_result(outcome: dispatch.Outcome) -> types.CallToolResult:
    if outcome.error is not None:
        payload, text = _encodable_json(outcome.error.to_json_dict())
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=True
        )
    result, text = _encodable_json(outcome.result or {})
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=result
    )


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


def _meta_dict(meta: Any) -> dict[str, Any]:
    if meta is None:
        return {}
    if isinstance(meta, dict):
        return meta
    if hasattr(meta, "model_dump"):
        return meta.model_dump(by_alias=True, exclude_none=True)
    return dict(meta)


def build_server(settings: Settings | None = None) -> Server:
    """The server for `settings` (the live config when omitted)."""
    settings = settings or get_config()
    tools = [_tool(spec) for spec in dispatch.enabled_tools(settings)]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        live = get_config()
        spec = dispatch.lookup(params.name, live)
        if spec is None:
            raise MCPError(
                types.INVALID_PARAMS,
                f"Unknown tool: {params.name!r}. Call tools/list for the tools this server offers.",
            )
        meta = _meta_dict(ctx.meta)
        identity = await auth.identity_from_request(getattr(ctx, "request", None), live)
        caller = await auth.resolve_caller(meta, live, transport_identity=identity)

        async def progress(done: float, total: float | None, message: str | None) -> None:
            await ctx.session.report_progress(
                done, total, printable.text(message) if message else message
            )

        call_ctx = CallContext(
            tool=spec.name, caller=caller, meta=meta, progress_fn=progress, session=ctx.session
        )
        outcome = await dispatch.call(spec, params.arguments, call_ctx)
        return tool_result(outcome)

    from video_research import completions, mcp_prompts, resources

    @asynccontextmanager
    async def lifespan(_: Server) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {}
        finally:
            await lifecycle.shutdown()

    return Server(
        "video-research",
        version=__version__,
        title="Video Research",
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        get_tool_input_schema=lambda name: (
            dispatch.TOOLS[name].input_schema if name in dispatch.TOOLS else None
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=resources.list_resources,
        on_list_resource_templates=resources.list_resource_templates,
        on_read_resource=resources.read_resource,
        on_subscribe_resource=resources.subscribe,
        on_unsubscribe_resource=resources.unsubscribe,
        on_list_prompts=mcp_prompts.list_prompts,
        on_get_prompt=mcp_prompts.get_prompt,
        on_completion=completions.complete,
    )


def initialization_options(server: Server):
    return server.create_initialization_options(NotificationOptions(resources_changed=True))

"""The meta-tools: tool_search, tool_describe, tool_call (any served tool, no session
needed) and toolset_list, toolset_enable, toolset_disable (tools on demand, per session).

The work is in video_research/tools/toolsets.py, reached through `ctx.toolsets` (the
dispatcher's view of this client's tools); these handlers answer and, when a session's
list changed, send `notifications/tools/list_changed` on the request's own stream (so a
streamable-HTTP client gets it without a standalone GET stream).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from video_research.handlers.context import CallContext

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        ToolCallInput,
        ToolCallOutput,
        ToolDescribeInput,
        ToolDescribeOutput,
        ToolSearchInput,
        ToolSearchOutput,
        ToolsetDisableInput,
        ToolsetDisableOutput,
        ToolsetEnableInput,
        ToolsetEnableOutput,
        ToolsetListInput,
        ToolsetListOutput,
    )


async def tool_search(args: ToolSearchInput, ctx: CallContext) -> ToolSearchOutput:
    return {
        "tools": ctx.toolsets.search(args["query"], args["limit"]),
        "served": len(ctx.toolsets.served()),
    }


async def tool_describe(args: ToolDescribeInput, ctx: CallContext) -> ToolDescribeOutput:
    return cast("ToolDescribeOutput", ctx.toolsets.describe(args["name"]))


async def tool_call(args: ToolCallInput, ctx: CallContext) -> ToolCallOutput:
    result = await ctx.toolsets.call(args["name"], args.get("arguments") or {}, ctx)
    return cast("ToolCallOutput", result)


async def toolset_list(args: ToolsetListInput, ctx: CallContext) -> ToolsetListOutput:
    return {"toolsets": ctx.toolsets.overview(), "listed": ctx.toolsets.listed()}


async def toolset_enable(args: ToolsetEnableInput, ctx: CallContext) -> ToolsetEnableOutput:
    added = ctx.toolsets.enable(args["toolset"])
    if added:
        await ctx.notify_tools_changed()
    return {
        "toolset": args["toolset"],
        "state": ctx.toolsets.state_of(args["toolset"]),
        "added": added,
        "listed": ctx.toolsets.listed(),
    }


async def toolset_disable(args: ToolsetDisableInput, ctx: CallContext) -> ToolsetDisableOutput:
    removed = ctx.toolsets.disable(args["toolset"])
    if removed:
        await ctx.notify_tools_changed()
    return {
        "toolset": args["toolset"],
        "state": ctx.toolsets.state_of(args["toolset"]),
        "removed": removed,
        "listed": ctx.toolsets.listed(),
    }

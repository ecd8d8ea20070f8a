"""The meta-tools: tool_search, tool_describe, tool_call (any served tool, no session
needed) and toolset_list, toolset_enable, toolset_disable (tools on demand, per session).

The work is in video_research/tools/toolsets.py, reached through `ctx.toolsets` (the
dispatcher's view of this client's tools); these handlers answer and, when a session's
list changed, send `notifications/tools/list_changed` on the request's own stream (so a
streamable-HTTP client gets it without a standalone GET stream).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from video_research.handlers.context import CallContext

if TYPE_CHECKING:
    from video_research.handlers.context import ToolsetControl
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


def _control(ctx: CallContext) -> ToolsetControl:
    """This session's tools: the dispatcher sets them on every call it runs."""
    if ctx.toolsets is None:
        raise RuntimeError("the meta-tools run through the dispatcher, which sets ctx.toolsets")
    return ctx.toolsets


async def tool_search(args: ToolSearchInput, ctx: CallContext) -> ToolSearchOutput:
    control = _control(ctx)
    return {
        "tools": control.search(args["query"], args["limit"]),
        "served": len(control.served()),
    }


async def tool_describe(args: ToolDescribeInput, ctx: CallContext) -> ToolDescribeOutput:
    return _control(ctx).describe(args["name"])


async def tool_call(args: ToolCallInput, ctx: CallContext) -> ToolCallOutput:
    return await _control(ctx).call(args["name"], args.get("arguments") or {}, ctx)


async def toolset_list(args: ToolsetListInput, ctx: CallContext) -> ToolsetListOutput:
    control = _control(ctx)
    return {"toolsets": control.overview(), "listed": control.listed()}


async def toolset_enable(args: ToolsetEnableInput, ctx: CallContext) -> ToolsetEnableOutput:
    control = _control(ctx)
    added = control.enable(args["toolset"])
    if added:
        await ctx.notify_tools_changed()
    return {
        "toolset": args["toolset"],
        "state": control.state_of(args["toolset"]),
        "added": added,
        "listed": control.listed(),
    }


async def toolset_disable(args: ToolsetDisableInput, ctx: CallContext) -> ToolsetDisableOutput:
    control = _control(ctx)
    removed = control.disable(args["toolset"])
    if removed:
        await ctx.notify_tools_changed()
    return {
        "toolset": args["toolset"],
        "state": control.state_of(args["toolset"]),
        "removed": removed,
        "listed": control.listed(),
    }

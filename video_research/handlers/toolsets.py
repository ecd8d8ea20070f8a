"""toolset_list, toolset_enable, toolset_disable: tools on demand, per MCP session.

The work is in video_research/tools/toolsets.py; these handlers answer and, when the
session's list changed, send `notifications/tools/list_changed` on the request's own
stream (so a streamable-HTTP client gets it without a standalone GET stream).
"""

from __future__ import annotations

from typing import Any

from video_research.tools import toolsets
from video_research.tools.context import CallContext
from video_research.tools.table import TOOLS


async def toolset_list(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    settings = ctx.settings
    session_toolsets = toolsets.of(ctx.session)
    return {
        "toolsets": toolsets.overview(settings, session_toolsets),
        "listed": len(toolsets.visible_names(settings, session_toolsets)),
    }


async def toolset_enable(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    settings = ctx.settings
    session_toolsets = toolsets.of(ctx.session)
    added = toolsets.enable(settings, session_toolsets, args["toolset"])
    if added:
        await ctx.notify_tools_changed()
    visible = toolsets.visible_names(settings, session_toolsets)
    return {
        "toolset": args["toolset"],
        "state": toolsets.state_of(args["toolset"], visible),
        "added": [{"name": name, "summary": TOOLS[name].summary} for name in added],
        "listed": len(visible),
    }


async def toolset_disable(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    settings = ctx.settings
    session_toolsets = toolsets.of(ctx.session)
    removed = toolsets.disable(settings, session_toolsets, args["toolset"])
    if removed:
        await ctx.notify_tools_changed()
    visible = toolsets.visible_names(settings, session_toolsets)
    return {
        "toolset": args["toolset"],
        "state": toolsets.state_of(args["toolset"], visible),
        "removed": removed,
        "listed": len(visible),
    }

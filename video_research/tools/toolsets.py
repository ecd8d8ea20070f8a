"""Toolsets on demand: which tools one MCP session lists, and turning toolsets on and off.

A session starts with the tools VIDEO_RESEARCH_TOOLSETS names (by default the default
profile, dispatch.DEFAULT_PROFILE) plus, when dynamic toolsets are on, the meta-tools
toolset_list / toolset_enable / toolset_disable. A client turns a toolset on or off for
its own session only (stdio: the one session; HTTP and SSE: each client session); the
server then sends `notifications/tools/list_changed` and the tools appear or go.

A tool the session does not list cannot be called: the answer names the toolset that
holds it, so an agent knows what to turn on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from video_research.config import Settings
from video_research.tools import dispatch
from video_research.tools import session_state as mcp_session

_SLOT = "video_research.tools.toolsets"


@dataclass
class SessionToolsets:
    """What this session changed: toolsets turned on, toolsets turned off."""

    enabled: set[str] = field(default_factory=set)
    disabled: set[str] = field(default_factory=set)


def of(session: Any) -> SessionToolsets:
    return mcp_session.slot(session, _SLOT, SessionToolsets)


@cache
def _visible(
    base: frozenset[str], enabled: frozenset[str], disabled: frozenset[str]
) -> frozenset[str]:
    names = set(base)
    for toolset in enabled:
        names.update(dispatch.toolset_tools(toolset))
    for toolset in disabled:
        names.difference_update(dispatch.toolset_tools(toolset))
    return frozenset(names)


def visible_names(settings: Settings, toolsets: SessionToolsets) -> frozenset[str]:
    return _visible(
        dispatch.base_names(settings), frozenset(toolsets.enabled), frozenset(toolsets.disabled)
    )


def visible_specs(settings: Settings, toolsets: SessionToolsets) -> list[dispatch.ToolSpec]:
    """The tools this session lists, in dispatch-table order."""
    names = visible_names(settings, toolsets)
    return [spec for name, spec in dispatch.TOOLS.items() if name in names]


def lookup(name: str, settings: Settings, toolsets: SessionToolsets) -> dispatch.ToolSpec | None:
    """The spec of a tool this session lists, or None."""
    if name in visible_names(settings, toolsets):
        return dispatch.TOOLS[name]
    return None


def unknown_tool_message(name: str, settings: Settings) -> str:
    """Why a tool cannot be called here, and what to do about it."""
    spec = dispatch.TOOLS.get(name)
    if spec is None:
        return f"Unknown tool: {name!r}. Call tools/list for the tools this server offers."
    if dispatch.dynamic_toolsets(settings):
        return (
            f"Tool {name!r} is in toolset '{spec.toolset}', which this session has off. "
            f'Turn it on with toolset_enable {{"toolset": "{spec.toolset}"}}.'
        )
    return (
        f"Tool {name!r} is in toolset '{spec.toolset}', which this server does not list "
        "(VIDEO_RESEARCH_TOOLSETS)."
    )


def state_of(toolset: str, visible: frozenset[str]) -> str:
    tools = dispatch.toolset_tools(toolset)
    shown = sum(1 for name in tools if name in visible)
    if shown == len(tools):
        return "on"
    return "off" if shown == 0 else "partly"


def overview(settings: Settings, toolsets: SessionToolsets) -> list[dict[str, Any]]:
    """Every toolset a client can turn on or off: name, one line, state, tools."""
    visible = visible_names(settings, toolsets)
    return [
        {
            "name": name,
            "description": dispatch.toolset_description(name),
            "state": state_of(name, visible),
            "tools": dispatch.toolset_tools(name),
        }
        for name in dispatch.toolset_names()
    ]


def check_name(toolset: str) -> None:
    """invalid_input, with every toolset listed, for a name that is not a toolset."""
    from video_research.support.errors import invalid_input

    known = dispatch.toolset_names()
    if toolset not in known:
        raise invalid_input(
            f"Unknown toolset {toolset!r}. Toolsets: {', '.join(known)}.",
            hint="Call toolset_list for what each toolset holds.",
            toolsets=known,
        )


def enable(settings: Settings, toolsets: SessionToolsets, toolset: str) -> list[str]:
    """Turn `toolset` on for this session; returns the tools it added to the list."""
    check_name(toolset)
    before = visible_names(settings, toolsets)
    toolsets.disabled.discard(toolset)
    toolsets.enabled.add(toolset)
    after = visible_names(settings, toolsets)
    return [name for name in dispatch.TOOLS if name in after and name not in before]


def disable(settings: Settings, toolsets: SessionToolsets, toolset: str) -> list[str]:
    """Turn `toolset` off for this session; returns the tools it took off the list."""
    check_name(toolset)
    before = visible_names(settings, toolsets)
    toolsets.enabled.discard(toolset)
    toolsets.disabled.add(toolset)
    after = visible_names(settings, toolsets)
    return [name for name in dispatch.TOOLS if name in before and name not in after]

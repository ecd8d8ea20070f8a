"""The meta-tools: find, describe and call any tool the server serves (on every protocol
revision, with no state between requests), and turn toolsets on and off for a session
(handshake-era revisions, whose sessions keep state)."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
    # ---------------------------------------------------------------- discovery
    ToolSpec(
        name="tool_search",
        handler="toolsets:tool_search",
        toolset="toolsets",
        title="Find a tool",
        description=(
            "Search every tool this server serves, listed or not, by what you need done.\n"
            "Answers names with one line each; tool_describe gives one's schemas and "
            "tool_call runs it."
        ),
    ),
    ToolSpec(
        name="tool_describe",
        handler="toolsets:tool_describe",
        toolset="toolsets",
        title="Describe a tool",
        description=(
            "One tool's description, role, annotations and input and output JSON Schemas, "
            "listed or not, and the call that runs it from here."
        ),
    ),
    ToolSpec(
        name="tool_call",
        handler="toolsets:tool_call",
        toolset="toolsets",
        title="Call any tool",
        description=(
            "Run any tool this server serves by name, listed or not: "
            '{"name": "media_frames", "arguments": {...}}.\n'
            "Answers exactly what the tool answers (result, images or error); roles apply."
        ),
        read_only=False,
        destructive=True,
        idempotent=False,
        open_world=True,
    ),
    # ---------------------------------------------------------------- toolsets
    ToolSpec(
        name="toolset_list",
        handler="toolsets:toolset_list",
        toolset="toolsets",
        title="List toolsets",
        description=(
            "List this server's toolsets, one line each, with their tools and whether this session has "
            "them on.\nCall it when the tools you see are not enough for the task; turn one on with "
            "toolset_enable (sessions of MCP 2025-11-25 and older) or call its tools through tool_call."
        ),
    ),
    ToolSpec(
        name="toolset_enable",
        handler="toolsets:toolset_enable",
        toolset="toolsets",
        title="Turn a toolset on",
        description=(
            "Turn a toolset on for this session: its tools appear in tools/list "
            "(notifications/tools/list_changed) and can be called at once.\n"
            "Answers with the tools it added. Roles still apply to every call. MCP 2026-07-28 "
            "has no sessions: there, use tool_call."
        ),
    ),
    ToolSpec(
        name="toolset_disable",
        handler="toolsets:toolset_disable",
        toolset="toolsets",
        title="Turn a toolset off",
        description=(
            "Turn a toolset off for this session: its tools leave tools/list "
            "(notifications/tools/list_changed); tool_call still runs them."
        ),
    ),
)

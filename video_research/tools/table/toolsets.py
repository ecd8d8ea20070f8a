"""The meta-tools that turn toolsets on and off for a session."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
    # ---------------------------------------------------------------- toolsets
    ToolSpec(
        name="toolset_list",
        handler="toolsets:toolset_list",
        toolset="toolsets",
        title="List toolsets",
        description=(
            "List this server's toolsets, one line each, with their tools and whether this session has "
            "them on.\nCall it when the tools you see are not enough for the task; turn one on with "
            "toolset_enable."
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
            "Answers with the tools it added. Roles still apply to every call."
        ),
    ),
    ToolSpec(
        name="toolset_disable",
        handler="toolsets:toolset_disable",
        toolset="toolsets",
        title="Turn a toolset off",
        description=(
            "Turn a toolset off for this session: its tools leave tools/list "
            "(notifications/tools/list_changed) and can no longer be called."
        ),
    ),
)

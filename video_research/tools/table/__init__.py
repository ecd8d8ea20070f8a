"""The dispatch table: every tool this server has, one `ToolSpec` each, in one dict.

Each area lists its tools in its own module (`core`, `knowledge`, `transcripts`, ...);
this module joins them, in the order `tools/list` shows them, and refuses a name listed
twice. Handlers are named as "module:function" and imported on first call, so building
the table imports no SDK.
"""

from __future__ import annotations

from video_research.tools.table import (
    catalog,
    core,
    deep_research,
    documents,
    knowledge,
    papers,
    toolsets,
    transcripts,
)
from video_research.tools.table.spec import ToolSpec, build_table

TOOLS: dict[str, ToolSpec] = build_table(
    *core.SPECS,
    *knowledge.SPECS,
    *deep_research.SPECS,
    *papers.SPECS,
    *transcripts.SPECS,
    *documents.SPECS,
    *catalog.SPECS,
    *toolsets.SPECS,
)

__all__ = ["TOOLS", "ToolSpec"]

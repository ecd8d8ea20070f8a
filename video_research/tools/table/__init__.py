"""The dispatch table: every tool this server has, one `ToolSpec` each, in one dict.

Each toolset lists its tools in the module of its name (`infra`, `video`, `knowledge`,
...). This module joins them in the order `tools/list` shows them, and refuses a name
listed twice. The order is the one clients have always seen: toolset by toolset, except
that research_document (research) follows the deepresearch tools, where it was first
listed. Handlers are named as "module:function" (the handler module of the same toolset)
and imported on first call, so building the table imports no SDK.
"""

from __future__ import annotations

from video_research.tools.table import (
    admin,
    catalog,
    content,
    deepresearch,
    documents,
    infra,
    knowledge,
    marathons,
    media,
    papers,
    playlists,
    queue,
    research,
    search,
    toolsets,
    transcripts,
    video,
    youtube,
)
from video_research.tools.table.spec import ToolSpec, build_table

TOOLS: dict[str, ToolSpec] = build_table(
    *infra.SPECS,
    *video.SPECS,
    *youtube.SPECS,
    *research.TOPIC_SPECS,
    *content.SPECS,
    *search.SPECS,
    *knowledge.SPECS,
    *deepresearch.SPECS,
    *research.DOCUMENT_SPECS,
    *papers.SPECS,
    *transcripts.SPECS,
    *documents.SPECS,
    *media.SPECS,
    *catalog.SPECS,
    *playlists.SPECS,
    *queue.SPECS,
    *marathons.SPECS,
    *admin.SPECS,
    *toolsets.SPECS,
)

__all__ = ["TOOLS", "ToolSpec"]

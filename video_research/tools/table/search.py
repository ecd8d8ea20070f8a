"""The search toolset: web search with Google Search grounding."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="web_search",
        handler="search:web_search",
        toolset="search",
        title="Web search",
        description=(
            "Search the web through Gemini's Google Search grounding: an answer, its sources and "
            "the queries Gemini ran.\n"
            "Uses the flash model."
        ),
        idempotent=False,
        open_world=True,
    ),
)

"""web_search: Gemini (flash) with Google Search grounding."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import templates as prompts
from video_research.handlers.context import CallContext
from video_research.knowledge import writethrough

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        WebSearchInput,
    )
    from video_research.support.schema_types.tools.web_search_output import Source, WebSearchOutput


def grounding_sources(grounding: dict[str, Any], limit: int) -> list[Source]:
    """Distinct (title, url) pairs from groundingMetadata.groundingChunks, in order."""
    sources: list[Source] = []
    seen: set[str] = set()
    for chunk in grounding.get("grounding_chunks", []) or []:
        web = chunk.get("web") or {}
        url = web.get("uri")
        if not url or url in seen:
            continue
        seen.add(url)
        sources.append({"title": web.get("title") or web.get("domain") or url, "url": url})
        if len(sources) >= limit:
            break
    return sources


async def web_search(args: WebSearchInput, ctx: CallContext) -> WebSearchOutput:
    settings = ctx.settings
    gemini.require_api_key(settings)
    query = args["query"]
    generation = await gemini.generate(
        prompts.render("web_search", query=query),
        model=settings.flash_model,
        tools=("google_search",),
        thinking_level="low",
    )
    result: WebSearchOutput = {
        "query": query,
        "response": generation.text,
        "sources": grounding_sources(generation.grounding, args["num_results"]),
        "search_queries": list(generation.grounding.get("web_search_queries", []) or []),
        "model": generation.model,
    }
    await writethrough.store_web_search(query, result["response"], result["sources"])
    return result

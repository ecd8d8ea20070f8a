"""research_paper_search, _details, _citations, _recommendations, research_author_search:
Semantic Scholar, no Gemini. Every paper returned is written through to the Papers
knowledge collection (`stored` says how many), so knowledge_search finds it later."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from video_research.handlers.context import CallContext
from video_research.knowledge import writethrough
from video_research.papers import api
from video_research.support.errors import invalid_input

if TYPE_CHECKING:
    from video_research.support.schema_types.common.papers import Paper
    from video_research.support.schema_types.tools import (
        ResearchAuthorSearchInput,
        ResearchAuthorSearchOutput,
        ResearchPaperCitationsInput,
        ResearchPaperCitationsOutput,
        ResearchPaperDetailsInput,
        ResearchPaperDetailsOutput,
        ResearchPaperRecommendationsInput,
        ResearchPaperRecommendationsOutput,
        ResearchPaperSearchInput,
        ResearchPaperSearchOutput,
    )


SEARCH_WINDOW = 1000
"""The relevance search ranks at most this many results (offset + limit)."""


def _plain(papers: Sequence[Paper]) -> list[dict[str, Any]]:
    """The papers as the plain dicts writethrough.store_papers takes (it reads them only)."""
    return [dict(p) for p in papers]


async def research_paper_search(
    args: ResearchPaperSearchInput, ctx: CallContext
) -> ResearchPaperSearchOutput:
    query = args["query"].strip()
    if not query:
        raise invalid_input("query is empty.", hint="Say what the papers are about in a few words.")
    if args["offset"] + args["limit"] > SEARCH_WINDOW:
        raise invalid_input(
            f"offset + limit must be at most {SEARCH_WINDOW} (Semantic Scholar ranks no more).",
            hint="Narrow the query or add filters (year, fields_of_study) instead of paging further.",
        )
    filters = {
        "year": args.get("year"),
        "fieldsOfStudy": ",".join(args.get("fields_of_study") or []) or None,
        "minCitationCount": args.get("min_citation_count"),
        # The API's openAccessPdf filter is a bare flag: present means on.
        "openAccessPdf": "" if args["open_access_only"] else None,
    }
    found = await api.search_papers(
        query, limit=args["limit"], offset=args["offset"], filters=filters
    )
    stored = await writethrough.store_papers(_plain(found["papers"]), "research_paper_search")
    return {"query": query, **found, "stored": stored}


async def research_paper_details(
    args: ResearchPaperDetailsInput, ctx: CallContext
) -> ResearchPaperDetailsOutput:
    paper = await api.paper_details(args["paper_id"])
    stored = await writethrough.store_papers(_plain([paper]), "research_paper_details")
    return {**paper, "stored": stored}


async def research_paper_citations(
    args: ResearchPaperCitationsInput, ctx: CallContext
) -> ResearchPaperCitationsOutput:
    page = await api.citations(
        args["paper_id"], direction=args["direction"], limit=args["limit"], offset=args["offset"]
    )
    stored = await writethrough.store_papers(
        _plain([item["paper"] for item in page["items"]]), "research_paper_citations"
    )
    return {**page, "stored": stored}


async def research_paper_recommendations(
    args: ResearchPaperRecommendationsInput, ctx: CallContext
) -> ResearchPaperRecommendationsOutput:
    found = await api.recommendations(args["paper_id"], limit=args["limit"], pool=args["pool"])
    stored = await writethrough.store_papers(
        _plain(found["papers"]), "research_paper_recommendations"
    )
    return {**found, "stored": stored}


async def research_author_search(
    args: ResearchAuthorSearchInput, ctx: CallContext
) -> ResearchAuthorSearchOutput:
    query = args["query"].strip()
    if not query:
        raise invalid_input("query is empty.", hint="Give an author's name.")
    found = await api.search_authors(query, limit=args["limit"], offset=args["offset"])
    return {"query": query, **found}

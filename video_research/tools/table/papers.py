"""Scholarly papers from the Semantic Scholar Graph API."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
    # ---------------------------------------------------------------- papers
    ToolSpec(
        name="research_paper_search",
        handler="papers:research_paper_search",
        toolset="papers",
        title="Search scholarly papers",
        description=(
            "Search Semantic Scholar's 200M+ papers by relevance, paged.\n"
            "Papers found are written to the knowledge base (Papers)."
        ),
        open_world=True,
    ),
    ToolSpec(
        name="research_paper_details",
        handler="papers:research_paper_details",
        toolset="papers",
        title="Paper details",
        description="One paper's full record from Semantic Scholar, with TL;DR and BibTeX.",
        open_world=True,
    ),
    ToolSpec(
        name="research_paper_citations",
        handler="papers:research_paper_citations",
        toolset="papers",
        title="Citations and references",
        description=(
            "A paper's citations or references, paged, with the citing sentences, intents and "
            "whether each is influential."
        ),
        open_world=True,
    ),
    ToolSpec(
        name="research_paper_recommendations",
        handler="papers:research_paper_recommendations",
        toolset="papers",
        title="Recommended papers",
        description="Papers Semantic Scholar's Recommendations API suggests for a paper.",
        open_world=True,
    ),
    ToolSpec(
        name="research_author_search",
        handler="papers:research_author_search",
        toolset="papers",
        title="Search authors",
        description=(
            "Find Semantic Scholar authors by name: affiliations, paper and citation counts, h-index."
        ),
        open_world=True,
    ),
)

"""The `Papers` knowledge collection: every paper a paper tool returns, one object each.

Registered when this module loads, and by `papers.register_with_knowledge` on the
knowledge layer's first lookup; written by `knowledge.writethrough.store_papers` and
searched by knowledge_search with the other knowledge collections. The object ID is
deterministic from the Semantic Scholar paper ID, so finding a paper again (in another
search, as a citation, as a recommendation) updates its object instead of adding one.
"""

from __future__ import annotations

from video_research.knowledge.collections import (
    CollectionDef,
    DataType,
    Property,
    identifier,
    register_collection,
)

COLLECTION = "Papers"


PAPERS = register_collection(
    CollectionDef(
        COLLECTION,
        "Scholarly papers from Semantic Scholar (the research_paper_* tools)",
        (
            Property("title", DataType.TEXT, "Paper title", vectorize=True),
            Property(
                "tldr",
                DataType.TEXT,
                "One-sentence summary (Semantic Scholar TL;DR)",
                vectorize=True,
            ),
            Property("abstract", DataType.TEXT, "Abstract", vectorize=True),
            Property("authors", DataType.TEXT_ARRAY, "Author names", filterable=True),
            Property("venue", DataType.TEXT, "Journal or conference"),
            identifier("paper_id", "Semantic Scholar paper ID", required=True),
            identifier("doi", "DOI"),
            identifier("arxiv_id", "arXiv ID"),
            Property("year", DataType.INT, "Publication year", filterable=True),
            Property("publication_date", DataType.DATE, "Publication date", filterable=True),
            Property("citation_count", DataType.INT, "Citations", filterable=True),
            Property(
                "influential_citation_count", DataType.INT, "Influential citations", filterable=True
            ),
            Property("fields_of_study", DataType.TEXT_ARRAY, "Fields of study", filterable=True),
            Property(
                "publication_types", DataType.TEXT_ARRAY, "Publication types", filterable=True
            ),
            Property("is_open_access", DataType.BOOLEAN, "Open access", filterable=True),
            Property("url", DataType.TEXT, "Semantic Scholar page", searchable=False),
            Property(
                "open_access_pdf", DataType.TEXT, "Link to an open-access PDF", searchable=False
            ),
        ),
        (
            "research_paper_search",
            "research_paper_details",
            "research_paper_citations",
            "research_paper_recommendations",
        ),
    )
)

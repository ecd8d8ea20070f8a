"""The knowledge base every result is written to: search, ask, fetch, relate, add, re-embed."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
    # ---------------------------------------------------------------- knowledge
    ToolSpec(
        name="knowledge_search",
        handler="knowledge:knowledge_search",
        toolset="knowledge",
        title="Search the knowledge base",
        description=(
            "Hybrid search (keywords + meaning) over everything stored, all you found before: "
            "transcript moments, document passages, papers, analyses, research, web searches.\n"
            "Each hit says what it is and links it. alpha 0 is keywords only, 1 vectors only; "
            'filters: [{"property": "video_id", "op": "eq", "value": "dQw4w9WgXcQ"}].'
        ),
    ),
    ToolSpec(
        name="knowledge_related",
        handler="knowledge:knowledge_related",
        toolset="knowledge",
        title="Related knowledge",
        description=(
            "Objects closest in meaning to a stored object (an object_id from knowledge_search), "
            "nearest first, the object itself excluded."
        ),
    ),
    ToolSpec(
        name="knowledge_stats",
        handler="knowledge:knowledge_stats",
        toolset="knowledge",
        title="Knowledge base statistics",
        description=(
            "Object counts per collection (transcripts and documents included), the store in use (embedded SQLite file or Weaviate) "
            "and the embedding model; flags collections whose vectors need knowledge_reembed."
        ),
    ),
    ToolSpec(
        name="knowledge_ingest",
        handler="knowledge:knowledge_ingest",
        toolset="knowledge",
        title="Add to the knowledge base",
        description=(
            "Store an object of your own in a knowledge collection; it is embedded and searchable at once.\n"
            "Properties are checked against the collection (unknown keys are rejected with the allowed "
            "list). With object_id the object under that UUID is replaced. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=False,
        audited=True,
    ),
    ToolSpec(
        name="knowledge_reembed",
        handler="knowledge:knowledge_reembed",
        toolset="knowledge",
        title="Re-embed knowledge collections",
        description=(
            "Recompute the vectors of a collection, or (no collection) of every collection another "
            "model embedded, with the configured embedding model, after "
            "KNOWLEDGE_EMBEDDING_PROVIDER, _MODEL or _DIMENSIONS changed.\n"
            "Reports progress; the old vectors stay in use until the new ones are all written. Requires admin."
        ),
        role="admin",
        read_only=False,
        idempotent=True,
        audited=True,
    ),
    # ---------------------------------------------------------------- knowledge
    ToolSpec(
        name="knowledge_ask",
        handler="knowledge:knowledge_ask",
        toolset="knowledge",
        title="Ask the knowledge base",
        description=(
            "Answer a question from the knowledge base, citing [n] the objects used: stored "
            "results, papers, transcript moments and document pages.\n"
            "Without GEMINI_API_KEY it returns the ranked passages."
        ),
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        name="knowledge_fetch",
        handler="knowledge:knowledge_fetch",
        toolset="knowledge",
        title="Fetch stored objects",
        description="Stored objects by ID (from any search or answer), in any collection.",
    ),
    ToolSpec(
        name="knowledge_schema",
        handler="knowledge:knowledge_schema",
        toolset="knowledge",
        title="Knowledge collections and properties",
        description=(
            "The knowledge store's collections with their properties (type; filterable, "
            "keyword-searchable, embedded) and the filter operators per type."
        ),
    ),
)

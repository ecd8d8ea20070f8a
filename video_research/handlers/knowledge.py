"""The knowledge toolset: search, relate, count, add to and re-embed the knowledge base;
answer a question from it with citations; fetch stored objects and describe what is stored.

knowledge_search, knowledge_related, knowledge_stats, knowledge_ingest and knowledge_reembed
read and write the seven built-in knowledge collections through the one store
(`knowledge.store.get_store`): the embedded SQLite file by default, Weaviate when
WEAVIATE_URL is set. Results look the same on both backends.

knowledge_ask answers from the knowledge, transcript and document collections with Gemini,
citing the passages it used (`knowledge.ask`); without GEMINI_API_KEY it answers with the
ranked passages, and says that no answer was generated.

knowledge_fetch and knowledge_schema cover every collection of the store (knowledge,
transcripts, documents, Papers). Large blobs kept for the server's own use (the raw Gemini
result, a transcript's every cue) are left out of fetched objects unless `full`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from video_research.handlers.context import CallContext
from video_research.knowledge import ask, citations, filters, guidance, passages, relevance
from video_research.knowledge.collections import (
    KNOWLEDGE_COLLECTIONS,
    SEARCHED_COLLECTIONS,
    DataType,
    any_collection,
    get_collection,
    knowledge_collection,
    registered_collections,
)
from video_research.knowledge.store import SearchHit, get_store, normalise_uuid
from video_research.support.errors import ToolFailure, invalid_input

if TYPE_CHECKING:
    from video_research.support.schema_types.common.defs import KnowledgeHit
    from video_research.support.schema_types.tools import (
        KnowledgeAskInput,
        KnowledgeAskOutput,
        KnowledgeFetchInput,
        KnowledgeFetchOutput,
        KnowledgeIngestInput,
        KnowledgeIngestOutput,
        KnowledgeReembedInput,
        KnowledgeReembedOutput,
        KnowledgeRelatedInput,
        KnowledgeRelatedOutput,
        KnowledgeSchemaInput,
        KnowledgeSchemaOutput,
        KnowledgeSearchInput,
        KnowledgeSearchOutput,
        KnowledgeStatsInput,
        KnowledgeStatsOutput,
    )
    from video_research.support.schema_types.tools.knowledge_fetch_output import (
        Object as FetchedObject,
    )
    from video_research.support.schema_types.tools.knowledge_reembed_output import (
        Collection as Reembedded,
    )


HIDDEN_PROPERTIES = frozenset({"raw_result", "segments_json", "cue_starts"})
"""Kept in the store for the server's own use (the whole Gemini result, a transcript's
cues and their times) but too large or too raw to repeat in every hit."""


def _shown(properties: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in properties.items() if k not in HIDDEN_PROPERTIES}


def _hit(hit: SearchHit) -> KnowledgeHit:
    """A hit as the tools show it: what it is and where it points, then its properties."""
    out: KnowledgeHit = {
        "collection": hit.collection,
        "object_id": hit.uuid,
        "score": round(hit.score, 6),
        **citations.where(hit.collection, hit.properties),
        "properties": _shown(hit.properties),
    }
    if hit.distance is not None:
        out["distance"] = round(hit.distance, 6)
    if hit.relevance is not None:
        out["relevance"] = hit.relevance
        out["weak"] = relevance.is_weak(hit.relevance)
    return out


def _applies(where: filters.FilterNode | None, collection: str) -> bool:
    """Whether every property the filter names is filterable in `collection`."""
    definition = get_collection(collection)
    return all(
        name in definition.by_name and definition.by_name[name].filterable
        for name in filters.properties_used(where)
    )


def _no_collection_applies(where: filters.FilterNode, candidates: list[str]) -> ToolFailure:
    """invalid_input for a filter no candidate collection can apply, listing what they can."""
    filterable = {name: [p.name for p in get_collection(name).filterable] for name in candidates}
    properties = sorted({p for names in filterable.values() for p in names})
    return invalid_input(
        "No knowledge collection can filter on all of: "
        f"{', '.join(sorted(filters.properties_used(where)))}.",
        hint=f"Filterable properties: {', '.join(properties)} "
        "(details.filterable lists them per collection).",
        filterable=filterable,
    )


def _label(hit: SearchHit) -> str:
    """How a note names a hit: its citation's label, quoted."""
    return repr(citations.cite(hit.collection, hit.properties)["label"])


async def knowledge_search(args: KnowledgeSearchInput, ctx: CallContext) -> KnowledgeSearchOutput:
    query = args["query"].strip()
    if not query:
        raise invalid_input("query is empty.", hint="Say what you are looking for in a few words.")
    named = args.get("collections")
    collections = list(dict.fromkeys(named)) if named else list(SEARCHED_COLLECTIONS)
    where = filters.from_json(args.get("filters"))
    searched, skipped = [], []
    for name in collections:
        any_collection(name)
        if _applies(where, name):
            searched.append(name)
        elif named:
            # bind() says exactly which property or operator is wrong for this collection.
            filters.bind(where, get_collection(name))
        else:
            skipped.append(name)
    if where is not None and not searched:
        raise _no_collection_applies(where, skipped)
    store = await get_store(ctx.settings)
    hits, notes, vector = await passages.search_each(
        store,
        searched,
        query,
        alpha=args["alpha"],
        where=where,
        limit=args["limit"],
        min_score=args.get("min_score"),
    )
    await passages.pinpoint(query, hits, vector)
    if args.get("min_score") is not None:  # a moment's relevance in context may fall below it
        floor = args["min_score"]
        hits = [h for h in hits if (h.score if h.relevance is None else h.relevance) >= floor]
    identity = store.embedder.identity
    language = guidance.language_note(query, identity)
    if language:
        notes.append(language)
    if not hits:
        empty = await guidance.empty_state(store, searched, ctx.toolset_of)
        notes.append(empty or "Nothing stored matches the query; try other words or fewer filters.")
    else:
        weak = relevance.note_if_all_weak([(_label(hit), hit.relevance) for hit in hits])
        if weak:
            notes.append(weak)
    results = [_hit(hit) for hit in hits]
    return {
        "query": query,
        "alpha": args["alpha"],
        "collections_searched": searched,
        "collections_skipped": skipped,
        "results": results,
        "total": len(results),
        "notes": notes,
    }


async def knowledge_related(
    args: KnowledgeRelatedInput, ctx: CallContext
) -> KnowledgeRelatedOutput:
    collection = any_collection(args["collection"]).name
    store = await get_store(ctx.settings)
    hits = await store.near_object(collection, args["object_id"], limit=args["limit"])
    hits.sort(key=lambda hit: hit.distance if hit.distance is not None else 2.0)
    results = [_hit(hit) for hit in hits]
    return {
        "object_id": args["object_id"],
        "collection": collection,
        "results": results,
        "total": len(results),
    }


async def knowledge_stats(args: KnowledgeStatsInput, ctx: CallContext) -> KnowledgeStatsOutput:
    names = (
        [any_collection(args["collection"]).name]
        if args.get("collection")
        else [c.name for c in registered_collections()]
    )
    store = await get_store(ctx.settings)
    infos = [await store.info(name) for name in names]
    return {
        "backend": store.backend,
        "location": store.location,
        "embedding": {
            "provider": store.embedder.provider,
            "model": store.embedder.model,
            "dimensions": store.embedder.dimensions,
        },
        "collections": [
            {
                "name": info.name,
                "what": citations.WHAT.get(info.name, info.name),
                "count": info.count,
                "embedding_model": info.embedding_model,
                "dimensions": info.dimensions,
                "compatible": info.compatible,
            }
            for info in infos
        ],
        "total": sum(info.count for info in infos),
    }


async def knowledge_ingest(args: KnowledgeIngestInput, ctx: CallContext) -> KnowledgeIngestOutput:
    collection = knowledge_collection(args["collection"]).name
    properties = {"source_tool": "knowledge_ingest", **args["properties"]}
    store = await get_store(ctx.settings)
    object_id = args.get("object_id")
    if object_id is None:
        uuid = await store.insert(collection, properties)
        replaced = False
    else:
        replaced = await store.get(collection, object_id) is not None
        uuid = await store.upsert(collection, properties, uuid=object_id)
    stored = await store.get(collection, uuid)
    return {
        "collection": collection,
        "object_id": uuid,
        "replaced": replaced,
        "properties": _shown(stored.properties if stored else properties),
    }


async def knowledge_reembed(
    args: KnowledgeReembedInput, ctx: CallContext
) -> KnowledgeReembedOutput:
    """Re-embed one collection, or (no collection named) every collection whose vectors
    another model made: switching models is one call, with progress over all of them."""
    store = await get_store(ctx.settings)
    if args.get("collection"):
        # Any collection: the transcript and document ones need re-embedding after a model change too.
        names = [any_collection(args["collection"]).name]
        todo = names
    else:
        names = [c.name for c in registered_collections()]
        infos = {name: await store.info(name) for name in names}
        todo = [name for name in names if infos[name].count and not infos[name].compatible]
    counts = {name: await store.count(name) for name in todo}
    total = sum(counts.values())
    done_before = 0

    async def progress(done: int, of: int) -> None:
        await ctx.report_progress(
            done_before + done, total, f"re-embedded {done_before + done} of {total} objects"
        )

    await ctx.report_progress(0, total, f"re-embedding {', '.join(todo) or 'nothing'}")
    results: list[Reembedded] = []
    status: Literal["reembedded", "current", "empty"]
    for name in names:
        if name in todo:
            count = await store.reembed(name, progress)
            done_before += counts[name]
            status = "reembedded"
        else:
            count = 0
            status = "empty" if not infos[name].count else "current"
        info = await store.info(name)
        results.append(
            {
                "collection": name,
                "status": status,
                "reembedded": count,
                "embedding_model": info.embedding_model,
                "dimensions": info.dimensions,
            }
        )
    if len(names) == 1 and args.get("collection"):
        one = results[0]
        collection, model, dimensions = one["collection"], one["embedding_model"], one["dimensions"]
    else:
        collection = "all"
        model, dimensions = store.embedder.identity, store.embedder.dimensions
    return {
        "collection": collection,
        "embedding_model": model,
        "dimensions": dimensions,
        "reembedded": sum(r["reembedded"] for r in results),
        "collections": results,
    }


async def knowledge_ask(args: KnowledgeAskInput, ctx: CallContext) -> KnowledgeAskOutput:
    question = args["question"].strip()
    if not question:
        raise invalid_input("question is empty.", hint="Ask a question in a sentence.")
    return await ask.answer(
        question,
        collections=args.get("collections"),
        limit=args["limit"],
        alpha=args["alpha"],
        gemini_api_key=ctx.settings.gemini_api_key.get_secret_value(),
        progress=ctx.report_progress,
    )


BULKY_PROPERTIES = frozenset({"raw_result", "segments_json"})
"""Left out of knowledge_fetch unless full: they can be megabytes."""

OPERATORS: dict[str, list[str]] = {
    "text": ["eq", "ne", "in", "prefix"],
    "text[]": ["contains_any", "contains_all"],
    "int": ["eq", "ne", "in", "gt", "gte", "lt", "lte"],
    "number": ["eq", "ne", "in", "gt", "gte", "lt", "lte"],
    "date": ["eq", "ne", "in", "gt", "gte", "lt", "lte"],
    "boolean": ["eq", "ne"],
}


async def knowledge_fetch(args: KnowledgeFetchInput, ctx: CallContext) -> KnowledgeFetchOutput:
    wanted = list(dict.fromkeys(normalise_uuid(i) for i in args["object_ids"]))
    names = (
        [any_collection(args["collection"]).name]
        if args.get("collection")
        else [c.name for c in registered_collections()]
    )
    store = await get_store(ctx.settings)
    found: dict[str, FetchedObject] = {}
    for name in names:
        for object_id in wanted:
            if object_id in found:
                continue
            stored = await store.get(name, object_id)
            if stored is None:
                continue
            properties = stored.properties
            omitted = []
            if not args["full"]:
                omitted = sorted(k for k in properties if k in BULKY_PROPERTIES)
                properties = {k: v for k, v in properties.items() if k not in BULKY_PROPERTIES}
            fetched: FetchedObject = {
                "collection": name,
                "object_id": object_id,
                "properties": properties,
            }
            if omitted:
                fetched["omitted"] = omitted
            found[object_id] = fetched
    return {
        "objects": [found[i] for i in wanted if i in found],
        "not_found": [i for i in wanted if i not in found],
    }


def _kind(name: str) -> Literal["knowledge", "transcripts", "documents"]:
    if name in KNOWLEDGE_COLLECTIONS:
        return "knowledge"
    return "transcripts" if name.startswith("Transcript") else "documents"


async def knowledge_schema(args: KnowledgeSchemaInput, ctx: CallContext) -> KnowledgeSchemaOutput:
    definitions = (
        [any_collection(args["collection"])] if args.get("collection") else registered_collections()
    )
    return {
        "collections": [
            {
                "name": d.name,
                "description": d.description,
                "group": _kind(d.name),
                "searched_by_knowledge_search": d.name in SEARCHED_COLLECTIONS,
                "searched_by_knowledge_ask": d.name in SEARCHED_COLLECTIONS,
                "properties": [
                    {
                        "name": p.name,
                        "type": p.data_type.value,
                        "filterable": p.filterable,
                        "searchable": p.in_bm25,
                        "vectorized": p.vectorize,
                        "description": p.description,
                    }
                    for p in d.properties
                ],
            }
            for d in definitions
        ],
        "filter_operators": {t.value: OPERATORS[t.value] for t in DataType},
    }

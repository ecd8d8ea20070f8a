"""document_ingest, document_search, document_list, document_delete: the document library.

Local files become cited passages in the knowledge store (`video_research.documents`);
these handlers turn tool arguments into calls on it and its results into tool output.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from video_research.documents import library
from video_research.documents.blocks import DocumentType
from video_research.documents.ingest import IngestRequest, ingest
from video_research.handlers.context import CallContext
from video_research.knowledge import guidance, relevance
from video_research.knowledge.filters import Filter, FilterNode
from video_research.knowledge.store import MAX_RESULTS, StoredObject, get_store
from video_research.support.errors import invalid_input

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        DocumentDeleteInput,
        DocumentDeleteOutput,
        DocumentIngestInput,
        DocumentIngestOutput,
        DocumentListInput,
        DocumentListOutput,
        DocumentSearchInput,
        DocumentSearchOutput,
    )
    from video_research.support.schema_types.tools.document_list_output import Document
    from video_research.support.schema_types.tools.document_search_output import Result


DELETE_PAGE = 500
"""Documents document_delete looks up and deletes per round (also bounds its `in` lists)."""


def _listed(value: Any) -> list[str] | None:
    """A filter value given as one item or a list, as a list."""
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


def _condition(filters: Mapping[str, Any] | None) -> FilterNode | None:
    filters = filters or {}
    return library.where(
        document_type=_listed(filters.get("document_type")),
        chunk_type=_listed(filters.get("chunk_type")),
        tags=filters.get("tags"),
        path_prefix=filters.get("path_prefix"),
        document_ids=_listed(filters.get("document_id")),
    )


async def document_ingest(args: DocumentIngestInput, ctx: CallContext) -> DocumentIngestOutput:
    targets = ([args["path"]] if args.get("path") else []) + list(args.get("paths") or [])
    request = IngestRequest(
        paths=list(dict.fromkeys(targets)),
        glob=args["glob"],
        document_type=DocumentType(args["document_type"]) if args.get("document_type") else None,
        tags=tuple(args["tags"]) if "tags" in args else None,
        force=args["force"],
        max_files=args["max_files"],
    )
    report = await ingest(request, ctx)
    statuses = [item.status for item in report.files]
    return {
        "files": [item.to_dict() for item in report.files],
        "ingested": statuses.count("ingested"),
        "updated": statuses.count("updated"),
        "unchanged": statuses.count("unchanged"),
        "failed": statuses.count("failed"),
        "skipped_unsupported": report.skipped_unsupported,
        "files_found": report.files_found,
        "truncated": report.truncated,
        "chunks_written": sum(
            item.chunks for item in report.files if item.status in ("ingested", "updated")
        ),
    }


async def document_search(args: DocumentSearchInput, ctx: CallContext) -> DocumentSearchOutput:
    query = args["query"].strip()
    if not query:
        raise invalid_input("query is empty.", hint="Say what you are looking for in a few words.")
    store = await get_store(ctx.settings)
    hits = await library.search(
        store,
        query,
        alpha=args["alpha"],
        limit=args["k"],
        condition=_condition(args.get("filters")),
        min_score=args.get("min_score"),
    )
    results: list[Result] = []
    for hit in hits:
        props = hit.properties
        results.append(
            {
                "text": props["text"],
                "citation": library.citation(props),
                "source_path": props["source_path"],
                "file_name": props.get("file_name", ""),
                "title": props.get("title", ""),
                "document_id": props["document_id"],
                "document_type": props.get("document_type", DocumentType.TEXT.value),
                "chunk_type": props.get("chunk_type", "text"),
                "heading_path": props.get("heading_path") or [],
                "page": props.get("page"),
                "page_end": props.get("page_end"),
                "chunk_index": props.get("chunk_index", 0),
                "score": round(hit.score, 6),
                "relevance": hit.relevance or 0.0,
                "weak": relevance.is_weak(hit.relevance),
                "tags": props.get("tags") or [],
            }
        )
    out: DocumentSearchOutput = {
        "query": query,
        "alpha": args["alpha"],
        "results": results,
        "total": len(results),
    }
    if not results:
        empty = await guidance.empty_state(store, [library.COLLECTION], ctx.toolset_of)
        if empty:
            out["notes"] = [empty]
    else:
        weak = relevance.note_if_all_weak([(repr(r["citation"]), r["relevance"]) for r in results])
        if weak:
            out["notes"] = [weak]
    return out


def _document(head: StoredObject, exists: bool) -> Document:
    props = head.properties
    return {
        "document_id": props["document_id"],
        "source_path": props["source_path"],
        "file_name": props.get("file_name", ""),
        "title": props.get("title", ""),
        "document_type": props.get("document_type", DocumentType.TEXT.value),
        "tags": props.get("tags") or [],
        "chunks": props.get("chunk_count", 0),
        "pages": props.get("page_count"),
        "content_hash": props.get("content_hash", ""),
        "file_size": props.get("file_size", 0),
        "modified_at": props.get("modified_at", ""),
        "ingested_at": props.get("created_at", ""),
        "file_exists": exists,
    }


async def document_list(args: DocumentListInput, ctx: CallContext) -> DocumentListOutput:
    store = await get_store(ctx.settings)
    # The store serves the first MAX_RESULTS of a listing (the schema caps offset below it);
    # the last page is shortened to fit, and next_offset stops there.
    offset = args["offset"]
    limit = min(args["limit"], MAX_RESULTS - offset)
    page, total = await library.documents(
        store, _condition(args.get("filters")), limit=limit, offset=offset
    )
    next_offset = page.next_offset if (page.next_offset or 0) < MAX_RESULTS else None
    exists = await asyncio.to_thread(
        lambda: [os.path.isfile(head.properties["source_path"]) for head in page.objects]
    )
    return {
        "documents": [_document(head, ok) for head, ok in zip(page.objects, exists, strict=True)],
        "total": total,
        "next_offset": next_offset,
    }


async def document_delete(args: DocumentDeleteInput, ctx: CallContext) -> DocumentDeleteOutput:
    ids = list(args.get("document_ids") or [])
    paths = {library.resolved(p): p for p in args.get("paths") or []}
    selectors: list[FilterNode] = []
    if ids:
        selectors.append(Filter.in_("document_id", ids))
    if paths:
        selectors.append(Filter.in_("source_path", list(paths)))
    if args.get("path_prefix"):
        selectors.append(library.under_path(args["path_prefix"]))
    store = await get_store(ctx.settings)
    condition = Filter.any_of(*selectors)
    # Round by round: the first page of what still matches, then delete it. Paging by
    # offset would run into the store's MAX_RESULTS window on a large prefix.
    heads: list[StoredObject] = []
    found_ids: set[str] = set()
    chunks = 0
    while True:
        page, _ = await library.documents(store, condition, limit=DELETE_PAGE, offset=0)
        fresh = [h for h in page.objects if h.properties["document_id"] not in found_ids]
        if not fresh:
            break  # nothing left, or only what a round already deleted (never loop on it)
        doomed = [head.properties["document_id"] for head in fresh]
        chunks += await library.delete(store, Filter.in_("document_id", doomed))
        heads += fresh
        found_ids.update(doomed)
        if page.next_offset is None:
            break
    found_paths = {head.properties["source_path"] for head in heads}
    not_found = [i for i in ids if i not in found_ids] + [
        given for path, given in paths.items() if path not in found_paths
    ]
    return {
        "deleted": [
            {
                "document_id": head.properties["document_id"],
                "source_path": head.properties["source_path"],
                "chunks": head.properties.get("chunk_count", 0),
            }
            for head in heads
        ],
        "documents_deleted": len(heads),
        "chunks_deleted": chunks,
        "not_found": not_found,
    }

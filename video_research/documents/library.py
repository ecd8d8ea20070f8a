"""The `DocumentChunks` collection: where ingested documents live in the knowledge store.

One object per chunk. Every chunk carries its document's facts (path, type, tags, content
hash, page and chunk counts), so a document is written, replaced and deleted as one set
of objects — `replace_where` on its path, atomic on the embedded store — and never needs
a second record that could disagree with it. The document's own entry (for listing and
the idempotence check) is its chunk 0.

IDs are deterministic: a document's ID comes from its resolved path, a chunk's from the
document ID and its index, so re-ingesting a file overwrites rather than duplicates.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from video_research.documents.blocks import DocumentType
from video_research.documents.chunking import Chunk
from video_research.knowledge.collections import (
    CollectionDef,
    DataType,
    Property,
    identifier,
    register_collection,
)
from video_research.knowledge.filters import Filter, FilterNode
from video_research.knowledge.store import (
    KnowledgeStore,
    Page,
    SearchHit,
    StoredObject,
    generate_uuid5,
)
from video_research.support import paths

COLLECTION = "DocumentChunks"
SOURCE_TOOL = "document_ingest"


def _int(name: str, description: str) -> Property:
    return Property(name, DataType.INT, description, filterable=True)


DOCUMENT_CHUNKS = register_collection(
    CollectionDef(
        COLLECTION,
        "Passages of local documents (PDF, DOCX, PPTX, HTML, Markdown, text) from document_ingest",
        (
            Property(
                "heading_path",
                DataType.TEXT_ARRAY,
                "Headings above the passage, outermost first",
                vectorize=True,
            ),
            Property("text", DataType.TEXT, "The passage", vectorize=True, required=True),
            Property("title", DataType.TEXT, "Document title"),
            identifier("document_id", "The document (deterministic from its path)", required=True),
            identifier("source_path", "Resolved path of the file", required=True),
            identifier("file_name", "File name"),
            identifier("document_type", "pdf, docx, pptx, html, markdown or text"),
            identifier("chunk_type", "text, table, list or code"),
            Property("tags", DataType.TEXT_ARRAY, "Tags given at ingest", filterable=True),
            _int("page", "First page (PDF) or slide (PPTX) of the passage"),
            _int("page_end", "Last page or slide of the passage"),
            _int("chunk_index", "Position of the passage in the document, from 0"),
            _int("chunk_count", "Passages in the document"),
            _int("token_count", "Word pieces in the passage"),
            _int("page_count", "Pages or slides in the document"),
            identifier("content_hash", "SHA-256 of the file's bytes"),
            _int("file_size", "File size in bytes"),
            Property("modified_at", DataType.DATE, "File modification time", filterable=True),
        ),
        (SOURCE_TOOL,),
    )
)


@dataclass(frozen=True)
class DocumentFacts:
    """What every chunk of a document repeats about it."""

    path: Path
    title: str
    document_type: str
    tags: tuple[str, ...]
    content_hash: str
    file_size: int
    modified_at: str
    page_count: int | None

    @property
    def document_id(self) -> str:
        return document_id(self.path)


def stored_path(path: Path | str) -> str:
    """A resolved path as the library stores and keys it: its printable form, so a file
    name that is not UTF-8 (`bad-\\xff.md`) is stored, found and shown the same way, and
    can be passed back to document_delete or path_prefix as it was shown."""
    return paths.printable(path)


def document_id(path: Path | str) -> str:
    return generate_uuid5(stored_path(path), "document:")


def resolved(path: str) -> str:
    """A path as documents are keyed: absolute, `~` expanded, `..` and links resolved
    (invalid_input when it cannot be: `~nosuchuser`, a NUL byte)."""
    return stored_path(paths.resolve(path))


def citation(props: dict[str, Any]) -> str:
    """ "report.pdf, pp. 3-4, Methods > Setup": where a passage comes from, ready to quote.

    One format everywhere: document_search's `citation`, and the label knowledge_ask and
    research_document give a document passage (registered with the knowledge layer's
    citations by `documents.register_with_knowledge`). "a document" when the passage
    names no file.
    """
    if not props.get("source_path") and not props.get("file_name"):
        return "a document"
    parts = [props.get("file_name") or os.path.basename(props.get("source_path") or "")]
    page, page_end = props.get("page"), props.get("page_end")
    if page is not None:
        unit = "slide" if props.get("document_type") == DocumentType.PPTX else "p."
        if page_end is not None and page_end != page:
            unit = "slides" if unit == "slide" else "pp."
            parts.append(f"{unit} {page}-{page_end}")
        else:
            parts.append(f"{unit} {page}")
    if props.get("heading_path"):
        parts.append(" > ".join(props["heading_path"]))
    return ", ".join(parts)


async def stored_head(store: KnowledgeStore, path: Path) -> StoredObject | None:
    """Chunk 0 of the document stored for `path`, or None."""
    page = await store.fetch(
        COLLECTION,
        where=Filter.eq("source_path", stored_path(path)) & Filter.eq("chunk_index", 0),
        limit=1,
    )
    return page.objects[0] if page.objects else None


async def write_document(
    store: KnowledgeStore, facts: DocumentFacts, chunks: Sequence[Chunk]
) -> int:
    """Replace whatever is stored for the document's path by `chunks`, as one change.

    Returns how many chunks were there before. The store embeds the chunks; on the
    embedded store a failure or cancellation leaves the previous version whole.
    """
    doc_id = facts.document_id
    objects = [
        {
            "heading_path": chunk.heading_path,
            "text": chunk.text,
            "title": facts.title,
            "document_id": doc_id,
            "source_path": stored_path(facts.path),
            "file_name": paths.printable(facts.path.name),
            "document_type": facts.document_type,
            "chunk_type": chunk.chunk_type,
            "tags": list(facts.tags),
            "page": chunk.page,
            "page_end": chunk.page_end,
            "chunk_index": index,
            "chunk_count": len(chunks),
            "token_count": chunk.token_count,
            "page_count": facts.page_count,
            "content_hash": facts.content_hash,
            "file_size": facts.file_size,
            "modified_at": facts.modified_at,
            "source_tool": SOURCE_TOOL,
        }
        for index, chunk in enumerate(chunks)
    ]
    uuids = [generate_uuid5(f"{doc_id}:{index}") for index in range(len(chunks))]
    deleted, _ = await store.replace_where(
        COLLECTION, Filter.eq("source_path", stored_path(facts.path)), objects, uuids=uuids
    )
    return deleted


def where(
    *,
    document_type: Sequence[str] | None = None,
    chunk_type: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
    path_prefix: str | None = None,
    document_ids: Sequence[str] | None = None,
) -> FilterNode | None:
    """The filter for the documents tools' arguments; None when nothing narrows."""
    conditions: list[FilterNode] = []
    if document_type:
        conditions.append(Filter.in_("document_type", list(document_type)))
    if chunk_type:
        conditions.append(Filter.in_("chunk_type", list(chunk_type)))
    if tags:
        conditions.append(Filter.contains_any("tags", list(tags)))
    if document_ids:
        conditions.append(Filter.in_("document_id", list(document_ids)))
    if path_prefix:
        conditions.append(under_path(path_prefix))
    return Filter.all_of(*conditions) if conditions else None


def under_path(path_prefix: str) -> FilterNode:
    """The documents of the file `path_prefix`, or of the files under that directory."""
    root = resolved(path_prefix)
    # A directory prefix matches the files under it, not its siblings that share letters.
    under = root if root.endswith(os.sep) else root + os.sep
    return Filter.eq("source_path", root) | Filter.prefix("source_path", under)


async def search(
    store: KnowledgeStore,
    query: str,
    *,
    alpha: float,
    limit: int,
    condition: FilterNode | None,
    min_score: float | None,
) -> list[SearchHit]:
    return await store.hybrid(
        COLLECTION, query, alpha=alpha, where=condition, limit=limit, min_score=min_score
    )


async def documents(
    store: KnowledgeStore, condition: FilterNode | None, *, limit: int, offset: int
) -> tuple[Page, int]:
    """(one page of document heads ordered by path, how many documents match)."""
    heads = Filter.eq("chunk_index", 0)
    scoped = heads if condition is None else heads & condition
    page = await store.fetch(
        COLLECTION, where=scoped, order_by=["source_path"], limit=limit, offset=offset
    )
    return page, await store.count(COLLECTION, scoped)


async def delete(store: KnowledgeStore, condition: FilterNode) -> int:
    """Delete every chunk matching `condition`; how many."""
    return await store.delete_where(COLLECTION, condition)

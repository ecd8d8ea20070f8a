"""The user's own documents: ingest, search, list, delete."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
    # ---------------------------------------------------------------- documents
    ToolSpec(
        name="document_ingest",
        handler="documents:document_ingest",
        toolset="documents",
        title="Ingest local documents",
        description=(
            "Index local files or folders (PDF, DOCX, PPTX, HTML, Markdown, text) for "
            "document_search, offline, as passages of about 200 tokens.\n"
            "Reads only files under VIDEO_RESEARCH_FILE_ROOTS or the client's roots; skips "
            "unchanged files; an encrypted or corrupt file fails alone. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=True,
        audited=True,
    ),
    ToolSpec(
        name="document_search",
        handler="documents:document_search",
        toolset="documents",
        title="Search ingested documents",
        description=(
            "Find passages in the ingested documents by keywords and meaning, each citing its "
            "file, page (PDF page, PPTX slide) and heading path."
        ),
    ),
    ToolSpec(
        name="document_list",
        handler="documents:document_list",
        toolset="documents",
        title="List ingested documents",
        description=(
            "List the ingested documents, ordered by path, with title, type, pages, passages, "
            "tags, content hash and whether the file still exists."
        ),
    ),
    ToolSpec(
        name="document_delete",
        handler="documents:document_delete",
        toolset="documents",
        title="Remove documents from the library",
        description=(
            "Remove ingested documents and their passages (not the files).\n"
            "IDs or paths that match nothing are listed in not_found. Requires admin."
        ),
        role="admin",
        read_only=False,
        destructive=True,
        idempotent=True,
        audited=True,
    ),
)

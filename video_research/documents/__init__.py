"""Document knowledge: local files in, cited passages out.

The pipeline is ingest -> chunk -> embed -> store -> search:

- `extract`: a file's bytes become `Block`s (headings, paragraphs, lists, tables, code),
  each with its page. PDFs are read page by page with pdfminer.six (markitdown's PDF
  converter joins all pages into one string, losing the page breaks); DOCX, PPTX, HTML,
  Markdown and plain text go through markitdown's converters, offline.
- `chunking`: blocks become chunks of at most a token budget (the embedding model's own
  tokenizer), never crossing a heading, each knowing its heading path and pages.
- `library`: the `DocumentChunks` collection of the knowledge store, one atomic write
  per document; embedding happens in the store.
- `ingest`: paths, directories and globs, confined to the allowed roots, hashed for
  idempotence, with progress and per-file errors.
"""

from __future__ import annotations


def register_with_knowledge() -> None:
    """Plug documents into the knowledge layer, which sits below and may not import them:
    the DocumentChunks collection, and the citation that names each document passage
    knowledge_ask cites. The tools layer calls this on the knowledge layer's first lookup."""
    from video_research.documents import library
    from video_research.knowledge import citations
    from video_research.knowledge.collections import register_collection

    register_collection(library.DOCUMENT_CHUNKS)
    citations.register_label(library.COLLECTION, library.citation)

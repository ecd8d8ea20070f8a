"""Start-up wiring: the domain packages plugged into the knowledge layer below them.

knowledge/ may not import transcripts, documents or papers, yet its registry must list
their collections, and knowledge_ask must cite a document page and pinpoint a transcript
moment. Each of those packages has a `register_with_knowledge()`; `install()` hands the
knowledge layer one registrar that calls them, run on its first lookup. Nothing is
imported until then, so listing tools and starting the server stay fast, as when the
knowledge layer imported these modules itself on first use.

The tools package calls `install()` when it loads: every path to a handler (the server's
dispatch, the `call` command, the tests' in-process calls) goes through it.
"""

from __future__ import annotations

from video_research.knowledge.collections import add_registrar


def register_domains() -> None:
    """Have every domain package that defines collections register with the knowledge
    layer, in a fixed order (the order `registered_collections()` lists them in)."""
    from video_research import documents, papers, transcripts

    transcripts.register_with_knowledge()
    documents.register_with_knowledge()
    papers.register_with_knowledge()


def install() -> None:
    """Register the domains on the knowledge layer's first lookup (idempotent)."""
    add_registrar(register_domains)

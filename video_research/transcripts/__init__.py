"""Video transcripts: fetched or read, chunked, indexed in the knowledge store, searched."""

from __future__ import annotations


def register_with_knowledge() -> None:
    """Plug transcripts into the knowledge layer, which sits below and may not import them:
    the TranscriptChunks and TranscriptVideos collections, and the pinpointer that points
    each chunk knowledge_ask cites at the moment the question's words are spoken. The
    tools layer calls this on the knowledge layer's first lookup."""
    from video_research.knowledge import passages
    from video_research.knowledge.collections import register_collection
    from video_research.transcripts import records, search, windows

    register_collection(records.CHUNKS_COLLECTION)
    register_collection(records.VIDEOS_COLLECTION)
    register_collection(windows.WINDOWS_COLLECTION)
    passages.register_pinpointer(records.CHUNKS, search.pinpoint_hits)

"""A video's chapters at index time: made (or taken from its author) while its transcript
is written, stored in its record (`chapters_json`, read by transcript_get and
video_chapters) and as one chunk per chapter in TranscriptChunks (`evidence: "chapter"`,
the chapter's title as its text, its start and end), so a search whose words match a
chapter title finds it and links to where it starts.

The speech windows (`transcripts.windows`) are embedded here once and stored with their
vectors: the same vectors search links moments with give the topic-shift signal, so
computing chapters costs no extra model call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from video_research.knowledge.filters import Filter
from video_research.knowledge.store import generate_uuid5
from video_research.transcripts import chapters as chaptering
from video_research.transcripts import windows
from video_research.transcripts.parsers import Cue

CHAPTER = "chapter"
CHAPTER_CHUNKS = Filter.eq("evidence", CHAPTER)
MAX_CHAPTERS = 500


def chapter_chunk_uuid(video_id: str, index: int) -> str:
    return generate_uuid5(f"{video_id}#chapter#{index}", "transcript-chunk")


async def store_windows(store: Any, video_id: str, cues: Sequence[Cue]) -> tuple[list[float], Any]:
    """What `windows.store_windows` does, the vectors computed here and kept: (the windows'
    start times, their vectors)."""
    cut = windows.cut(cues)
    objects = [windows.window_object(video_id, window) for window in cut]
    vectors = None
    if objects:
        definition = windows.WINDOWS_COLLECTION
        vectors = await store.embedder.embed(
            [definition.vector_text(obj) for obj in objects], "document"
        )
    await store.replace_where(
        windows.WINDOWS,
        Filter.eq("video_id", video_id),
        objects,
        uuids=[windows.window_uuid(video_id, window.first_cue, window.start) for window in cut],
        vectors=vectors,
    )
    return [window.start for window in cut], vectors


async def slides_of(store: Any, chunks: str, video_id: str, screen: Any) -> list[chaptering.Slide]:
    """The video's on-screen text stretches (written before its speech by index_media_files),
    each with its first line as a title."""
    page = await store.fetch(
        chunks, where=Filter.all_of(Filter.eq("video_id", video_id), screen), limit=4000
    )
    return [
        chaptering.Slide(float(obj.properties["start_time"]), _first_line(obj.properties["text"]))
        for obj in page.objects
    ]


def _first_line(text: str) -> str:
    return next((line.strip() for line in str(text).splitlines() if line.strip()), "")


def make_chapters(
    authored: Sequence[Any],
    cues: Sequence[Cue],
    window_starts: Sequence[float],
    vectors: Any,
    *,
    cuts: Sequence[float],
    slides: Sequence[chaptering.Slide],
) -> list[chaptering.VideoChapter]:
    """The author's chapters (`authored`: chunker Chapters with their evidence) when there
    are any, else computed ones. Blocking (numpy): run it in a thread."""
    duration = max((cue.end for cue in cues), default=0.0)
    if authored:
        by_evidence: dict[chaptering.Evidence, list[Any]] = {}
        for chapter in authored:
            by_evidence.setdefault(getattr(chapter, "evidence", chaptering.AUTHOR), []).append(
                chapter
            )
        evidence, own = next(iter(by_evidence.items()))
        signals = getattr(own[0], "signals", ())
        return chaptering.given([(c.start, c.title) for c in own], duration, evidence, signals)[
            :MAX_CHAPTERS
        ]
    matrix = None if vectors is None else np.asarray(vectors)
    return chaptering.compute(cues, window_starts, matrix, cuts=cuts, slides=slides)[:MAX_CHAPTERS]


def chapter_objects(
    found: Sequence[chaptering.VideoChapter], common: Mapping[str, Any], link_for: Any
) -> list[dict[str, Any]]:
    """The chunks that make chapter titles searchable: one per chapter."""
    return [
        {
            **common,
            "chapter": chapter.title,
            "text": chapter.title,
            "start_time": chapter.start,
            "end_time": max(chapter.end, chapter.start),
            "timestamp_url": link_for(chapter.start),
            "chunk_index": n,
            "evidence": CHAPTER,
            "first_cue": 0,
            "last_cue": 0,
            "cue_starts": json.dumps([round(chapter.start, 2)]),
        }
        for n, chapter in enumerate(found)
    ]

"""On-screen text in the moment index: the second kind of evidence beside speech.

An on-screen text timeline (spans of text with the times they appeared and disappeared,
from `media_screen_text`) is stored as TranscriptChunks with `evidence: "screen"`: one
chunk per stretch of time in which the same texts were shown (a slide), its lines in
reading order. So `semantic_search_transcripts` finds what was shown beside what was
said, says which each hit is, and can be narrowed to either.

The screen chunks of a video are replaced as a whole (never its speech chunks, which
`indexer.index_transcript` replaces on its own). A video with speech has the speech's
TranscriptVideos record. A video with on-screen text and nothing to hear (a slide deck
recorded without a voice) gets a record of its own, `source: "screen"` with no segments
(`record_screen_only`), so get_indexed_videos lists it and an unchanged file is skipped;
the indexers that skip videos already indexed do not count such a record, so it never
stops a transcript from being fetched or indexed later (which replaces the record).
`delete_indexed_video` removes the screen chunks with the rest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from video_research.knowledge.filters import Filter
from video_research.knowledge.store import generate_uuid5, get_store, now_utc
from video_research.transcripts.records import (
    CHUNKS,
    MAX_CHUNKS,
    SCREEN,
    SCREEN_CHUNKS,
    VIDEOS,
    VideoInfo,
    coverage_fields,
    timestamp_url,
    video_common,
    video_summary,
    video_uuid,
)

if TYPE_CHECKING:
    from video_research.support.schema_types.common.transcripts import Video
    from video_research.support.schema_types.tools.media_screen_text_output import Indexed


def screen_chunk_uuid(video_id: str, index: int) -> str:
    return generate_uuid5(f"{video_id}#screen#{index}", "transcript-chunk")


def group_spans(spans: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Spans shown over the same stretch of time, as one group: {start, end, lines}."""
    groups: dict[tuple[float, float], list[Mapping[str, Any]]] = {}
    for span in spans:
        groups.setdefault((span["appeared"], span["disappeared"]), []).append(span)
    return [
        {"start": start, "end": end, "lines": [span["text"] for span in members]}
        for (start, end), members in sorted(groups.items())
    ]


async def index_screen_text(
    info: VideoInfo,
    spans: Sequence[Mapping[str, Any]],
    *,
    source_path: str,
    coverage: dict[str, Any] | None = None,
) -> Indexed:
    """Store `spans` as the screen chunks of `info.video_id`; {"video_id", "chunk_count"}.
    `coverage`: what the file holds (`indexer.index_transcript`'s `media`), so a hit from
    a file cut short says `complete: false`."""
    groups = group_spans(spans)[:MAX_CHUNKS]
    link = info.link
    objects = [
        {
            **video_common(info, language="", is_generated=True, source="file"),
            "evidence": SCREEN,
            "chapter": "",
            "text": "\n".join(group["lines"]),
            "start_time": group["start"],
            "end_time": group["end"],
            "timestamp_url": timestamp_url(info.video_id, link, group["start"]),
            "chunk_index": index,
            "first_cue": 0,
            "last_cue": len(group["lines"]) - 1,
            "cue_starts": json.dumps([group["start"]] * len(group["lines"])),
            "complete": bool((coverage or {}).get("complete", True)),
        }
        for index, group in enumerate(groups)
    ]
    store = await get_store()
    await store.replace_where(
        CHUNKS,
        Filter.all_of(Filter.eq("video_id", info.video_id), SCREEN_CHUNKS),
        objects,
        uuids=[screen_chunk_uuid(info.video_id, n) for n in range(len(objects))],
    )
    return {"video_id": info.video_id, "chunk_count": len(objects)}


async def record_screen_only(
    info: VideoInfo,
    chunk_count: int,
    *,
    source_path: str,
    stamps: dict[str, str],
    media: dict[str, Any] | None = None,
) -> Video:
    """The TranscriptVideos record of a video indexed by its on-screen text alone (see the
    module docstring); `stamps` as for speech, so an unchanged file is skipped next time;
    `media` as for `indexer.index_transcript` (its duration, whether it is whole)."""
    record = {
        **video_common(info, language="", is_generated=True, source=SCREEN),
        "source_path": source_path,
        "chunk_count": chunk_count,
        "segment_count": 0,
        "duration_seconds": round(float((media or {}).get("seconds_claimed") or 0.0), 3),
        **coverage_fields(media),
        "indexed_at": now_utc(),
        "chapters_json": "[]",
        "segments_json": "[]",
        **stamps,
    }
    store = await get_store()
    await store.upsert(VIDEOS, record, uuid=video_uuid(info.video_id))
    return video_summary(record)

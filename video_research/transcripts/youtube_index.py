"""Indexing YouTube transcripts for the transcript tools: listed videos, a channel's uploads,
and what a search indexes on its own before it runs.

Every way of indexing reports the same batch summary (`batch_summary`): counts, the videos
indexed, skipped and failed, and notes. One video's failure is an item of the batch, never
the end of it; a channel or a list that cannot be indexed at all becomes a note where the
tool goes on without it (a search, a channel listing that pages what is already indexed).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from video_research.config import Settings
from video_research.knowledge.filters import Filter
from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.transcripts import indexer
from video_research.transcripts.sources import fetch_youtube, is_youtube_id

if TYPE_CHECKING:
    from video_research.support.schema_types.common.transcripts import Batch, IndexedItem


CHANNEL_AUTO_INDEX_VIDEOS = 50
"""How many of a channel's newest uploads a search indexes when nothing of it is indexed."""


COVERAGE_FIELDS: tuple[
    Literal["duration_seconds", "complete", "seconds_read", "seconds_claimed"], ...
] = ("duration_seconds", "complete", "seconds_read", "seconds_claimed")
"""What an item read from a media file says of it: its one duration, and whether the file
held all it claims (a download cut short does not)."""


def _batch_item(video: Mapping[str, Any]) -> IndexedItem:
    """What the summary keeps of an indexed video (the rest can be had from
    get_indexed_videos)."""
    item: IndexedItem = {
        "video_id": video["video_id"],
        "video_title": video["video_title"],
        "language": video["language"],
        "chunk_count": video["chunk_count"],
    }
    if "seconds_claimed" in video:  # read from a media file
        for key in COVERAGE_FIELDS:
            if key in video:
                item[key] = video[key]
    return item


def batch_summary(result: Mapping[str, Any], notes: list[str]) -> Batch:
    """The batch every indexing tool reports, from an indexer result ("indexed", "skipped",
    "failed", "chunk_count"); public because index_transcript_files reports its files alike."""
    return {
        "indexed_count": len(result["indexed"]),
        "skipped_count": len(result["skipped"]),
        "failed_count": len(result["failed"]),
        "chunk_count": result["chunk_count"],
        "indexed": [_batch_item(video) for video in result["indexed"]],
        "skipped": result["skipped"],
        "failed": result["failed"],
        "notes": notes,
    }


def empty_batch() -> Batch:
    """The summary of a batch that indexed nothing (a search that indexed nothing first)."""
    return batch_summary({"indexed": [], "skipped": [], "failed": [], "chunk_count": 0}, [])


def languages(language: str | None, settings: Settings) -> list[str] | None:
    """The caption languages to try: the one asked for, then the configured ones; None
    (the configured ones) when none was asked for."""
    if not language:
        return None
    return list(dict.fromkeys([language, *settings.transcript_languages]))


async def index_videos(
    video_ids: list[str],
    *,
    languages: list[str] | None,
    force: bool,
    progress: indexer.Progress,
) -> Batch:
    """Fetch and index the transcripts of YouTube videos, with their metadata when the Data
    API gives it (a note says when it does not)."""
    infos, note = await indexer.video_infos(video_ids)
    result = await indexer.index_youtube_videos(
        [infos[v] for v in video_ids], languages=languages, force=force, progress=progress
    )
    return batch_summary(result, [note] if note else [])


async def index_channel(
    channel_id: str,
    max_videos: int,
    *,
    languages: list[str] | None,
    force: bool,
    progress: indexer.Progress,
) -> tuple[int, Batch]:
    """List a channel's uploads and index them incrementally: (videos found, batch)."""
    from video_research.clients import youtube

    videos = await youtube.list_channel_videos(channel_id, max_videos)
    await progress(0, len(videos), f"{len(videos)} videos in {channel_id}")
    infos = [indexer.VideoInfo.from_metadata(video) for video in videos]
    result = await indexer.index_youtube_videos(
        infos, languages=languages, force=force, progress=progress
    )
    return len(videos), batch_summary(result, [])


async def refresh_channel(
    channel_id: str,
    max_videos: int,
    *,
    languages: list[str] | None,
    progress: indexer.Progress,
) -> Batch:
    """Index a channel's new uploads before listing it. Without the Data API a channel
    with something indexed is listed as it is, with a note; one with nothing fails."""
    try:
        _, batch = await index_channel(
            channel_id, max_videos, languages=languages, force=False, progress=progress
        )
    except ToolFailure as failure:
        _, indexed, _ = await indexer.list_videos(Filter.eq("channel_id", channel_id), 1, 0)
        if not indexed:
            raise
        batch = empty_batch()
        batch["notes"].append(
            f"Channel {channel_id} was not refreshed, showing what is indexed: {failure.message}"
        )
    return batch


async def index_video(video_id: str, languages: list[str] | None, settings: Settings) -> None:
    """Fetch and index one YouTube video's transcript; TranscriptUnavailable says why
    there is none."""
    infos, _ = await indexer.video_infos([video_id])
    transcript = await fetch_youtube(video_id, languages, settings)
    await indexer.index_transcript(transcript, infos[video_id])


async def auto_index(
    video_ids: list[str],
    channel_ids: list[str],
    *,
    languages: list[str] | None,
    progress: indexer.Progress,
) -> Batch:
    """Index listed YouTube videos that are missing, and channels with nothing indexed.

    A failure here is a note: the search still runs on what is indexed."""
    already = await indexer.indexed_ids(video_ids)
    missing = [v for v in video_ids if is_youtube_id(v) and v not in already]
    batch = empty_batch()
    try:
        if missing:
            batch = await index_videos(missing, languages=languages, force=False, progress=progress)
    except ToolFailure as failure:
        batch["notes"].append(f"The listed videos were not indexed: {failure.message}")
        if failure.category is ErrorCategory.CONFIG_ERROR:
            channel_ids = []  # every channel would fail alike
    for channel_id in channel_ids:
        _, total, _ = await indexer.list_videos(Filter.eq("channel_id", channel_id), 1, 0)
        if total:
            continue
        try:
            _, channel = await index_channel(
                channel_id,
                CHANNEL_AUTO_INDEX_VIDEOS,
                languages=languages,
                force=False,
                progress=progress,
            )
        except ToolFailure as failure:
            batch["notes"].append(f"Channel {channel_id} was not indexed: {failure.message}")
            if failure.category is ErrorCategory.CONFIG_ERROR:
                break
            continue
        batch["indexed"] = batch["indexed"] + channel["indexed"]
        batch["skipped"] = batch["skipped"] + channel["skipped"]
        batch["failed"] = batch["failed"] + channel["failed"]
        batch["notes"] = batch["notes"] + channel["notes"]
        batch["chunk_count"] += channel["chunk_count"]
    batch["indexed_count"] = len(batch["indexed"])
    batch["skipped_count"] = len(batch["skipped"])
    batch["failed_count"] = len(batch["failed"])
    return batch

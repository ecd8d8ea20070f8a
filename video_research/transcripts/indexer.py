"""Indexing transcripts into the knowledge store, and reading back what is indexed.

One video: `index_transcript` chunks a transcript, stores its chunks and chapters, then
its record. Many YouTube videos: `video_infos` and `index_youtube_videos`. Reading:
`get_video`, `list_videos`, `file_records`, `indexed_ids`; `delete_video` removes one.
The collections and the shape of what is stored are in `transcripts.records`.

A video's record is written after its chunks and deleted before them, so its presence
means "indexed"; re-indexing swaps the chunks of a video in one `replace_where`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from video_research.config import Settings
from video_research.knowledge.filters import Filter, FilterNode
from video_research.knowledge.store import Sort, get_store, now_utc
from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.support.services import current_settings
from video_research.transcripts import chapter_index, windows
from video_research.transcripts.chunker import chunk_cues
from video_research.transcripts.parsers import Budget, TranscriptTooLarge

# The collections and record shapes, importable from here as before the split.
from video_research.transcripts.records import CHUNKS as CHUNKS
from video_research.transcripts.records import CHUNKS_COLLECTION as CHUNKS_COLLECTION
from video_research.transcripts.records import MAX_CHUNKS as MAX_CHUNKS
from video_research.transcripts.records import SCREEN as SCREEN
from video_research.transcripts.records import SCREEN_CHUNKS as SCREEN_CHUNKS
from video_research.transcripts.records import SPEECH as SPEECH
from video_research.transcripts.records import SPEECH_CHUNKS as SPEECH_CHUNKS
from video_research.transcripts.records import VIDEOS as VIDEOS
from video_research.transcripts.records import VIDEOS_COLLECTION as VIDEOS_COLLECTION
from video_research.transcripts.records import VideoInfo as VideoInfo
from video_research.transcripts.records import chunk_properties as chunk_properties
from video_research.transcripts.records import chunk_uuid as chunk_uuid
from video_research.transcripts.records import coverage_fields as coverage_fields
from video_research.transcripts.records import cues_of as cues_of
from video_research.transcripts.records import media_duration as media_duration
from video_research.transcripts.records import timestamp_url as timestamp_url
from video_research.transcripts.records import transcript_common
from video_research.transcripts.records import video_summary as video_summary
from video_research.transcripts.records import video_uuid as video_uuid
from video_research.transcripts.sources import (
    Transcript,
    TranscriptUnavailable,
    failure_item,
    fetch_youtube,
)

if TYPE_CHECKING:
    from video_research.support.schema_types.common.transcripts import Video

logger = logging.getLogger(__name__)


async def index_transcript(
    transcript: Transcript,
    info: VideoInfo,
    settings: Settings | None = None,
    *,
    stamps: dict[str, str] | None = None,
    budget: Budget | None = None,
    cuts: Sequence[float] = (),
    media: dict[str, Any] | None = None,
) -> Video:
    """Chunk and store one video's transcript, replacing what was indexed for it before.

    `cuts`: the video's scene cuts (seconds), which no chunk spans. `media`: what the media
    file it was read from holds ({"complete", "seconds_read", "seconds_claimed"}, the
    handler's measure): its claimed length is the video's duration, and a partial file's
    chunks and record say so (`complete: false`) until the whole file is indexed again.

    `stamps` (source_sha256, metadata_sha256, and speech_model for speech) are kept in the
    record for `file_record`.
    Chunking runs in a worker thread (a long transcript takes seconds of CPU) within
    `budget`; TranscriptTooLarge when it runs out or the transcript would make more than
    MAX_CHUNKS chunks.
    """
    settings = settings or current_settings()
    store = await get_store(settings)
    # Chunks are measured in the tokens of the model that embeds them; the tokenizer's
    # one-time load is not this file's cost.
    tokens = store.embedder.token_counter()
    await asyncio.to_thread(tokens.load)
    budget = budget or Budget(settings.transcript_file_budget_seconds)
    budget.resume()
    chunks, cues = await asyncio.to_thread(
        chunk_cues,
        transcript.cues,
        title=info.title,
        chapters=info.chapters,
        target_tokens=settings.transcript_chunk_tokens,
        overlap_tokens=min(
            settings.transcript_chunk_overlap, settings.transcript_chunk_tokens // 2
        ),
        cuts=cuts,
        budget=budget,
        tokens=tokens,
    )
    budget.pause()
    if len(chunks) > MAX_CHUNKS:
        raise TranscriptTooLarge(
            f"{len(chunks)} chunks is more than one video may have ({MAX_CHUNKS}, about "
            f"{MAX_CHUNKS // 85} hours of speech); split the transcript"
        )
    link = info.link
    common = transcript_common(info, transcript)
    objects = chunk_properties(info, transcript, chunks, cues, media)
    await store.replace_where(
        CHUNKS,
        Filter.all_of(Filter.eq("video_id", info.video_id), SPEECH_CHUNKS),
        objects,
        uuids=[chunk_uuid(info.video_id, chunk.index) for chunk in chunks],
    )
    window_starts, vectors = await chapter_index.store_windows(store, info.video_id, cues)
    slides = await chapter_index.slides_of(store, CHUNKS, info.video_id, SCREEN_CHUNKS)
    found = await asyncio.to_thread(
        chapter_index.make_chapters,
        info.chapters,
        cues,
        window_starts,
        vectors,
        cuts=cuts,
        slides=slides,
    )
    await store.replace_where(
        CHUNKS,
        Filter.all_of(Filter.eq("video_id", info.video_id), chapter_index.CHAPTER_CHUNKS),
        chapter_index.chapter_objects(
            found, common, lambda at: timestamp_url(info.video_id, link, at)
        ),
        uuids=[chapter_index.chapter_chunk_uuid(info.video_id, n) for n in range(len(found))],
    )
    named = await _speaker_names(store, info.video_id)
    record = {
        **common,
        "source_path": transcript.source_path or None,
        "chunk_count": len(chunks),
        "segment_count": len(cues),
        "duration_seconds": media_duration(media, cues),
        **coverage_fields(media),
        "indexed_at": now_utc(),
        "chapters_json": json.dumps([c.to_dict() for c in found], ensure_ascii=False),
        "segments_json": json.dumps([cue.to_dict() for cue in cues], ensure_ascii=False),
        **named,
        **(stamps or {}),
    }
    await store.upsert(VIDEOS, record, uuid=video_uuid(info.video_id))
    return video_summary(record)


async def _speaker_names(store: Any, video_id: str) -> dict[str, Any]:
    """The names users gave the video's speakers, kept when it is indexed again."""
    found = await store.get(VIDEOS, video_uuid(video_id))
    if not found or not found.properties.get("speaker_names_json"):
        return {}
    return {key: found.properties.get(key) for key in ("speaker_names_json", "speaker_names")}


async def get_video(video_id: str) -> dict[str, Any] | None:
    """The stored record of an indexed video (with segments_json), or None."""
    store = await get_store()
    found = await store.get(VIDEOS, video_uuid(video_id))
    return found.properties if found else None


async def get_videos(video_ids: Sequence[str]) -> list[dict[str, Any] | None]:
    """`get_video` of each, read in one call of the store (a search's few videos)."""
    if not video_ids:
        return []
    store = await get_store()
    page = await store.fetch(
        VIDEOS, where=Filter.in_("video_id", list(video_ids)), limit=len(video_ids)
    )
    found = {obj.properties["video_id"]: obj.properties for obj in page.objects}
    return [found.get(video_id) for video_id in video_ids]


async def file_records(source_path: str) -> list[dict[str, Any]]:
    """The records of videos indexed from the file at `source_path` (a resolved path)."""
    store = await get_store()
    page = await store.fetch(VIDEOS, where=Filter.eq("source_path", source_path), limit=10)
    return [obj.properties for obj in page.objects]


async def indexed_ids(video_ids: Sequence[str]) -> set[str]:
    """Which of `video_ids` have their speech indexed (captions, a transcript file or a
    transcription): a video known by its on-screen text alone is not, so the indexers
    that skip indexed videos still fetch its transcript."""
    if not video_ids:
        return set()
    store = await get_store()
    page = await store.fetch(
        VIDEOS, where=Filter.in_("video_id", list(video_ids)), limit=len(video_ids)
    )
    return {
        obj.properties["video_id"] for obj in page.objects if obj.properties.get("source") != SCREEN
    }


async def delete_video(video_id: str) -> tuple[bool, int]:
    """Remove a video's record and chunks: (whether it was indexed, chunks deleted).

    The record goes first: interrupted in between, the video reads as not indexed and is
    indexed again next time (replacing the left-over chunks), never as indexed without chunks.
    """
    store = await get_store()
    existed = await store.delete(VIDEOS, video_uuid(video_id))
    chunks = await store.delete_where(CHUNKS, Filter.eq("video_id", video_id))
    await windows.delete_windows(store, video_id)
    return existed, chunks


async def list_videos(
    where: FilterNode | None, limit: int, offset: int
) -> tuple[list[Video], int, int | None]:
    """(video summaries newest first, total matching, next offset)."""
    store = await get_store()
    page = await store.fetch(
        VIDEOS,
        where=where,
        order_by=[Sort("published_at", descending=True), Sort("indexed_at", descending=True)],
        limit=limit,
        offset=offset,
    )
    total = await store.count(VIDEOS, where)
    return [video_summary(obj.properties) for obj in page.objects], total, page.next_offset


# ----------------------------------------------------------------------------- YouTube batches

Progress = Callable[[int, int, str], Awaitable[None]]


async def video_infos(
    video_ids: Sequence[str], *, titled: Sequence[str] = ()
) -> tuple[dict[str, VideoInfo], str | None]:
    """Metadata (title, channel, chapters) from the Data API; a note when it could not be had.

    Without a YouTube key, titles and channels (not chapters or dates) come from what was
    indexed before (a yt-dlp .info.json read with an earlier transcript) or else from
    YouTube's oEmbed endpoint, which needs no key; `titled` are IDs whose caller already
    knows their title (a sidecar beside the file), not asked for. When the API fails,
    indexing goes on with bare IDs.
    """
    from video_research.clients import youtube

    infos = {video_id: VideoInfo(video_id) for video_id in video_ids}
    if not current_settings().effective_youtube_api_key:
        return await _keyless_infos(infos, set(titled))
    try:
        for video in await youtube.get_videos(list(video_ids)):
            infos[video["video_id"]] = VideoInfo.from_metadata(video)
    except ToolFailure as failure:
        logger.warning("video metadata for transcripts failed: %s", failure.message)
        return infos, f"Video metadata could not be fetched: {failure.message}"
    return infos, None


async def _keyless_infos(
    infos: dict[str, VideoInfo], titled: set[str]
) -> tuple[dict[str, VideoInfo], str | None]:
    """video_infos without a key: stored records first, oEmbed for the rest."""
    from video_research.clients import youtube_oembed

    wanted = [video_id for video_id in infos if video_id not in titled]
    if not wanted:
        return infos, None
    store = await get_store()
    stored = []
    for start in range(0, len(wanted), 1000):
        part = wanted[start : start + 1000]
        page = await store.fetch(VIDEOS, where=Filter.in_("video_id", part), limit=len(part))
        stored += page.objects
    for obj in stored:
        props = obj.properties
        if props.get("video_title"):
            infos[props["video_id"]] = VideoInfo(
                props["video_id"],
                title=props["video_title"],
                channel_id=props.get("channel_id") or "",
                channel_title=props.get("channel_title") or "",
                published_at=props.get("published_at"),
                url=props.get("video_url") or "",
            )
    asked = [video_id for video_id in wanted if not infos[video_id].title]
    found = await youtube_oembed.oembed_many(asked) if asked else {}
    for video_id, fields in found.items():
        infos[video_id].title = fields["title"]
        infos[video_id].channel_title = fields["channel_title"]
    missing = len(asked) - len(found)
    note = "No YOUTUBE_API_KEY: titles and channels came from YouTube's oEmbed or earlier sidecars; chapters and dates were not fetched."
    if missing:
        note += f" {missing} video(s) got no title (private, deleted, or oEmbed unreachable)."
    return infos, note


async def index_youtube_videos(
    infos: Sequence[VideoInfo],
    *,
    languages: list[str] | None,
    force: bool,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Fetch and index many videos' transcripts; one video's failure never stops the rest.

    Returns {"indexed": [summary], "skipped": [video_id], "failed": [failure item],
    "chunk_count": n}. Already indexed videos are skipped unless `force`. A video that
    cannot be fetched or stored is listed in "failed"; a config_error (the store refuses
    writes, e.g. after an embedding model change) would refuse every video alike, so it
    stops the batch: videos not started are left alone and the error is raised.
    """
    settings = current_settings()
    already = set() if force else await indexed_ids([info.video_id for info in infos])
    indexed: list[Video] = []
    failed: list[dict[str, Any]] = []
    skipped = [info.video_id for info in infos if info.video_id in already]
    todo = [info for info in infos if info.video_id not in already]
    gate = asyncio.Semaphore(settings.transcript_fetch_concurrency)
    done = len(skipped)
    total = len(infos)
    stop: ToolFailure | None = None
    if progress and skipped:
        await progress(done, total, f"{len(skipped)} already indexed")

    async def one(info: VideoInfo) -> None:
        nonlocal done, stop
        async with gate:
            if stop is not None:
                return
            try:
                transcript = await fetch_youtube(info.video_id, languages, settings)
                if stop is not None:
                    return
                indexed.append(await index_transcript(transcript, info, settings))
                message = f"indexed {info.title or info.video_id}"
            except TranscriptUnavailable as failure:
                failed.append(failure.to_item())
                message = f"{info.video_id}: {failure.reason}"
            except ToolFailure as failure:
                if failure.category is ErrorCategory.CONFIG_ERROR:
                    stop = stop or failure
                    return
                failed.append(failure_item(failure, "error", video_id=info.video_id))
                message = f"{info.video_id}: {failure.message}"
        done += 1
        if progress:
            await progress(done, total, message)

    await asyncio.gather(*(one(info) for info in todo))
    if stop is not None:
        raise stop
    order = {info.video_id: n for n, info in enumerate(infos)}
    indexed.sort(key=lambda item: order[item["video_id"]])
    failed.sort(key=lambda item: order[item["video_id"]])
    return {
        "indexed": indexed,
        "skipped": skipped,
        "failed": failed,
        "chunk_count": sum(item["chunk_count"] for item in indexed),
    }

"""Transcripts in the knowledge store: two collections, indexing and paging (search, on
top of them, is `transcripts.search`).

`TranscriptChunks` holds the search chunks of every indexed video (its metadata:
video_id, channel_id, channel_title, video_title, video_url, published_at, start_time,
end_time, timestamp_url, language, chunk_index, chapter, evidence). `evidence` says what
kind of evidence a chunk is: "speech" (what was said; chunks stored before the field
existed have none and count as speech) or "screen" (text shown on screen, written by
`transcripts.screen`). The two kinds of one video are replaced independently. Its embedding text is the
video title, the chapter and the chunk's words, in that order, so "the Vimjoyer video
about garbage collection" matches on the title as well as the words. channel_id,
video_id, language, published_at and the times are filterable: channel_id is the key a
search is usually narrowed by.

`TranscriptVideos` holds one object per indexed video (a deterministic UUID from the
video ID): its metadata, chapters and the full cue list for `transcript_get`. It is
written after the video's chunks and deleted before them, so its presence means
"indexed"; re-indexing swaps the chunks of a video in one `replace_where`. A file's
record also keeps the SHA-256 of the file and of the metadata it was indexed with, so
an unchanged file is skipped on the next run.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, NotRequired, TypedDict

from video_research.config import Settings
from video_research.knowledge.collections import (
    CollectionDef,
    DataType,
    Property,
    register_collection,
)
from video_research.knowledge.filters import Filter, FilterNode
from video_research.knowledge.store import Sort, generate_uuid5, get_store, now_utc
from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.support.services import current_settings
from video_research.support.youtube_urls import watch_url
from video_research.transcripts import chapter_index, windows
from video_research.transcripts.chunker import Chapter, Chunk, chunk_cues
from video_research.transcripts.parsers import Budget, Cue, TranscriptTooLarge
from video_research.transcripts.sources import (
    Transcript,
    TranscriptUnavailable,
    failure_item,
    fetch_youtube,
    is_youtube_id,
)

if TYPE_CHECKING:
    from video_research.support.schema_types.common.transcript_chunk import (
        TranscriptChunk,
        VideoFields,
    )

logger = logging.getLogger(__name__)

CHUNKS = "TranscriptChunks"
VIDEOS = "TranscriptVideos"
SPEECH: Final = "speech"
SCREEN = "screen"
CHAPTER = chapter_index.CHAPTER
EVIDENCE_KINDS = (SPEECH, SCREEN, CHAPTER)
SPEECH_CHUNKS = Filter.all_of(Filter.ne("evidence", SCREEN), Filter.ne("evidence", CHAPTER))
"""Speech chunks: those not marked screen or chapter (chunks from before the field have
none)."""
SCREEN_CHUNKS = Filter.eq("evidence", SCREEN)
MAX_CHUNKS = 5000
"""Chunks one video may have: a 12-hour stream makes about 1,000."""


def _id(name: str, description: str) -> Property:
    """An identifier: filterable, compared whole, out of BM25."""
    return Property(name, DataType.TEXT, description, filterable=True, exact=True)


def _blob(name: str, description: str) -> Property:
    """Stored and returned, never searched (links, JSON)."""
    return Property(name, DataType.TEXT, description, searchable=False)


VIDEO_ID = Property(
    "video_id",
    DataType.TEXT,
    "YouTube video ID (or the transcript file's name)",
    filterable=True,
    exact=True,
    required=True,
)


CHUNKS_COLLECTION = register_collection(
    CollectionDef(
        CHUNKS,
        "Timed chunks of video transcripts (semantic_search_transcripts)",
        (
            Property("video_title", DataType.TEXT, "Video title", vectorize=True),
            Property("chapter", DataType.TEXT, "Chapter title", vectorize=True, filterable=True),
            Property(
                "text", DataType.TEXT, "The spoken words, one caption per line", vectorize=True
            ),
            VIDEO_ID,
            _id("channel_id", "YouTube channel ID: the key searches are narrowed by"),
            Property("channel_title", DataType.TEXT, "Channel name"),
            _blob("video_url", "Link to the video"),
            _blob("timestamp_url", "Link to the video at start_time"),
            Property("published_at", DataType.DATE, "Publication time", filterable=True),
            Property("start_time", DataType.NUMBER, "Start, seconds", filterable=True),
            Property("end_time", DataType.NUMBER, "End, seconds", filterable=True),
            _id("language", "Language code: the sentences' own (speech), else the transcript's"),
            Property(
                "language_probability",
                DataType.NUMBER,
                "How sure the speech model was of the sentences' language (speech only)",
                filterable=True,
            ),
            Property("chunk_index", DataType.INT, "Position in the video", filterable=True),
            Property("first_cue", DataType.INT, "Index of the chunk's first cue"),
            Property("last_cue", DataType.INT, "Index of the chunk's last cue"),
            Property("is_generated", DataType.BOOLEAN, "From automatic captions", filterable=True),
            _id("source", "youtube, file or speech"),
            _id(
                "evidence",
                "speech (captions, transcripts: the default), screen (text shown on screen, "
                "read by OCR) or chapter (a chapter's title, from its author or computed)",
            ),
            _blob(
                "cue_starts", "Start of each line of text, seconds, as a JSON list (pinpointing)"
            ),
            Property(
                "complete",
                DataType.BOOLEAN,
                "False when the media file held less than it claims (a download cut short): "
                "the hit is from the part that was read",
            ),
            _id(
                "speaker", "Who speaks in the chunk (S1, S2, ... per video), from the speaker pass"
            ),
        ),
        (
            "index_channel_transcripts",
            "index_transcript_files",
            "index_media_files",
            "semantic_search_transcripts",
        ),
    )
)

VIDEOS_COLLECTION = register_collection(
    CollectionDef(
        VIDEOS,
        "Videos whose transcripts are indexed, one object each, with the full transcript",
        (
            Property("video_title", DataType.TEXT, "Video title", vectorize=True),
            Property("channel_title", DataType.TEXT, "Channel name", vectorize=True),
            VIDEO_ID,
            _id("channel_id", "YouTube channel ID"),
            _blob("video_url", "Link to the video"),
            Property("published_at", DataType.DATE, "Publication time", filterable=True),
            _id("language", "Transcript language code"),
            Property("is_generated", DataType.BOOLEAN, "From automatic captions", filterable=True),
            _id("source", "youtube, file or speech"),
            _id("source_path", "The transcript file, for file sources"),
            _blob("source_sha256", "SHA-256 of the transcript file's bytes, for file sources"),
            _blob("metadata_sha256", "SHA-256 of the metadata the caller gave for the file"),
            _blob(
                "given_json",
                "What the caller said of the file (videos entry, channel, language) as JSON: "
                "a later call that leaves a field out keeps it",
            ),
            _id("speech_model", "The speech model that made the transcript, for speech sources"),
            Property("chunk_count", DataType.INT, "Chunks indexed", filterable=True),
            Property("segment_count", DataType.INT, "Caption cues", filterable=True),
            Property(
                "duration_seconds",
                DataType.NUMBER,
                "The media's duration (container, else longest stream), else the last cue's end",
                filterable=True,
            ),
            Property(
                "complete", DataType.BOOLEAN, "False when the media file held less than it claims"
            ),
            Property("seconds_read", DataType.NUMBER, "How much of the media file was read"),
            Property("seconds_claimed", DataType.NUMBER, "How long the media file says it is"),
            Property("indexed_at", DataType.DATE, "When it was indexed", filterable=True),
            _blob(
                "chapters_json",
                "Chapters as JSON [{title, start, end, evidence, signals}] (older records: "
                "[{start, title}], the author's)",
            ),
            _blob("segments_json", "Every cue as JSON [{start, end, text, speaker, language}]"),
            _blob("speaker_names_json", "Names users gave the video's speakers: {label: name}"),
            Property(
                "speaker_names",
                DataType.TEXT_ARRAY,
                "The names users gave the video's speakers (to find the videos a name is in)",
                filterable=True,
            ),
        ),
        ("index_channel_transcripts", "index_transcript_files", "index_media_files"),
    )
)


def video_uuid(video_id: str) -> str:
    return generate_uuid5(video_id, "transcript-video")


def chunk_uuid(video_id: str, index: int) -> str:
    return generate_uuid5(f"{video_id}#{index}", "transcript-chunk")


def timestamp_url(video_id: str, video_url: str, seconds: float) -> str:
    """A link that opens the video at `seconds`: YouTube's &t=, else a media fragment."""
    if is_youtube_id(video_id) and (not video_url or "youtube.com" in video_url):
        return watch_url(video_id, seconds)
    if video_url:
        # a media fragment takes fractions: to the tenth, never after the words start
        return f"{video_url.split('#')[0]}#t={max(0.0, math.floor(seconds * 10) / 10):.1f}"
    return ""


@dataclass
class VideoInfo:
    """What is known about a video besides its transcript."""

    video_id: str
    title: str = ""
    channel_id: str = ""
    channel_title: str = ""
    published_at: str | None = None
    url: str = ""
    chapters: list[Chapter] = field(default_factory=list)

    @classmethod
    def from_metadata(cls, video: dict[str, Any]) -> VideoInfo:
        """From `youtube.get_videos` metadata; chapters read from the description."""
        from video_research.transcripts.chunker import parse_chapters

        return cls(
            video_id=video["video_id"],
            title=video.get("title") or "",
            channel_id=video.get("channel_id") or "",
            channel_title=video.get("channel_title") or "",
            published_at=video.get("published_at") or None,
            url=video.get("url") or watch_url(video["video_id"]),
            chapters=parse_chapters(video.get("description")),
        )

    @property
    def link(self) -> str:
        if self.url:
            return self.url
        return watch_url(self.video_id) if is_youtube_id(self.video_id) else ""


async def index_transcript(
    transcript: Transcript,
    info: VideoInfo,
    settings: Settings | None = None,
    *,
    stamps: dict[str, str] | None = None,
    budget: Budget | None = None,
    cuts: Sequence[float] = (),
    media: dict[str, Any] | None = None,
) -> dict[str, Any]:
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
    common = _transcript_common(info, transcript)
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


def media_duration(media: dict[str, Any] | None, cues: Sequence[Cue]) -> float:
    """The one duration of a video: what its media file claims (the container's duration,
    else its longest stream's: `media.coverage.duration`, which every media tool reports),
    else the end of its last cue (a transcript without its media)."""
    claimed = (media or {}).get("seconds_claimed")
    if claimed:
        return round(float(claimed), 3)
    return max((cue.end for cue in cues), default=0.0)


def coverage_fields(media: dict[str, Any] | None) -> dict[str, Any]:
    """What a record keeps of its media file's coverage: complete, and the seconds read
    and claimed when the transcript was read from a media file."""
    if not media:
        return {"complete": True}
    return {
        "complete": bool(media.get("complete", True)),
        "seconds_read": round(float(media.get("seconds_read") or 0.0), 3),
        "seconds_claimed": round(float(media.get("seconds_claimed") or 0.0), 3),
    }


async def _speaker_names(store: Any, video_id: str) -> dict[str, Any]:
    """The names users gave the video's speakers, kept when it is indexed again."""
    found = await store.get(VIDEOS, video_uuid(video_id))
    if not found or not found.properties.get("speaker_names_json"):
        return {}
    return {key: found.properties.get(key) for key in ("speaker_names_json", "speaker_names")}


def video_common(info: VideoInfo, *, language: str, is_generated: bool, source: str) -> VideoFields:
    """The video's fields that each of its chunks and its record carry."""
    return {
        "video_id": info.video_id,
        "video_title": info.title,
        "channel_id": info.channel_id,
        "channel_title": info.channel_title,
        "video_url": info.link,
        "published_at": info.published_at,
        "language": language,
        "is_generated": is_generated,
        "source": source,
    }


def _transcript_common(info: VideoInfo, transcript: Transcript) -> VideoFields:
    return video_common(
        info,
        language=transcript.language,
        is_generated=transcript.is_generated,
        source=transcript.source,
    )


def chunk_properties(
    info: VideoInfo,
    transcript: Transcript,
    chunks: Sequence[Chunk],
    cues: Sequence[Cue],
    media: dict[str, Any] | None = None,
) -> list[TranscriptChunk]:
    """What is stored for each speech chunk (schemas/common/transcript_chunk.json): what a
    search hit's properties hold, so tests build hits through it, never by hand."""
    link = info.link
    objects: list[TranscriptChunk] = []
    for chunk in chunks:
        lines = cues[chunk.first_cue : chunk.last_cue + 1]
        props: TranscriptChunk = {
            **_transcript_common(info, transcript),
            **_chunk_language(lines, transcript.language),
            "chapter": chunk.chapter,
            "text": chunk.text,
            "start_time": chunk.start,
            "end_time": chunk.end,
            "timestamp_url": timestamp_url(info.video_id, link, chunk.start),
            "chunk_index": chunk.index,
            "evidence": SPEECH,
            "first_cue": chunk.first_cue,
            "last_cue": chunk.last_cue,
            "cue_starts": json.dumps([round(cue.start, 2) for cue in lines]),
            "complete": bool((media or {}).get("complete", True)),
        }
        if chunk.speaker:
            props["speaker"] = chunk.speaker
        objects.append(props)
    return objects


class _Language(TypedDict):
    language: str
    language_probability: NotRequired[float]


def _chunk_language(cues: Sequence[Cue], language: str) -> _Language:
    """A moment's language: its lines' own (the chunker keeps one language to a moment)
    with the least sure of their confidences, else the transcript's."""
    own = next((cue.language for cue in cues if cue.language), "")
    if not own:
        return {"language": language}
    found: _Language = {"language": own}
    sure = [cue.language_probability for cue in cues if cue.language_probability is not None]
    if sure:
        found["language_probability"] = min(sure)
    return found


def video_fields(props: dict[str, Any]) -> dict[str, Any]:
    """The video's own fields, as chunks and video records both carry them."""
    return {
        "video_id": props["video_id"],
        "video_title": props.get("video_title") or "",
        "channel_id": props.get("channel_id") or "",
        "channel_title": props.get("channel_title") or "",
        "video_url": props.get("video_url") or "",
        "published_at": props.get("published_at"),
        "language": props.get("language") or "",
    }


def video_summary(record: dict[str, Any]) -> dict[str, Any]:
    """A stored video as the tools show it (without the cue list)."""
    return {
        **video_fields(record),
        "is_generated": bool(record.get("is_generated")),
        "source": record.get("source") or "youtube",
        "source_path": record.get("source_path"),
        "chunk_count": record.get("chunk_count") or 0,
        "segment_count": record.get("segment_count") or 0,
        "duration_seconds": record.get("duration_seconds") or 0.0,
        "indexed_at": record.get("indexed_at"),
        **({"speech_model": record["speech_model"]} if record.get("speech_model") else {}),
        "complete": record.get("complete") is not False,
        **{key: record[key] for key in ("seconds_read", "seconds_claimed") if key in record},
    }


async def get_video(video_id: str) -> dict[str, Any] | None:
    """The stored record of an indexed video (with segments_json), or None."""
    store = await get_store()
    found = await store.get(VIDEOS, video_uuid(video_id))
    return found.properties if found else None


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
) -> tuple[list[dict[str, Any]], int, int | None]:
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
    indexed: list[dict[str, Any]] = []
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


def cues_of(record: dict[str, Any]) -> list[Cue]:
    return [Cue.from_dict(c) for c in json.loads(record["segments_json"])]

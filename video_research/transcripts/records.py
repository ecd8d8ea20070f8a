"""What the transcript index stores: its two collections, and the shape of each object in
them (`transcripts.indexer` does the indexing and the paging over them).

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
video ID): its metadata, chapters and the full cue list for `transcript_get`. A file's
record also keeps the SHA-256 of the file and of the metadata it was indexed with, so
an unchanged file is skipped on the next run.

Kept apart from the indexing so that what only reads the index or writes beside it
(search, moments, screen text) imports the shapes without the code that fetches and
indexes transcripts.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, NotRequired, TypedDict

from video_research.knowledge.collections import (
    CollectionDef,
    DataType,
    Property,
    blob,
    filterable,
    identifier,
    register_collection,
)
from video_research.knowledge.filters import Filter
from video_research.knowledge.store import generate_uuid5
from video_research.support.youtube_urls import watch_url
from video_research.transcripts import chapter_index
from video_research.transcripts.chunker import Chapter, Chunk
from video_research.transcripts.parsers import Cue
from video_research.transcripts.sources import Transcript, is_youtube_id

if TYPE_CHECKING:
    from video_research.support.schema_types.common.transcript_chunk import (
        TranscriptChunk,
        VideoFields,
        VideoIdentity,
    )
    from video_research.support.schema_types.common.transcripts import Video

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


VIDEO_ID = identifier("video_id", "YouTube video ID (or the transcript file's name)", required=True)


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
            identifier("channel_id", "YouTube channel ID: the key searches are narrowed by"),
            Property("channel_title", DataType.TEXT, "Channel name"),
            blob("video_url", "Link to the video"),
            blob("timestamp_url", "Link to the video at start_time"),
            filterable("published_at", DataType.DATE, "Publication time"),
            filterable("start_time", DataType.NUMBER, "Start, seconds"),
            filterable("end_time", DataType.NUMBER, "End, seconds"),
            identifier(
                "language", "Language code: the sentences' own (speech), else the transcript's"
            ),
            filterable(
                "language_probability",
                DataType.NUMBER,
                "How sure the speech model was of the sentences' language (speech only)",
            ),
            filterable("chunk_index", DataType.INT, "Position in the video"),
            Property("first_cue", DataType.INT, "Index of the chunk's first cue"),
            Property("last_cue", DataType.INT, "Index of the chunk's last cue"),
            filterable("is_generated", DataType.BOOLEAN, "From automatic captions"),
            identifier("source", "youtube, file or speech"),
            identifier(
                "evidence",
                "speech (captions, transcripts: the default), screen (text shown on screen, "
                "read by OCR) or chapter (a chapter's title, from its author or computed)",
            ),
            blob("cue_starts", "Start of each line of text, seconds, as a JSON list (pinpointing)"),
            Property(
                "complete",
                DataType.BOOLEAN,
                "False when the media file held less than it claims (a download cut short): "
                "the hit is from the part that was read",
            ),
            identifier(
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
            identifier("channel_id", "YouTube channel ID"),
            blob("video_url", "Link to the video"),
            filterable("published_at", DataType.DATE, "Publication time"),
            identifier("language", "Transcript language code"),
            filterable("is_generated", DataType.BOOLEAN, "From automatic captions"),
            identifier("source", "youtube, file or speech"),
            identifier("source_path", "The transcript file, for file sources"),
            blob("source_sha256", "SHA-256 of the transcript file's bytes, for file sources"),
            blob("metadata_sha256", "SHA-256 of the metadata the caller gave for the file"),
            blob(
                "given_json",
                "What the caller said of the file (videos entry, channel, language) as JSON: "
                "a later call that leaves a field out keeps it",
            ),
            identifier(
                "speech_model", "The speech model that made the transcript, for speech sources"
            ),
            filterable("chunk_count", DataType.INT, "Chunks indexed"),
            filterable("segment_count", DataType.INT, "Caption cues"),
            filterable(
                "duration_seconds",
                DataType.NUMBER,
                "The media's duration (container, else longest stream), else the last cue's end",
            ),
            Property(
                "complete", DataType.BOOLEAN, "False when the media file held less than it claims"
            ),
            Property("seconds_read", DataType.NUMBER, "How much of the media file was read"),
            Property("seconds_claimed", DataType.NUMBER, "How long the media file says it is"),
            filterable("indexed_at", DataType.DATE, "When it was indexed"),
            blob(
                "chapters_json",
                "Chapters as JSON [{title, start, end, evidence, signals}] (older records: "
                "[{start, title}], the author's)",
            ),
            blob("segments_json", "Every cue as JSON [{start, end, text, speaker, language}]"),
            blob("speaker_names_json", "Names users gave the video's speakers: {label: name}"),
            filterable(
                "speaker_names",
                DataType.TEXT_ARRAY,
                "The names users gave the video's speakers (to find the videos a name is in)",
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
    def from_metadata(cls, video: Mapping[str, Any]) -> VideoInfo:
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


def transcript_common(info: VideoInfo, transcript: Transcript) -> VideoFields:
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
            **transcript_common(info, transcript),
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


COVERAGE_KEYS: tuple[Literal["seconds_read", "seconds_claimed"], ...] = (
    "seconds_read",
    "seconds_claimed",
)


def video_fields(props: Mapping[str, Any]) -> VideoIdentity:
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


def video_summary(record: Mapping[str, Any]) -> Video:
    """A stored video as the tools show it (without the cue list)."""
    summary: Video = {
        **video_fields(record),
        "is_generated": bool(record.get("is_generated")),
        "source": record.get("source") or "youtube",
        "source_path": record.get("source_path"),
        "chunk_count": record.get("chunk_count") or 0,
        "segment_count": record.get("segment_count") or 0,
        "duration_seconds": record.get("duration_seconds") or 0.0,
        "indexed_at": record.get("indexed_at"),
    }
    if record.get("speech_model"):
        summary["speech_model"] = record["speech_model"]
    summary["complete"] = record.get("complete") is not False
    for key in COVERAGE_KEYS:
        if key in record:
            summary[key] = record[key]
    return summary


def cues_of(record: Mapping[str, Any]) -> list[Cue]:
    return [Cue.from_dict(c) for c in json.loads(record["segments_json"])]

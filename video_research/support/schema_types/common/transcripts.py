# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

from . import defs, tool_error

TranscriptDefinitions: TypeAlias = Any


ChannelId: TypeAlias = str


VideoRef: TypeAlias = str


Language: TypeAlias = str


Cursor: TypeAlias = str


NextCursor: TypeAlias = str | None


class Failure(TypedDict, closed=True):
    video_id: NotRequired[str]
    file: NotRequired[str]
    reason: Literal[
        "no_transcript",
        "disabled",
        "blocked",
        "unavailable",
        "age_restricted",
        "network",
        "error",
        "unreadable",
        "forbidden",
        "duplicate",
        "too_large",
        "not_media",
        "no_audio",
        "too_long",
        "download",
    ]
    error: str
    hint: str
    retryable: bool
    category: NotRequired[tool_error.Category]


class Chapter(TypedDict, closed=True):
    start: float
    title: str


class Repeat(TypedDict, closed=True):
    video_id: str
    video_title: str
    start_time: float
    end_time: float
    timestamp_url: str


class Scores(TypedDict, closed=True):
    fused: float | None
    relevance: float | None
    cosine: float | None
    keyword: float | None
    share: NotRequired[float | None]


class Thumbnail(TypedDict, closed=True):
    content_index: int
    time: float


class Moment(TypedDict, closed=True):
    video_id: str
    video_title: str
    channel_id: str
    channel_title: str
    video_url: str
    timestamp_url: str
    start_time: float
    end_time: float
    match_time: float
    text: str
    score: float
    chapter: str | None
    language: str
    published_at: str | None
    chunks: int
    evidence: Literal["speech", "screen", "chapter"]
    speaker: NotRequired[str]
    repeats: NotRequired[list[Repeat]]
    scores: NotRequired[Scores]
    low_content: NotRequired[bool]
    thumbnail: NotRequired[Thumbnail]
    relevance: defs.Relevance
    weak: defs.Weak
    complete: NotRequired[bool]


class IndexedItem(TypedDict, closed=True):
    video_id: str
    video_title: str
    language: str
    chunk_count: int
    duration_seconds: NotRequired[float]
    complete: NotRequired[bool]
    seconds_read: NotRequired[float]
    seconds_claimed: NotRequired[float]


class Batch(TypedDict, closed=True):
    indexed_count: int
    skipped_count: int
    failed_count: int
    chunk_count: int
    indexed: list[IndexedItem]
    skipped: list[str]
    failed: list[Failure]
    notes: list[str]


class VideoChapter(TypedDict, closed=True):
    title: str
    start: float
    end: float
    evidence: Literal["author", "container", "file", "computed"]
    signals: list[str]
    timestamp_url: NotRequired[str]


class Video(TypedDict, closed=True):
    video_id: str
    video_title: str
    channel_id: str
    channel_title: str
    video_url: str
    published_at: str | None
    language: str
    is_generated: bool
    source: Literal["youtube", "file", "speech", "screen"]
    speech_model: NotRequired[str]
    source_path: str | None
    chunk_count: int
    segment_count: int
    duration_seconds: float
    indexed_at: str | None
    preview: NotRequired[str]
    chapters: NotRequired[list[VideoChapter]]
    complete: NotRequired[bool]
    seconds_read: NotRequired[float]
    seconds_claimed: NotRequired[float]

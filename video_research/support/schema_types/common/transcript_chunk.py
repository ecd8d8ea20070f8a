# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict


class VideoIdentity(TypedDict):
    video_id: str
    video_title: str
    channel_id: str
    channel_title: str
    video_url: str
    published_at: str | None
    language: str


class VideoFields(VideoIdentity):
    is_generated: bool
    source: str


class TranscriptChunk(VideoFields, closed=True):
    language_probability: NotRequired[float]
    chapter: str | None
    text: str
    start_time: float
    end_time: float
    timestamp_url: str
    chunk_index: int
    evidence: Literal["speech", "screen", "chapter"]
    speaker: NotRequired[str]
    first_cue: int
    last_cue: int
    cue_starts: str
    complete: NotRequired[bool]
    created_at: NotRequired[str]
    source_tool: NotRequired[str]

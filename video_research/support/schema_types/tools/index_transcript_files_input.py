# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import transcripts


class Videos(TypedDict, closed=True):
    video_id: NotRequired[str]
    title: NotRequired[str]
    channel_id: NotRequired[str]
    channel_title: NotRequired[str]
    published_at: NotRequired[str]
    url: NotRequired[str]
    language: NotRequired[transcripts.Language]
    description: NotRequired[str]
    chapters: NotRequired[list[transcripts.Chapter]]


class IndexTranscriptFilesInput(TypedDict, closed=True):
    path: str
    glob_pattern: NotRequired[str]
    max_files: NotRequired[int]
    videos: NotRequired[dict[str, Videos]]
    channel_id: NotRequired[str]
    channel_title: NotRequired[str]
    language: NotRequired[transcripts.Language]
    fetch_metadata: NotRequired[bool]
    force_reindex: NotRequired[bool]

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs, transcripts


class Segment(TypedDict, closed=True):
    index: int
    start: float
    end: float
    text: str
    timestamp_url: str
    speaker: NotRequired[str]
    speaker_label: NotRequired[str]
    language: NotRequired[str]
    language_probability: NotRequired[float | None]


class TranscriptGetOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    video: transcripts.Video
    segments: list[Segment]
    next_cursor: transcripts.NextCursor

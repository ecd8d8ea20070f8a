# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import transcripts


class TranscriptGetInput(TypedDict, closed=True):
    video_id: transcripts.VideoRef
    cursor: NotRequired[transcripts.Cursor]
    max_segments: NotRequired[int]
    start_time: NotRequired[float]
    language: NotRequired[transcripts.Language]
    auto_index: NotRequired[bool]

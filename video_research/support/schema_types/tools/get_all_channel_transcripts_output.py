# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs, transcripts


class GetAllChannelTranscriptsOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    channel_id: str
    total_videos: int
    videos: list[transcripts.Video]
    next_cursor: transcripts.NextCursor
    fetch: transcripts.Batch | None

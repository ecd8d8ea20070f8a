# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import transcripts


class GetAllChannelTranscriptsInput(TypedDict, closed=True):
    channel_id: transcripts.ChannelId
    max_videos: NotRequired[int]
    language: NotRequired[transcripts.Language]
    cursor: NotRequired[transcripts.Cursor]
    page_size: NotRequired[int]
    preview_chars: NotRequired[int]

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import transcripts


class GetIndexedVideosInput(TypedDict, closed=True):
    channel_id: NotRequired[transcripts.ChannelId]
    language: NotRequired[transcripts.Language]
    source: NotRequired[Literal["youtube", "file", "speech", "screen"]]
    limit: NotRequired[int]
    cursor: NotRequired[transcripts.Cursor]

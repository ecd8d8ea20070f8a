# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import transcripts


class SemanticSearchTranscriptsInput(TypedDict, closed=True):
    query: str
    k: NotRequired[int]
    channel_ids: NotRequired[list[transcripts.ChannelId]]
    video_ids: NotRequired[list[transcripts.VideoRef]]
    language: NotRequired[transcripts.Language]
    min_score: NotRequired[float]
    start_time: NotRequired[float]
    end_time: NotRequired[float]
    published_after: NotRequired[str]
    published_before: NotRequired[str]
    alpha: NotRequired[float]
    auto_index: NotRequired[bool]
    pinpoint: NotRequired[bool]
    thumbnails: NotRequired[bool]
    evidence: NotRequired[Literal["speech", "screen", "chapter"]]
    speaker: NotRequired[str]

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

VideoId: TypeAlias = str


class QueueAddVideosInput(TypedDict, closed=True):
    video_ids: list[VideoId]
    position: NotRequired[Literal["end", "next"]]

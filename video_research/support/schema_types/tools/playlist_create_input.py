# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypeAlias

from typing_extensions import TypedDict

VideoId: TypeAlias = str


class PlaylistCreateInput(TypedDict, closed=True):
    name: str
    video_ids: list[VideoId]
    description: NotRequired[str]

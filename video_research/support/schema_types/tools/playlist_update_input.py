# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypeAlias

from typing_extensions import TypedDict

from ..common import catalog

VideoId: TypeAlias = str


class PlaylistUpdateInput(TypedDict, closed=True):
    playlist_id: catalog.PlaylistId
    name: NotRequired[str | None]
    description: NotRequired[str | None]
    video_ids: NotRequired[list[VideoId] | None]

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypedDict

from ..common import defs


class Item(TypedDict):
    video_id: str
    title: str
    duration_seconds: int | None
    manifest_url: NotRequired[str]
    thumbnail_url: NotRequired[str | None]


class PlaylistGetOutput(TypedDict):
    injections: NotRequired[defs.Injections]
    playlist_id: str
    name: str
    description: NotRequired[str]
    items: list[Item]
    item_count: NotRequired[int]
    total_duration_seconds: int
    unknown_duration_count: NotRequired[int]
    created_by: str
    created_at: str
    updated_at: NotRequired[str]

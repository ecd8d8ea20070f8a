# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs


class Item(TypedDict, closed=True):
    video_id: str
    position: int
    title: str
    url: str
    channel_title: str
    published_at: str
    added_at: str
    duration_seconds: int | None
    thumbnail_url: str | None
    available: bool


class VideoPlaylistOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    playlist_id: str
    url: str
    title: str
    description: str
    channel_id: str
    channel_title: str
    item_count: int
    returned: int
    items: list[Item]

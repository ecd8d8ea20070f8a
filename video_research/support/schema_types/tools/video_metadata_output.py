# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs


class VideoMetadataOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    video_id: str
    url: str
    title: str
    description: str
    channel_id: str
    channel_title: str
    published_at: str
    duration_seconds: int | None
    duration: str | None
    view_count: int | None
    like_count: int | None
    comment_count: int | None
    tags: list[str]
    category_id: NotRequired[str | None]
    default_language: NotRequired[str | None]
    thumbnail_url: NotRequired[str | None]
    live_broadcast_content: NotRequired[str | None]
    privacy_status: NotRequired[str | None]
    embeddable: NotRequired[bool | None]
    definition: NotRequired[str | None]
    has_captions: NotRequired[bool | None]

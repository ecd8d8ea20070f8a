# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypedDict

from ..common import defs


class Item(TypedDict):
    video_id: str
    title: str
    categories: list[str]
    duration_seconds: int | None
    thumbnail_url: NotRequired[str | None]
    manifest_url: str


class CatalogSearchOutput(TypedDict):
    injections: NotRequired[defs.Injections]
    items: list[Item]
    total: int
    has_more: NotRequired[bool]
    snapshot_id: str
    actions: NotRequired[list[str]]

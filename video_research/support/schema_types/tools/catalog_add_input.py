# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypeAlias

from typing_extensions import TypedDict

from ..common import catalog

Category: TypeAlias = str


class CatalogAddInput(TypedDict, closed=True):
    video_id: catalog.VideoId
    title: str
    manifest_url: NotRequired[str]
    categories: NotRequired[list[Category]]
    duration_seconds: NotRequired[int | None]
    thumbnail_url: NotRequired[str | None]

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypeAlias

from typing_extensions import TypedDict

PlaylistId: TypeAlias = str


class MarathonCreateInput(TypedDict, closed=True):
    name: str
    starts_at: str
    playlist_ids: list[PlaylistId]
    description: NotRequired[str]

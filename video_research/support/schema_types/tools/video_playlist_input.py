# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict


class VideoPlaylistInput(TypedDict, closed=True):
    url: str
    max_items: NotRequired[int]

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypedDict


class ContentResult(TypedDict):
    title: str
    summary: str
    key_points: list[str]
    entities: list[str]
    structure: NotRequired[str]
    quality_notes: NotRequired[str]

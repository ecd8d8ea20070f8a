# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypedDict


class Timestamp(TypedDict):
    timestamp: str
    description: str


class VideoResult(TypedDict):
    title: str
    summary: str
    key_points: list[str]
    timestamps: list[Timestamp]
    topics: list[str]
    sentiment: NotRequired[str]

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, NotRequired, TypeAlias, TypedDict

PaperShapes: TypeAlias = Any


PaperId: TypeAlias = str


Limit: TypeAlias = int


Offset: TypeAlias = int


class Paper(TypedDict):
    paper_id: str
    title: str
    abstract: NotRequired[str | None]
    year: int | None
    venue: NotRequired[str | None]
    authors: list[dict[str, Any]]
    citation_count: int | None
    url: str | None

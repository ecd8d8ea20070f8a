# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypedDict

from ..common import defs


class Author(TypedDict):
    author_id: str
    name: str
    affiliations: list[str]
    homepage: NotRequired[str | None]
    paper_count: int | None
    citation_count: int | None
    h_index: int | None
    url: str | None


class ResearchAuthorSearchOutput(TypedDict):
    injections: NotRequired[defs.Injections]
    query: str
    authors: list[Author]
    offset: int
    next_offset: int | None
    total: int | None

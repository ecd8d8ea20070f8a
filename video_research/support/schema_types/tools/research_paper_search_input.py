# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypeAlias

from typing_extensions import TypedDict

from ..common import papers

FieldsOfStudyItem: TypeAlias = str


class ResearchPaperSearchInput(TypedDict, closed=True):
    query: str
    limit: NotRequired[papers.Limit]
    offset: NotRequired[int]
    year: NotRequired[str]
    fields_of_study: NotRequired[list[FieldsOfStudyItem]]
    min_citation_count: NotRequired[int]
    open_access_only: NotRequired[bool]

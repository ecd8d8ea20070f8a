# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs


class KnowledgeSearchInput(TypedDict, closed=True):
    query: str
    collections: NotRequired[list[defs.StoredCollection]]
    limit: NotRequired[int]
    alpha: NotRequired[float]
    filters: NotRequired[defs.MetadataFilters]
    min_score: NotRequired[float]

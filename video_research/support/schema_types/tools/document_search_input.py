# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import documents


class Filters(TypedDict, closed=True):
    document_type: NotRequired[documents.DocumentTypes]
    chunk_type: NotRequired[documents.ChunkType | list[documents.ChunkType]]
    tags: NotRequired[documents.Tags]
    path_prefix: NotRequired[documents.PathPrefix]
    document_id: NotRequired[documents.DocumentId]


class DocumentSearchInput(TypedDict, closed=True):
    query: str
    k: NotRequired[int]
    alpha: NotRequired[float]
    filters: NotRequired[Filters]
    min_score: NotRequired[float]

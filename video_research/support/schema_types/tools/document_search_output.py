# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs, documents


class Result(TypedDict, closed=True):
    text: str
    citation: str
    source_path: str
    file_name: str
    title: str
    document_id: str
    document_type: documents.DocumentType
    chunk_type: documents.ChunkType
    heading_path: list[str]
    page: documents.Page
    page_end: documents.Page
    chunk_index: int
    score: float
    tags: list[str]
    relevance: defs.Relevance
    weak: defs.Weak


class DocumentSearchOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    query: str
    alpha: float
    results: list[Result]
    total: int
    notes: NotRequired[list[str]]

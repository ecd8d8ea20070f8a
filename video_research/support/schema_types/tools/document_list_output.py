# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs
from ..common import documents as documents_1


class Document(TypedDict, closed=True):
    document_id: str
    source_path: str
    file_name: str
    title: str
    document_type: documents_1.DocumentType
    tags: list[str]
    chunks: int
    pages: int | None
    content_hash: str
    file_size: int
    modified_at: str
    ingested_at: str
    file_exists: bool


class DocumentListOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    documents: list[Document]
    total: int
    next_offset: int | None

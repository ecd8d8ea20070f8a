# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs


class DeletedItem(TypedDict, closed=True):
    document_id: str
    source_path: str
    chunks: int


class DocumentDeleteOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    deleted: list[DeletedItem]
    documents_deleted: int
    chunks_deleted: int
    not_found: list[str]

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs, documents


class File(TypedDict, closed=True):
    path: str
    status: Literal["ingested", "updated", "unchanged", "failed"]
    document_id: NotRequired[str]
    title: NotRequired[str]
    document_type: NotRequired[documents.DocumentType]
    chunks: int
    pages: NotRequired[int]
    error: NotRequired[documents.FileError]


class DocumentIngestOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    files: list[File]
    ingested: int
    updated: int
    unchanged: int
    failed: int
    skipped_unsupported: int
    files_found: int
    truncated: bool
    chunks_written: int

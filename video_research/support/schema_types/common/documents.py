# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

from . import tool_error

DocumentLibraryPieces: TypeAlias = Any


DocumentType: TypeAlias = Literal["pdf", "docx", "pptx", "html", "markdown", "text"]


ChunkType: TypeAlias = Literal["text", "table", "list", "code"]


DocumentTypes: TypeAlias = DocumentType | list[DocumentType]


Tag: TypeAlias = str


Tags: TypeAlias = list[Tag]


PathPrefix: TypeAlias = str


DocumentId: TypeAlias = str


class DocumentFilters(TypedDict, closed=True):
    document_type: NotRequired[DocumentTypes]
    tags: NotRequired[Tags]
    path_prefix: NotRequired[PathPrefix]
    document_id: NotRequired[DocumentId]


Page: TypeAlias = int | None


class FileError(TypedDict, closed=True):
    error: str
    category: tool_error.Category
    hint: str
    retryable: bool

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypeAlias

from typing_extensions import TypedDict

from ..common import documents

Path: TypeAlias = str


class DocumentIngestInput1(TypedDict, closed=True):
    path: str
    paths: NotRequired[list[Path]]
    glob: NotRequired[str]
    document_type: NotRequired[documents.DocumentType]
    tags: NotRequired[documents.Tags]
    force: NotRequired[bool]
    max_files: NotRequired[int]


class DocumentIngestInput2(TypedDict, closed=True):
    path: NotRequired[str]
    paths: list[Path]
    glob: NotRequired[str]
    document_type: NotRequired[documents.DocumentType]
    tags: NotRequired[documents.Tags]
    force: NotRequired[bool]
    max_files: NotRequired[int]


DocumentIngestInput: TypeAlias = DocumentIngestInput1 | DocumentIngestInput2

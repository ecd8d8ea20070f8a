# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypeAlias

from typing_extensions import TypedDict

from ..common import documents

Path: TypeAlias = str


class DocumentDeleteInput1(TypedDict, closed=True):
    document_ids: list[documents.DocumentId]
    paths: NotRequired[list[Path]]
    path_prefix: NotRequired[documents.PathPrefix]


class DocumentDeleteInput2(TypedDict, closed=True):
    document_ids: NotRequired[list[documents.DocumentId]]
    paths: list[Path]
    path_prefix: NotRequired[documents.PathPrefix]


class DocumentDeleteInput3(TypedDict, closed=True):
    document_ids: NotRequired[list[documents.DocumentId]]
    paths: NotRequired[list[Path]]
    path_prefix: documents.PathPrefix


DocumentDeleteInput: TypeAlias = DocumentDeleteInput1 | DocumentDeleteInput2 | DocumentDeleteInput3

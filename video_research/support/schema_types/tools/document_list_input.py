# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import documents


class DocumentListInput(TypedDict, closed=True):
    filters: NotRequired[documents.DocumentFilters]
    limit: NotRequired[int]
    offset: NotRequired[int]

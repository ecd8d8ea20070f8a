# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, NotRequired, TypeAlias, TypedDict

ContentBatchShapes: TypeAlias = Any


class PerFileItem(TypedDict):
    file: str
    summary: str
    stands_out: NotRequired[str]


class Comparison(TypedDict):
    summary: str
    similarities: list[str]
    differences: list[str]
    per_file: list[PerFileItem]
    recommendation: NotRequired[str]

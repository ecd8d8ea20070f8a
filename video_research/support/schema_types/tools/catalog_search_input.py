# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypeAlias

from typing_extensions import TypedDict

Category: TypeAlias = str


class CatalogSearchInput(TypedDict, closed=True):
    q: NotRequired[str]
    categories: NotRequired[list[Category]]
    limit: NotRequired[int]
    offset: NotRequired[int]

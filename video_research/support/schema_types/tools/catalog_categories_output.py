# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypedDict

from ..common import defs


class CatalogCategoriesOutput(TypedDict):
    injections: NotRequired[defs.Injections]
    categories: list[str]
    video_counts: NotRequired[dict[str, int]]

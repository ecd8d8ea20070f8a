# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypeAlias

from typing_extensions import TypedDict

Category: TypeAlias = str


class CatalogImportInput(TypedDict, closed=True):
    file_path: NotRequired[str]
    playlist_url: NotRequired[str]
    max_items: NotRequired[int]
    categories: NotRequired[list[Category]]
    playlist_name: NotRequired[str]
    dry_run: NotRequired[bool]

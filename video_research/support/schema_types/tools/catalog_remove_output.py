# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypedDict

from ..common import defs


class CatalogRemoveOutput(TypedDict):
    injections: NotRequired[defs.Injections]
    removed: list[str]
    not_found: list[str]
    playlists_affected: list[str]
    snapshot_id: NotRequired[str]

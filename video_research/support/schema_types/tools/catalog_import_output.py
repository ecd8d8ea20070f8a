# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired, TypedDict

from ..common import catalog, defs


class CatalogImportOutput(TypedDict):
    injections: NotRequired[defs.Injections]
    dry_run: bool
    imported: int
    created: int
    updated: int
    failed: list[catalog.FailedRow]
    video_ids: list[str]
    playlist_id: NotRequired[str]
    snapshot_id: NotRequired[str]

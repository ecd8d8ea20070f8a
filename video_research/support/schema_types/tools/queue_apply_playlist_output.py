# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from ..common import catalog, defs
from ..common.catalog import QueueWrite


class QueueApplyPlaylistOutput(QueueWrite):
    injections: NotRequired[defs.Injections]
    mode: NotRequired[str]
    playlist_id: NotRequired[str]
    enqueued_count: int
    failed: list[catalog.FailedItem]

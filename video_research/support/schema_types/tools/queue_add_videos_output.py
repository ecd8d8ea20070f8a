# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from ..common import catalog, defs
from ..common.catalog import QueueWrite


class QueueAddVideosOutput(QueueWrite):
    injections: NotRequired[defs.Injections]
    enqueued_count: int
    uids: NotRequired[list[str]]
    failed: list[catalog.FailedItem]

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs


class KnowledgeRelatedOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    object_id: str
    collection: str
    results: list[defs.KnowledgeHit]
    total: int

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs


class KnowledgeSearchOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    query: str
    alpha: float
    collections_searched: list[str]
    collections_skipped: list[str]
    results: list[defs.KnowledgeHit]
    total: int
    notes: list[str]

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class KnowledgeIngestInput(TypedDict, closed=True):
    collection: defs.KnowledgeCollection
    properties: dict[str, Any]
    object_id: NotRequired[defs.ObjectId]

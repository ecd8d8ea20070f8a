# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class InfraCacheInput(TypedDict, closed=True):
    action: NotRequired[Literal["stats", "list", "clear", "context_list", "context_clear"]]
    content_id: NotRequired[defs.ContentId]
    limit: NotRequired[int]

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict


class AuditLogInput(TypedDict, closed=True):
    tool: NotRequired[str]
    username: NotRequired[str]
    since: NotRequired[str]
    failed_only: NotRequired[bool]
    limit: NotRequired[int]
    before_id: NotRequired[int]

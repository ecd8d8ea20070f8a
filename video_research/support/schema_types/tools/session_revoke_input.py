# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing_extensions import TypedDict


class SessionRevokeInput(TypedDict, closed=True):
    session_id: str

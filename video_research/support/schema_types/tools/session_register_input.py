# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict


class SessionRegisterInput(TypedDict, closed=True):
    session_id: str
    username: str
    role: Literal["viewer", "blessed", "admin"]
    ttl_seconds: NotRequired[int | None]

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from ..common import catalog, defs


class SessionListOutput(TypedDict):
    injections: NotRequired[defs.Injections]
    sessions: list[catalog.Session]
    registry: Literal["sqlite", "nats"]

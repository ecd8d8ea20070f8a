# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class ToolsetDisableOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    toolset: str
    state: Literal["on", "partly", "off"]
    removed: list[str]
    listed: int

# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import NotRequired

from typing_extensions import TypedDict

from ..common import defs


class Tool(TypedDict, closed=True):
    name: str
    toolset: str
    summary: str
    listed: bool


class ToolSearchOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    tools: list[Tool]
    served: int

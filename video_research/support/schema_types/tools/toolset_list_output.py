# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class Toolset(TypedDict, closed=True):
    name: str
    description: str
    state: Literal["on", "partly", "off"]
    tools: list[str]


class ToolsetListOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    toolsets: list[Toolset]
    listed: int

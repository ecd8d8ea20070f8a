# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class Annotations(TypedDict, closed=True):
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool


class ToolDescribeOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    name: str
    title: str
    description: str
    toolset: str
    role: Literal["viewer", "blessed", "admin"]
    listed: bool
    annotations: Annotations
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    how_to_call: str

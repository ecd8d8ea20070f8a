# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class Object(TypedDict):
    collection: str
    object_id: str
    properties: dict[str, Any]
    omitted: NotRequired[list[str]]


class KnowledgeFetchOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    objects: list[Object]
    not_found: list[str]

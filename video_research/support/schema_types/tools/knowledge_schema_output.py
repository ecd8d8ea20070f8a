# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class Property(TypedDict):
    name: str
    type: str
    filterable: bool
    searchable: bool
    vectorized: bool
    description: NotRequired[str]


class Collection(TypedDict):
    name: str
    description: str
    group: Literal["knowledge", "transcripts", "documents"]
    searched_by_knowledge_search: bool
    searched_by_knowledge_ask: bool
    properties: list[Property]


class KnowledgeSchemaOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    collections: list[Collection]
    filter_operators: dict[str, Any]

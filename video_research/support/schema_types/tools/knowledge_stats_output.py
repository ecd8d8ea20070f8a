# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class Embedding(TypedDict, closed=True):
    provider: str
    model: str
    dimensions: int


class Collection(TypedDict, closed=True):
    name: str
    what: NotRequired[str]
    count: int
    embedding_model: str | None
    dimensions: int | None
    compatible: bool


class KnowledgeStatsOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    backend: Literal["sqlite", "weaviate"]
    location: str
    embedding: Embedding
    collections: list[Collection]
    total: int

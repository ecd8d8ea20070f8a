# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from ..common import defs


class Collection(TypedDict, closed=True):
    collection: str
    status: Literal["reembedded", "current", "empty"]
    reembedded: int
    embedding_model: str | None
    dimensions: int | None


class KnowledgeReembedOutput(TypedDict, closed=True):
    injections: NotRequired[defs.Injections]
    collection: str
    reembedded: int
    embedding_model: str | None
    dimensions: int | None
    collections: list[Collection]

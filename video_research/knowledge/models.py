"""The store's value types: objects, hits, pages, collection states, UUIDs, and the
relative score fusion both backends rank hybrid results with."""

from __future__ import annotations

import uuid as uuid_lib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from video_research.knowledge.collections import CollectionDef, canonical_date
from video_research.support.errors import invalid_input


def generate_uuid5(identifier: Any, namespace: Any = "") -> str:
    """A deterministic UUID, computed exactly as weaviate.util.generate_uuid5 does."""
    return str(uuid_lib.uuid5(uuid_lib.NAMESPACE_DNS, str(namespace) + str(identifier)))


def normalise_uuid(value: Any) -> str:
    """The canonical lower-case form of a UUID, or invalid_input."""
    try:
        return str(uuid_lib.UUID(str(value)))
    except ValueError:
        raise invalid_input(f"{value!r} is not a UUID.") from None


def now_utc() -> str:
    return canonical_date(datetime.now(UTC))


class StoredObject(BaseModel):
    uuid: str
    collection: str
    properties: dict[str, Any]
    vector: list[float] | None = None


class SearchHit(StoredObject):
    score: float
    """Higher is better: the fused score for hybrid search, 1 - distance for vector search."""
    distance: float | None = None
    """Cosine distance to the query vector, when the vector search saw the object."""
    keyword_score: float | None = None
    """The keyword side's BM25 score (the embedded store's keyword index divides it by
    what a passage holding every query word once scores); None where the keyword side
    did not return the object."""
    keyword_share: float | None = None
    """The share of the query's distinct words the object's searchable text holds."""
    relevance: float | None = None
    """Calibrated relevance in 0..1 from the cosine and `keyword_share`
    (knowledge.ranking.relevance): comparable across queries and collections, unlike the
    fused `score`, which is rescaled per query; what `min_score` filters on."""


class Page(BaseModel):
    objects: list[StoredObject]
    next_offset: int | None = None
    """Offset of the next page, None when this is the last."""


class CollectionInfo(BaseModel):
    name: str
    count: int
    embedding_model: str | None = Field(
        description="Embedder identity the stored vectors were made with"
    )
    dimensions: int | None
    compatible: bool
    """False when the configured embedder differs from the one the vectors were made with."""


@dataclass(frozen=True)
class Sort:
    prop: str
    descending: bool = False


@dataclass(frozen=True)
class CollectionState:
    """What the backend knows about a collection once it exists."""

    definition: CollectionDef
    embedding_model: str
    dimensions: int
    compatible: bool

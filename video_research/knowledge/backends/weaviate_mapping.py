"""Our collections, filters and results in weaviate-client's classes, and back.

Pure functions (`property_config`, `collection_config`, `to_weaviate_filter`,
`to_search_hit`, ...), so the tests check the translation without a
server; `weaviate_store` makes the calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from video_research.config import Settings
from video_research.knowledge.collections import (
    CollectionDef,
    DataType,
    Property,
    canonical_date,
)
from video_research.knowledge.filters import AllOf, AnyOf, Condition, FilterNode, Within
from video_research.knowledge.models import SearchHit, Sort, StoredObject
from video_research.support.errors import invalid_input

LIKE_WILDCARDS = ("*", "?")

_DATA_TYPES = {
    DataType.TEXT: "TEXT",
    DataType.TEXT_ARRAY: "TEXT_ARRAY",
    DataType.INT: "INT",
    DataType.NUMBER: "NUMBER",
    DataType.BOOLEAN: "BOOL",
    DataType.DATE: "DATE",
}


def whole_values(prop: Property) -> bool:
    """Whether Weaviate must tokenize `prop` as whole values (FIELD), not words.

    Filters compare whole values on both backends: `eq "Machine Learning"` and
    `contains_any ["Machine Learning"]` match that tag, not every tag with "machine" in it.
    Weaviate has one tokenization per property for filters and BM25 alike, so on Weaviate
    a filterable text or text[] property is keyword-searchable as whole values only.
    """
    return prop.exact or (prop.filterable and prop.data_type.is_text)


def property_config(prop: Property) -> Any:
    """The weaviate.classes.config.Property for one of our properties."""
    from weaviate.classes.config import DataType as WDataType
    from weaviate.classes.config import Property as WProperty
    from weaviate.classes.config import Tokenization

    return WProperty(
        name=prop.name,
        data_type=getattr(WDataType, _DATA_TYPES[prop.data_type]),
        description=prop.description or None,
        index_filterable=prop.filterable,
        index_searchable=prop.in_bm25 if prop.data_type.is_text else None,
        index_range_filters=prop.filterable and prop.data_type.is_ordered,
        tokenization=Tokenization.FIELD if whole_values(prop) else None,
        skip_vectorization=not prop.vectorize,
    )


def collection_config(definition: CollectionDef, settings: Settings) -> dict[str, Any]:
    """Keyword arguments for `client.collections.create` (self-provided vectors, HNSW)."""
    from weaviate.classes.config import Configure, VectorDistances

    distances = {
        "cosine": VectorDistances.COSINE,
        "dot": VectorDistances.DOT,
        "l2-squared": VectorDistances.L2_SQUARED,
    }
    hnsw = Configure.VectorIndex.hnsw(
        distance_metric=distances[settings.weaviate_distance],
        max_connections=settings.weaviate_max_connections,
        ef_construction=settings.weaviate_ef_construction,
        ef=settings.weaviate_ef,
    )
    return {
        "name": definition.name,
        "description": definition.description,
        "properties": [property_config(p) for p in definition.properties],
        "vector_config": Configure.Vectors.self_provided(vector_index_config=hnsw),
        "inverted_index_config": Configure.inverted_index(bm25_b=0.75, bm25_k1=1.2),
    }


def _value(data_type: DataType, value: Any) -> Any:
    """A filter value as the client must send it (dates as datetime, so they go as dates)."""
    if data_type is DataType.DATE:
        if isinstance(value, tuple | list):
            return [_value(data_type, v) for v in value]
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    return list(value) if isinstance(value, tuple) else value


def to_weaviate_filter(node: FilterNode | None, definition: CollectionDef) -> Any:
    """A bound filter as weaviate.classes.query.Filter objects (None stays None)."""
    from weaviate.classes.query import Filter

    if node is None:
        return None
    if isinstance(node, Within):
        # Weaviate prepares nothing per query: the spans are the any_of they stand for.
        return Filter.any_of(
            [
                to_weaviate_filter(
                    AllOf(
                        (
                            Condition(node.key, "eq", key),
                            Condition(node.number, "gte", low),
                            Condition(node.number, "lte", high),
                        )
                    ),
                    definition,
                )
                for key, low, high in node.spans
            ]
        )
    if isinstance(node, AllOf | AnyOf):
        parts = [to_weaviate_filter(item, definition) for item in node.items]
        return Filter.all_of(parts) if isinstance(node, AllOf) else Filter.any_of(parts)
    target = Filter.by_property(node.prop)
    value = _value(definition.by_name[node.prop].data_type, node.value)
    simple = {
        "eq": target.equal,
        "ne": target.not_equal,
        "gt": target.greater_than,
        "gte": target.greater_or_equal,
        "lt": target.less_than,
        "lte": target.less_or_equal,
        "contains_any": target.contains_any,
        "contains_all": target.contains_all,
    }
    if node.op in simple:
        return simple[node.op](value)
    if node.op == "in":
        return Filter.any_of([target.equal(v) for v in value])
    # prefix: Weaviate's Like has no escape for its wildcards, so a value holding one is refused.
    if any(wildcard in value for wildcard in LIKE_WILDCARDS):
        raise invalid_input(
            f"A prefix filter on Weaviate cannot contain {' or '.join(LIKE_WILDCARDS)}: {value!r}.",
            hint="Filter on the part of the prefix before the first * or ?.",
        )
    return target.like(f"{value}*")


def to_sort(order_by: Sequence[Sort]) -> Any:
    from weaviate.classes.query import Sort as WSort

    sort = None
    for item in order_by:
        sort = (sort or WSort).by_property(item.prop, ascending=not item.descending)
    return sort


def from_weaviate(definition: CollectionDef, properties: dict[str, Any]) -> dict[str, Any]:
    """Properties as Weaviate returns them -> our form (dates canonical, Nones dropped)."""
    clean: dict[str, Any] = {}
    for name, value in properties.items():
        if value is None or name not in definition.by_name:
            continue
        if definition.by_name[name].data_type is DataType.DATE:
            value = canonical_date(value)
        clean[name] = value
    return clean


def _default_vector(vector: Any) -> list[float] | None:
    if isinstance(vector, dict):
        vector = vector.get("default") or next(iter(vector.values()), None)
    return [float(x) for x in vector] if vector else None


def to_stored_object(definition: CollectionDef, obj: Any) -> StoredObject:
    return StoredObject(
        uuid=str(obj.uuid),
        collection=definition.name,
        properties=from_weaviate(definition, obj.properties),
        vector=_default_vector(getattr(obj, "vector", None)),
    )


def to_search_hit(definition: CollectionDef, obj: Any, *, vector_only: bool) -> SearchHit:
    """A query result as a SearchHit: vector searches score 1 - distance, hybrid its fused score."""
    distance = obj.metadata.distance
    score = 1.0 - (distance or 0.0) if vector_only else (obj.metadata.score or 0.0)
    return SearchHit(
        uuid=str(obj.uuid),
        collection=definition.name,
        properties=from_weaviate(definition, obj.properties),
        score=float(score),
        distance=None if distance is None else float(distance),
    )


def data_object(properties: dict[str, Any], uuid: str, vector: Any) -> Any:
    """One object to insert, with our vector (Weaviate vectorizes nothing here)."""
    from weaviate.classes.data import DataObject

    return DataObject(
        properties=properties,
        uuid=uuid,
        vector=None if vector is None else [float(x) for x in vector],
    )

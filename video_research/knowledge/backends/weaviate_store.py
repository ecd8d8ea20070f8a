"""The Weaviate backend (WEAVIATE_URL set): weaviate-client v4, vectors supplied by us.

Connection by URL pattern:

| WEAVIATE_URL                                      | connection                        |
|---------------------------------------------------|-----------------------------------|
| http(s)://localhost:PORT, http(s)://127.0.0.1:PORT | connect_to_local                  |
| https://*.weaviate.network, https://*.weaviate.cloud | connect_to_weaviate_cloud       |
| anything else                                     | connect_to_custom (same host)     |

The gRPC port is WEAVIATE_GRPC_PORT, or Weaviate's standard 50051 when unset; a
WEAVIATE_API_KEY becomes an API-key credential.

Collections are created idempotently from the same `CollectionDef`s the embedded store
uses (properties added later are added to an existing collection), with no server-side
vectorizer and an HNSW index configured from WEAVIATE_DISTANCE,
WEAVIATE_HNSW_MAX_CONNECTIONS, WEAVIATE_HNSW_EF_CONSTRUCTION and WEAVIATE_HNSW_EF. Which
embedding model and size made each collection's vectors is kept in one more collection,
`KnowledgeStoreInfo`, one object per collection.

Hybrid search uses Weaviate's own relativeScoreFusion, the definition the embedded store
reproduces. The translation from our filters, properties and results to the client's
classes lives in the pure functions below (`connection_plan`, `property_config`,
`collection_config`, `to_weaviate_filter`, `hybrid_arguments`, `to_search_hit`), which
the tests check without a server.

Weaviate has no transactions: `insert_many` removes what it wrote when part of a batch
fails, and `replace_where` writes the new objects before deleting the old ones.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from urllib.parse import urlparse

from video_research.config import Settings
from video_research.knowledge import relevance
from video_research.knowledge.base import KnowledgeStore, Progress
from video_research.knowledge.collections import (
    CollectionDef,
    DataType,
    Property,
    canonical_date,
)
from video_research.knowledge.embedders.embeddings import Embedder
from video_research.knowledge.filters import AllOf, AnyOf, Condition, FilterNode
from video_research.knowledge.fusion import (
    NAMES_AMONG,
    QUOTE_DEPTH,
    adapted_alpha,
    asked_for,
    quotes_first,
)
from video_research.knowledge.keyword_tokens import matched_share, quote_tokens
from video_research.knowledge.models import (
    CollectionState,
    SearchHit,
    Sort,
    StoredObject,
    generate_uuid5,
)
from video_research.support import errors
from video_research.support.errors import ErrorCategory, ToolFailure, config_error, invalid_input
from video_research.support.redact import redact

logger = logging.getLogger(__name__)

INFO_COLLECTION = "KnowledgeStoreInfo"
DEFAULT_GRPC_PORT = 50051
CLOUD_SUFFIXES = (".weaviate.network", ".weaviate.cloud")
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
DELETE_BATCH = 10_000
"""Objects one delete_many removes at most (Weaviate's QUERY_MAXIMUM_RESULTS default)."""
REEMBED_BATCH = 256
LIKE_WILDCARDS = ("*", "?")


def connection_plan(url: str, grpc_port: int = 0) -> tuple[str, dict[str, Any]]:
    """Which weaviate.connect_to_* to call for `url`, and its keyword arguments (sans auth)."""
    parsed = urlparse(_with_scheme(url))
    host = parsed.hostname or ""
    secure = parsed.scheme == "https"
    try:
        port = parsed.port
    except ValueError:  # not a number, or beyond 65535
        port = -1
    if not host or port == -1:
        raise config_error(
            f"WEAVIATE_URL={redact(_with_scheme(url))!r} has "
            f"{'no host name' if not host else 'an invalid port'}.",
            hint="Use a URL such as http://localhost:8080 or https://my-cluster.weaviate.cloud.",
        )
    grpc = grpc_port or DEFAULT_GRPC_PORT
    if host in LOCAL_HOSTS:
        return "local", {"host": host, "port": port or 8080, "grpc_port": grpc}
    if host.endswith(CLOUD_SUFFIXES):
        return "cloud", {"cluster_url": url}
    return "custom", {
        "http_host": host,
        "http_port": port or (443 if secure else 80),
        "http_secure": secure,
        "grpc_host": host,
        "grpc_port": grpc,
        "grpc_secure": secure,
    }


def safe_location(url: str) -> str:
    """WEAVIATE_URL fit to show, read as `connection_plan` reads it: scheme, host, port and
    path only (no user:password, query or fragment), known secrets redacted."""
    parsed = urlparse(_with_scheme(url))
    host = parsed.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parsed.port
    except ValueError:
        port = None
    netloc = host + (f":{port}" if port else "")
    return redact(parsed._replace(netloc=netloc, query="", fragment="", params="").geturl())


def _with_scheme(url: str) -> str:
    return url if "://" in url else f"http://{url}"


def connect(settings: Settings) -> Any:
    """A connected WeaviateClient for the settings; WEAVIATE_CONNECTION failure otherwise."""
    import weaviate
    from weaviate.classes.init import AdditionalConfig, Auth, Timeout

    kind, kwargs = connection_plan(settings.weaviate_url, settings.weaviate_grpc_port)
    key = settings.weaviate_api_key.get_secret_value()
    if key:
        kwargs["auth_credentials"] = Auth.api_key(key)
    elif kind == "cloud":
        raise config_error(
            "Weaviate Cloud needs an API key.",
            hint="Set WEAVIATE_API_KEY to the cluster's API key.",
        )
    kwargs["additional_config"] = AdditionalConfig(timeout=Timeout(init=20, query=60, insert=120))
    connectors = {
        "local": weaviate.connect_to_local,
        "cloud": weaviate.connect_to_weaviate_cloud,
        "custom": weaviate.connect_to_custom,
    }
    return connectors[kind](**kwargs)


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
    if isinstance(node, AllOf | AnyOf):
        parts = [to_weaviate_filter(item, definition) for item in node.items]
        return Filter.all_of(parts) if isinstance(node, AllOf) else Filter.any_of(parts)
    assert isinstance(node, Condition)
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


def hybrid_arguments(
    query: str,
    vector: Any,
    alpha: float,
    where: Any,
    limit: int,
    offset: int,
) -> dict[str, Any]:
    """Keyword arguments for `collection.query.hybrid`: relative score fusion, our vector."""
    from weaviate.classes.query import HybridFusion, MetadataQuery

    return {
        "query": query,
        "vector": None if vector is None else [float(x) for x in vector],
        "alpha": alpha,
        "fusion_type": HybridFusion.RELATIVE_SCORE,
        "filters": where,
        "limit": limit,
        "offset": offset or None,
        "return_metadata": MetadataQuery(score=True, distance=True),
    }


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


def failure(exc: Exception) -> ToolFailure:
    """A weaviate-client exception as the ToolError category a caller can act on."""
    from weaviate import exceptions as wx

    text = str(exc)
    if isinstance(
        exc, wx.WeaviateConnectionError | wx.WeaviateStartUpError | wx.WeaviateTimeoutError
    ):
        return ToolFailure(
            ErrorCategory.NETWORK, f"Weaviate: {text}", hint=errors.WEAVIATE_CONNECTION_HINT
        )
    elif isinstance(exc, wx.WeaviateInsertManyAllFailedError | wx.WeaviateBatchError):
        return ToolFailure(
            ErrorCategory.STORE_ERROR, f"Weaviate: {text}", hint=errors.WEAVIATE_IMPORT_HINT
        )
    elif isinstance(exc, wx.UnexpectedStatusCodeError) and exc.status_code in (401, 403):
        return ToolFailure(
            ErrorCategory.UNAUTHORIZED,
            f"Weaviate refused the credentials: {text}",
            hint="Check WEAVIATE_API_KEY.",
        )
    return ToolFailure(
        ErrorCategory.STORE_ERROR, f"Weaviate: {text}", hint=errors.WEAVIATE_QUERY_HINT
    )


class WeaviateStore(KnowledgeStore):
    backend = "weaviate"

    def __init__(self, settings: Settings, embedder: Embedder) -> None:
        super().__init__(settings, embedder)
        self._client: Any = None
        self._client_lock = threading.Lock()

    @property
    def location(self) -> str:
        return safe_location(self.settings.weaviate_url)

    async def _run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        from weaviate.exceptions import WeaviateBaseError

        try:
            return await super()._run(fn, *args, **kwargs)
        except WeaviateBaseError as exc:
            raise failure(exc) from exc

    def client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                self._client = connect(self.settings)
                self._ensure_info_collection(self._client)
            return self._client

    def _ensure_info_collection(self, client: Any) -> None:
        from weaviate.classes.config import Configure, Tokenization
        from weaviate.classes.config import DataType as WDataType
        from weaviate.classes.config import Property as WProperty

        if client.collections.exists(INFO_COLLECTION):
            return
        client.collections.create(
            INFO_COLLECTION,
            description="Which embedding model made each video-research collection's vectors",
            properties=[
                WProperty(
                    name="collection", data_type=WDataType.TEXT, tokenization=Tokenization.FIELD
                ),
                WProperty(
                    name="embedding_model",
                    data_type=WDataType.TEXT,
                    tokenization=Tokenization.FIELD,
                ),
                WProperty(name="dimensions", data_type=WDataType.INT),
            ],
            vector_config=Configure.Vectors.self_provided(),
        )

    def _close_sync(self) -> None:
        with self._client_lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def _collection(self, state: CollectionState) -> Any:
        return self.client().collections.get(state.definition.name)

    def _record(self, name: str) -> None:
        info = self.client().collections.get(INFO_COLLECTION)
        info.data.insert_many(
            [
                _data_object(
                    {
                        "collection": name,
                        "embedding_model": self.embedder.identity,
                        "dimensions": self.embedder.dimensions,
                    },
                    generate_uuid5(name, INFO_COLLECTION),
                    None,
                )
            ]
        )

    def _ensure_sync(self, definition: CollectionDef) -> CollectionState:
        client = self.client()
        name = definition.name
        if not client.collections.exists(name):
            client.collections.create(**collection_config(definition, self.settings))
        else:
            collection = client.collections.get(name)
            present = {p.name for p in collection.config.get().properties}
            for prop in definition.properties:
                if prop.name not in present:
                    collection.config.add_property(property_config(prop))
        info = client.collections.get(INFO_COLLECTION).query.fetch_object_by_id(
            generate_uuid5(name, INFO_COLLECTION)
        )
        current = (self.embedder.identity, self.embedder.dimensions)
        if info is None:
            recorded = current
            self._record(name)
        else:
            recorded = (info.properties["embedding_model"], int(info.properties["dimensions"]))
            if recorded != current and self._total(client.collections.get(name), None) == 0:
                recorded = current
                self._record(name)
        return CollectionState(
            definition=definition,
            embedding_model=recorded[0],
            dimensions=recorded[1],
            compatible=recorded == current,
        )

    # ------------------------------------------------------------ writes
    def _write_sync(
        self,
        state: CollectionState,
        rows: list[tuple[str, dict[str, Any], Any]],
        *,
        upsert: bool,
        replace: FilterNode | None,
    ) -> int:
        collection = self._collection(state)
        ids = [uuid for uuid, _, _ in rows]
        old: list[str] = []
        if replace is not None:
            old = self._ids(collection, to_weaviate_filter(replace, state.definition))
        if not upsert:
            taken = self._existing(collection, ids)
            if taken:
                raise ToolFailure(
                    ErrorCategory.CONFLICT,
                    f"{state.definition.name} already holds an object with UUID {taken[0]}.",
                    hint="Use upsert to replace it, or leave the UUID out to get a new one.",
                )
        result = collection.data.insert_many(
            [_data_object(props, uuid, vector) for uuid, props, vector in rows]
        )
        if result.has_errors:
            if not upsert:
                written = [str(u) for u in result.uuids.values()]
                if written:
                    self._delete_ids(collection, written)
            index, error = next(iter(result.errors.items()))
            raise ToolFailure(
                ErrorCategory.STORE_ERROR,
                f"Weaviate refused object {index} of {len(rows)} in {state.definition.name}: "
                f"{error.message}",
                hint=errors.WEAVIATE_IMPORT_HINT,
            )
        stale = sorted(set(old) - set(ids))
        if stale:
            self._delete_ids(collection, stale)
        return len(stale)

    @staticmethod
    def _ids(collection: Any, where: Any) -> list[str]:
        """UUIDs of the objects matching `where` (up to Weaviate's 10,000-result window)."""
        found: list[str] = []
        while len(found) < DELETE_BATCH:
            page = collection.query.fetch_objects(
                filters=where, limit=1000, offset=len(found) or None, return_properties=[]
            ).objects
            found += [str(o.uuid) for o in page]
            if len(page) < 1000:
                break
        return found

    @staticmethod
    def _existing(collection: Any, ids: list[str]) -> list[str]:
        from weaviate.classes.query import Filter

        taken: list[str] = []
        for start in range(0, len(ids), 1000):
            chunk = ids[start : start + 1000]
            page = collection.query.fetch_objects(
                filters=Filter.by_id().contains_any(chunk), limit=len(chunk), return_properties=[]
            )
            taken += [str(o.uuid) for o in page.objects]
        return taken

    @staticmethod
    def _delete_ids(collection: Any, ids: list[str]) -> int:
        from weaviate.classes.query import Filter

        deleted = 0
        for start in range(0, len(ids), DELETE_BATCH):
            chunk = ids[start : start + DELETE_BATCH]
            deleted += collection.data.delete_many(
                where=Filter.by_id().contains_any(chunk)
            ).successful
        return deleted

    def _delete_sync(
        self, state: CollectionState, uuid: str | None, where: FilterNode | None
    ) -> int:
        collection = self._collection(state)
        if uuid is not None:
            return int(bool(collection.data.delete_by_id(uuid)))
        if where is None:
            return 0
        target = to_weaviate_filter(where, state.definition)
        deleted = 0
        while True:
            result = collection.data.delete_many(where=target)
            deleted += result.successful
            if result.matches < DELETE_BATCH or result.successful == 0:
                return deleted

    # ------------------------------------------------------------ reads
    def _get_sync(
        self, state: CollectionState, uuid: str, include_vector: bool
    ) -> StoredObject | None:
        obj = self._collection(state).query.fetch_object_by_id(uuid, include_vector=include_vector)
        return None if obj is None else to_stored_object(state.definition, obj)

    @staticmethod
    def _total(collection: Any, where: Any) -> int:
        return collection.aggregate.over_all(filters=where, total_count=True).total_count or 0

    def _count_sync(self, state: CollectionState, where: FilterNode | None) -> int:
        return self._total(self._collection(state), to_weaviate_filter(where, state.definition))

    def _fetch_sync(
        self,
        state: CollectionState,
        where: FilterNode | None,
        order_by: Sequence[Sort],
        limit: int,
        offset: int,
    ) -> list[StoredObject]:
        result = self._collection(state).query.fetch_objects(
            filters=to_weaviate_filter(where, state.definition),
            sort=to_sort(order_by),
            limit=limit,
            offset=offset or None,
        )
        return [to_stored_object(state.definition, o) for o in result.objects]

    @staticmethod
    def _query_share(query: str, text: str) -> float:
        return matched_share(query, text, relevance.STOPWORDS)

    def _hybrid_sync(
        self,
        state: CollectionState,
        query: str,
        vector: Any,
        alpha: float,
        where: FilterNode | None,
        limit: int,
        offset: int,
        adapt: bool = False,
    ) -> list[SearchHit]:
        collection = self._collection(state)
        filters = to_weaviate_filter(where, state.definition)
        keyword: list[Any] = []
        # Quotes go first on the first page only: Weaviate pages the fused list itself.
        run = quote_tokens(query) if offset == 0 else ()
        if adapt and alpha > 0 and query.strip():
            # The same rules as the embedded store's: the best keyword hits decide the
            # weight (`fusion.adapted_alpha`), and a passage among the first QUOTE_DEPTH
            # that the query quotes goes first, so a query is answered alike on either
            # backend.
            keyword = collection.query.bm25(
                query=query, filters=filters, limit=QUOTE_DEPTH if run else NAMES_AMONG
            ).objects
            alpha = adapted_alpha(
                query,
                self.embedder.identity,
                [self._keyword_text(state, o) for o in keyword[:NAMES_AMONG]],
            )
        result = collection.query.hybrid(
            **hybrid_arguments(query, vector, alpha, filters, limit, offset)
        )
        hits = [to_search_hit(state.definition, o, vector_only=False) for o in result.objects]
        objects = {str(o.uuid): o for o in keyword}
        quoted = asked_for({u: self._keyword_text(state, o) for u, o in objects.items()}, run)
        if not quoted:
            return hits
        by_uuid = {hit.uuid: hit for hit in hits}
        for uuid in quoted:  # a quoted passage the fused page left out
            by_uuid.setdefault(
                uuid, to_search_hit(state.definition, objects[uuid], vector_only=False)
            )
        ranked = quotes_first(
            [(hit.uuid, hit.score) for hit in hits],
            [str(o.uuid) for o in keyword],
            set(quoted),
        )
        return [by_uuid[uuid].model_copy(update={"score": score}) for uuid, score in ranked][:limit]

    @staticmethod
    def _keyword_text(state: CollectionState, obj: Any) -> str:
        return state.definition.keyword_text(from_weaviate(state.definition, obj.properties))

    def _near_vector_sync(
        self,
        state: CollectionState,
        vector: Any,
        where: FilterNode | None,
        limit: int,
        offset: int,
        max_distance: float | None,
    ) -> list[SearchHit]:
        from weaviate.classes.query import MetadataQuery

        result = self._collection(state).query.near_vector(
            near_vector=[float(x) for x in vector],
            distance=max_distance,
            limit=limit,
            offset=offset or None,
            filters=to_weaviate_filter(where, state.definition),
            return_metadata=MetadataQuery(distance=True),
        )
        return [to_search_hit(state.definition, o, vector_only=True) for o in result.objects]

    # ------------------------------------------------------------ re-embedding
    async def _reembed(self, state: CollectionState, progress: Progress | None) -> int:
        if state.dimensions != self.embedder.dimensions:
            raise config_error(
                f"Weaviate cannot change the vector size of {state.definition.name} in place "
                f"({state.dimensions} -> {self.embedder.dimensions}).",
                hint="Keep KNOWLEDGE_EMBEDDING_DIMENSIONS at the old size, or export the "
                "collection, delete it in Weaviate and ingest the objects again.",
            )
        total = await self._run(self._count_sync, state, None)
        done, after = 0, None
        while True:
            batch = await self._run(self._page_after, state, after)
            if not batch:
                break
            vectors = await self.embedder.embed(
                [state.definition.vector_text(o.properties) for o in batch], "document"
            )
            rows = [(o.uuid, o.properties, v) for o, v in zip(batch, vectors, strict=True)]
            await self._run(self._write_sync, state, rows, upsert=True, replace=None)
            done, after = done + len(batch), batch[-1].uuid
            if progress is not None:
                await progress(done, total)
        await self._run(self._record, state.definition.name)
        return done

    def _page_after(self, state: CollectionState, after: str | None) -> list[StoredObject]:
        """The next REEMBED_BATCH objects in UUID order (Weaviate's cursor API)."""
        result = self._collection(state).query.fetch_objects(limit=REEMBED_BATCH, after=after)
        return [to_stored_object(state.definition, o) for o in result.objects]


def _data_object(properties: dict[str, Any], uuid: str, vector: Any) -> Any:
    from weaviate.classes.data import DataObject

    return DataObject(
        properties=properties,
        uuid=uuid,
        vector=None if vector is None else [float(x) for x in vector],
    )

"""The Weaviate backend (WEAVIATE_URL set): weaviate-client v4, vectors supplied by us.

How the client connects is `weaviate_connection`'s business; how our collections,
filters and results map onto the client's classes is `weaviate_mapping`'s.

Collections are created idempotently from the same `CollectionDef`s the embedded store
uses (properties added later are added to an existing collection), with no server-side
vectorizer and an HNSW index configured from WEAVIATE_DISTANCE,
WEAVIATE_HNSW_MAX_CONNECTIONS, WEAVIATE_HNSW_EF_CONSTRUCTION and WEAVIATE_HNSW_EF. Which
embedding model and size made each collection's vectors is kept in one more collection,
`KnowledgeStoreInfo`, one object per collection.

Hybrid search uses Weaviate's own relativeScoreFusion, the definition the embedded store
reproduces.

Weaviate has no transactions: `insert_many` removes what it wrote when part of a batch
fails, and `replace_where` writes the new objects before deleting the old ones.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from video_research.config import Settings
from video_research.knowledge.backends.weaviate_connection import connect, failure, safe_location
from video_research.knowledge.backends.weaviate_mapping import (
    collection_config,
    data_object,
    from_weaviate,
    property_config,
    to_search_hit,
    to_sort,
    to_stored_object,
    to_weaviate_filter,
)
from video_research.knowledge.base import KnowledgeStore, Progress
from video_research.knowledge.collections import CollectionDef
from video_research.knowledge.embedders.embeddings import Embedder
from video_research.knowledge.filters import FilterNode
from video_research.knowledge.models import (
    CollectionState,
    SearchHit,
    Sort,
    StoredObject,
    generate_uuid5,
)
from video_research.knowledge.ranking import Candidate
from video_research.support import errors
from video_research.support.errors import ErrorCategory, ToolFailure, config_error

logger = logging.getLogger(__name__)

INFO_COLLECTION = "KnowledgeStoreInfo"
DELETE_BATCH = 10_000
"""Objects one delete_many removes at most (Weaviate's QUERY_MAXIMUM_RESULTS default)."""
REEMBED_BATCH = 256


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
                data_object(
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
            [data_object(props, uuid, vector) for uuid, props, vector in rows]
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

    def _candidates_sync(
        self,
        state: CollectionState,
        query: str,
        vector: Any,
        where: FilterNode | None,
        limit: int,
    ) -> list[Candidate]:
        import numpy as np
        from weaviate.classes.query import MetadataQuery

        collection = self._collection(state)
        filters = to_weaviate_filter(where, state.definition)
        keyword = (
            collection.query.bm25(
                query=query,
                filters=filters,
                limit=limit,
                include_vector=vector is not None,
                return_metadata=MetadataQuery(score=True),
            ).objects
            if query.strip()
            else []
        )
        nearest = (
            collection.query.near_vector(
                near_vector=[float(x) for x in vector],
                limit=limit,
                filters=filters,
                include_vector=True,
                return_metadata=MetadataQuery(distance=True),
            ).objects
            if vector is not None
            else []
        )
        query_vector = None if vector is None else np.asarray(vector, dtype=np.float32)
        return gather(state.definition, keyword, nearest, query_vector)

    def _near_vector_sync(
        self,
        state: CollectionState,
        vector: Any,
        where: FilterNode | None,
        limit: int,
        offset: int,
        max_distance: float | None,
        approximate: bool = False,  # Weaviate answers with the distances its index holds
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


def gather(
    definition: CollectionDef, keyword: Sequence[Any], nearest: Sequence[Any], query: Any
) -> list[Candidate]:
    """weaviate-client's result objects of both sides as `Candidate`s, each with its
    rank and score on the side(s) that returned it and its exact cosine to `query`,
    computed from the vector it came with (the store writes L2-normalised vectors)."""
    import numpy as np

    found: dict[str, Candidate] = {}

    def candidate(obj: Any) -> Candidate:
        key = str(obj.uuid)
        if key not in found:
            cosine = None
            stored = getattr(obj, "vector", None)
            stored = stored.get("default") if isinstance(stored, dict) else stored
            if query is not None and stored:
                row = np.asarray(stored, dtype=np.float32)
                cosine = float(row @ query) / (float(np.linalg.norm(row)) or 1.0)
            found[key] = Candidate(
                key=key, properties=from_weaviate(definition, obj.properties), cosine=cosine
            )
        return found[key]

    for rank, obj in enumerate(keyword):
        hit = candidate(obj)
        hit.keyword, hit.keyword_rank = float(obj.metadata.score or 0.0), rank
    for rank, obj in enumerate(nearest):
        candidate(obj).vector_rank = rank
    return list(found.values())

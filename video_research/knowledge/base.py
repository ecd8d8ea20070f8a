"""The knowledge store's interface: `KnowledgeStore`, which both backends implement.

Everything the backends share lives here: the abstract primitives each backend
provides, and the behaviour built on them once (validation, vectors, paging, hybrid
search's checks, re-embedding). The backends import this module and `models`; the
store module (`knowledge.store`) opens a backend when the process-wide store is first
asked for, so neither side imports the other at load time. See `knowledge.store` for
the contract every method keeps.
"""

from __future__ import annotations

import asyncio
import threading
import uuid as uuid_lib
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from video_research.config import Settings
from video_research.knowledge import ranking
from video_research.knowledge.collections import CollectionDef, DataType, get_collection
from video_research.knowledge.embedders.embeddings import Embedder
from video_research.knowledge.filters import FilterNode, bind
from video_research.knowledge.models import (
    CollectionInfo,
    CollectionState,
    Page,
    SearchHit,
    Sort,
    StoredObject,
    normalise_uuid,
    now_utc,
)
from video_research.knowledge.ranking import Candidate
from video_research.support.errors import config_error, invalid_input, not_found

MAX_RESULTS = 4096
"""Most results one search can rank (limit + offset); sqlite-vec's k limit."""

Progress = Callable[[int, int], Awaitable[None]]


class KnowledgeStore(ABC):
    """The interface both backends implement; see the module docstring for the contract."""

    backend: ClassVar[Literal["sqlite", "weaviate"]]

    def __init__(self, settings: Settings, embedder: Embedder) -> None:
        self.settings = settings
        self.embedder = embedder
        self._states: dict[str, CollectionState] = {}
        self._states_lock = threading.Lock()

    # ------------------------------------------------------------ backend primitives
    @property
    @abstractmethod
    def location(self) -> str:
        """The file path or URL the store lives at (safe to show: no credentials)."""

    @abstractmethod
    def _ensure_sync(self, definition: CollectionDef) -> CollectionState:
        """Create the collection when missing and read its recorded embedding model."""

    @abstractmethod
    def _write_sync(
        self,
        state: CollectionState,
        rows: list[tuple[str, dict[str, Any], Any]],
        *,
        upsert: bool,
        replace: FilterNode | None,
    ) -> int:
        """Write (uuid, properties, vector) rows; with `replace`, first delete what matches it.

        Returns how many objects `replace` deleted. All or nothing where the backend can.
        """

    @abstractmethod
    def _get_sync(
        self, state: CollectionState, uuid: str, include_vector: bool
    ) -> StoredObject | None: ...

    @abstractmethod
    def _delete_sync(
        self, state: CollectionState, uuid: str | None, where: FilterNode | None
    ) -> int: ...

    @abstractmethod
    def _count_sync(self, state: CollectionState, where: FilterNode | None) -> int: ...

    @abstractmethod
    def _fetch_sync(
        self,
        state: CollectionState,
        where: FilterNode | None,
        order_by: Sequence[Sort],
        limit: int,
        offset: int,
    ) -> list[StoredObject]: ...

    @abstractmethod
    def _candidates_sync(
        self,
        state: CollectionState,
        query: str,
        vector: Any,
        where: FilterNode | None,
        limit: int,
    ) -> list[Candidate]:
        """The keyword side's best `limit` (when `query` has words) and the vector side's
        best `limit` (when `vector` is given) under `where`, as one list of `Candidate`s,
        each with its rank and score on the side(s) that found it and its exact cosine
        to `vector` (the first stage of `knowledge.ranking`)."""

    @abstractmethod
    def _near_vector_sync(
        self,
        state: CollectionState,
        vector: Any,
        where: FilterNode | None,
        limit: int,
        offset: int,
        max_distance: float | None,
        approximate: bool = False,
    ) -> list[SearchHit]:
        """The `limit` objects nearest `vector` under `where`, after `offset`;
        `approximate`: distances as the index holds them, where the backend keeps them
        compressed (the embedded store's 8-bit codes, within ~1e-3 of the exact cosine),
        instead of reading each hit's stored vector."""

    @abstractmethod
    async def _reembed(self, state: CollectionState, progress: Progress | None) -> int: ...

    @abstractmethod
    def _close_sync(self) -> None: ...

    # ------------------------------------------------------------ shared behaviour
    async def _run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(fn, *args, **kwargs)

    async def collection(self, name: str) -> CollectionState:
        """The collection's state, creating it on first use in this process."""
        state = self._states.get(name)
        if state is None:
            definition = get_collection(name)
            state = await self._run(self._ensure_locked, definition)
        return state

    def _ensure_locked(self, definition: CollectionDef) -> CollectionState:
        with self._states_lock:
            state = self._states.get(definition.name)
            if state is None:
                state = self._ensure_sync(definition)
                self._states[definition.name] = state
            return state

    def _forget(self, name: str) -> None:
        with self._states_lock:
            self._states.pop(name, None)

    def _require_compatible(self, state: CollectionState) -> None:
        if state.compatible:
            return
        raise config_error(
            f"Collection {state.definition.name} in the knowledge store at {self.location} holds "
            f"vectors made with {state.embedding_model} ({state.dimensions} dimensions), but the "
            f"configuration now embeds with {self.embedder.identity} ({self.embedder.dimensions} "
            "dimensions). Vectors of different models cannot be compared, so writes and vector "
            "searches on it are refused.",
            hint="Either restore the previous KNOWLEDGE_EMBEDDING_PROVIDER / KNOWLEDGE_EMBEDDING_MODEL "
            "/ KNOWLEDGE_EMBEDDING_DIMENSIONS, or re-embed the stored objects with the new model: "
            f'video-research call knowledge_reembed --json \'{{"collection": "{state.definition.name}"}}\''
            " (keyword search keeps working meanwhile).",
        )

    def _prepare(
        self,
        state: CollectionState,
        objects: Sequence[Mapping[str, Any]],
        uuids: Sequence[Any] | None,
    ) -> tuple[list[dict[str, Any]], list[str]]:
        definition = state.definition
        if uuids is not None and len(uuids) != len(objects):
            raise invalid_input(f"{len(objects)} objects but {len(uuids)} UUIDs.")
        stamp = now_utc()
        clean = []
        for properties in objects:
            valid = definition.validate(properties)
            valid.setdefault("created_at", stamp)
            clean.append(valid)
        ids = (
            [normalise_uuid(u) for u in uuids]
            if uuids is not None
            else [str(uuid_lib.uuid4()) for _ in objects]
        )
        if len(set(ids)) != len(ids):
            raise invalid_input("The same UUID appears twice in one write.")
        return clean, ids

    async def _vectors(
        self, state: CollectionState, objects: list[dict[str, Any]], vectors: Any
    ) -> Any:
        """Caller-supplied vectors checked, or the embeddings of the objects' vector text."""
        if vectors is not None:
            return self._checked(state, vectors, len(objects))
        if not objects:
            import numpy as np

            return np.zeros((0, state.dimensions), dtype=np.float32)
        texts = [state.definition.vector_text(props) for props in objects]
        return await self.embedder.embed(texts, "document")

    def _checked(self, state: CollectionState, vectors: Any, rows: int) -> Any:
        import numpy as np

        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.shape != (rows, state.dimensions):
            raise invalid_input(
                f"Vectors for {state.definition.name} must have shape "
                f"({rows}, {state.dimensions}); got {matrix.shape}."
            )
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return matrix / norms

    async def _query_vector(self, state: CollectionState, text: str) -> Any:
        self._require_compatible(state)
        return (await self.embedder.embed([text], "query"))[0]

    async def insert_many(
        self,
        collection: str,
        objects: Sequence[Mapping[str, Any]],
        *,
        uuids: Sequence[Any] | None = None,
        vectors: Any = None,
        upsert: bool = False,
    ) -> list[str]:
        """Write many objects at once (one transaction on the embedded store); their UUIDs."""
        return (await self._write(collection, objects, uuids, vectors, upsert, None))[1]

    async def _write(
        self,
        collection: str,
        objects: Sequence[Mapping[str, Any]],
        uuids: Sequence[Any] | None,
        vectors: Any,
        upsert: bool,
        replace: FilterNode | None,
    ) -> tuple[int, list[str]]:
        state = await self.collection(collection)
        self._require_compatible(state)
        clean, ids = self._prepare(state, objects, uuids)
        where = bind(replace, state.definition)
        matrix = await self._vectors(state, clean, vectors)
        rows = list(zip(ids, clean, matrix, strict=True))
        deleted = await self._run(self._write_sync, state, rows, upsert=upsert, replace=where)
        return deleted, ids

    async def insert(
        self,
        collection: str,
        properties: Mapping[str, Any],
        *,
        uuid: Any = None,
        vector: Sequence[float] | None = None,
    ) -> str:
        """Store one new object; conflict when `uuid` exists already."""
        ids = await self.insert_many(
            collection,
            [properties],
            uuids=None if uuid is None else [uuid],
            vectors=None if vector is None else [vector],
        )
        return ids[0]

    async def upsert(
        self,
        collection: str,
        properties: Mapping[str, Any],
        *,
        uuid: Any,
        vector: Sequence[float] | None = None,
    ) -> str:
        """Create the object or replace all its properties (and vector)."""
        ids = await self.insert_many(
            collection,
            [properties],
            uuids=[uuid],
            vectors=None if vector is None else [vector],
            upsert=True,
        )
        return ids[0]

    async def replace_where(
        self,
        collection: str,
        where: FilterNode,
        objects: Sequence[Mapping[str, Any]],
        *,
        uuids: Sequence[Any] | None = None,
        vectors: Any = None,
    ) -> tuple[int, list[str]]:
        """Delete what `where` matches and write `objects` (upserting their UUIDs) as one change.

        Returns (deleted, new UUIDs). Atomic on the embedded store; on Weaviate the new
        objects are written first and the old ones deleted after, so a failure leaves
        extra objects rather than missing ones.
        """
        return await self._write(collection, objects, uuids, vectors, True, where)

    async def get(
        self, collection: str, uuid: Any, *, include_vector: bool = False
    ) -> StoredObject | None:
        state = await self.collection(collection)
        return await self._run(self._get_sync, state, normalise_uuid(uuid), include_vector)

    async def delete(self, collection: str, uuid: Any) -> bool:
        state = await self.collection(collection)
        return bool(await self._run(self._delete_sync, state, normalise_uuid(uuid), None))

    async def delete_where(self, collection: str, where: FilterNode) -> int:
        state = await self.collection(collection)
        bound = bind(where, state.definition)
        return await self._run(self._delete_sync, state, None, bound)

    async def count(self, collection: str, where: FilterNode | None = None) -> int:
        state = await self.collection(collection)
        return await self._run(self._count_sync, state, bind(where, state.definition))

    async def fetch(
        self,
        collection: str,
        *,
        where: FilterNode | None = None,
        order_by: Sequence[Sort | str] = (),
        limit: int = 100,
        offset: int = 0,
    ) -> Page:
        """One page of objects matching `where`, in `order_by` order (insertion order by default)."""
        state = await self.collection(collection)
        sorts = [Sort(s) if isinstance(s, str) else s for s in order_by]
        for sort in sorts:
            prop = state.definition.property(sort.prop)
            if not prop.filterable or prop.data_type is DataType.TEXT_ARRAY:
                raise invalid_input(
                    f"{state.definition.name} cannot be ordered by {sort.prop}.",
                    hint="Order by a filterable property that holds one value (not a list): "
                    + ", ".join(
                        p.name
                        for p in state.definition.filterable
                        if p.data_type is not DataType.TEXT_ARRAY
                    )
                    + ".",
                )
        _check_window(limit, offset)
        objects = await self._run(
            self._fetch_sync, state, bind(where, state.definition), sorts, limit + 1, offset
        )
        more = len(objects) > limit
        return Page(objects=objects[:limit], next_offset=offset + limit if more else None)

    async def candidates(
        self,
        collection: str,
        query: str,
        *,
        vector: Sequence[float] | None = None,
        where: FilterNode | None = None,
        limit: int = ranking.CANDIDATES,
        keywords: bool = True,
        vectors: bool = True,
    ) -> list[Candidate]:
        """The first stage of every hybrid search (`knowledge.ranking`): each side's best
        `limit` under `where` (`keywords`/`vectors`: whether to ask that side), with the
        query embedded here unless `vector` is given, and each candidate's searchable text."""
        _check_window(limit, 0)
        state = await self.collection(collection)
        bound = bind(where, state.definition)
        query_vector = None
        if vectors:
            if vector is not None:
                self._require_compatible(state)
                query_vector = self._checked(state, [vector], 1)[0]
            else:
                query_vector = await self._query_vector(state, query)
        found = await self._run(
            self._candidates_sync,
            state,
            query if keywords else "",
            query_vector,
            bound,
            limit,
        )
        for candidate in found:
            candidate.text = state.definition.keyword_text(candidate.properties)
        return found

    async def hybrid(
        self,
        collection: str,
        query: str,
        *,
        alpha: float | None = None,
        where: FilterNode | None = None,
        limit: int = 10,
        offset: int = 0,
        min_score: float | None = None,
        vector: Sequence[float] | None = None,
    ) -> list[SearchHit]:
        """Keyword + vector search ranked by `knowledge.ranking`: candidates, fusion (the
        fitted method, or a fixed weight `alpha` of the vector side: 0 keywords only, 1
        vectors only), relevance."""
        if alpha is not None and not 0.0 <= alpha <= 1.0:
            raise invalid_input(f"alpha must be between 0 and 1, got {alpha}.")
        _check_window(limit, offset)
        found = await self.candidates(
            collection,
            query,
            vector=vector,
            where=where,
            limit=max(ranking.CANDIDATES, limit + offset),
            keywords=alpha != 1.0,
            vectors=alpha != 0.0,
        )
        fitted = ranking.params(self.embedder.identity)
        words = ranking.QueryWords.of(query)
        ranked = ranking.fuse(found, fitted, alpha)[offset : offset + limit]
        return _above([to_hit(collection, c, fitted, words) for c in ranked], min_score)

    async def near_vector(
        self,
        collection: str,
        vector: Sequence[float],
        *,
        where: FilterNode | None = None,
        limit: int = 10,
        offset: int = 0,
        max_distance: float | None = None,
        approximate: bool = False,
    ) -> list[SearchHit]:
        """Objects nearest `vector`; `approximate` trades ~1e-3 of each distance for not
        reading the hits' stored vectors (a caller that ranks many filtered rows and
        reports none of their distances: a search's sentence links)."""
        _check_window(limit, offset)
        state = await self.collection(collection)
        self._require_compatible(state)
        query_vector = self._checked(state, [vector], 1)[0]
        return await self._run(
            self._near_vector_sync,
            state,
            query_vector,
            bind(where, state.definition),
            limit,
            offset,
            max_distance,
            approximate,
        )

    async def near_text(
        self,
        collection: str,
        text: str,
        *,
        where: FilterNode | None = None,
        limit: int = 10,
        offset: int = 0,
        max_distance: float | None = None,
    ) -> list[SearchHit]:
        _check_window(limit, offset)
        state = await self.collection(collection)
        return await self.near_vector(
            collection,
            await self._query_vector(state, text),
            where=where,
            limit=limit,
            offset=offset,
            max_distance=max_distance,
        )

    async def near_object(
        self,
        collection: str,
        uuid: Any,
        *,
        where: FilterNode | None = None,
        limit: int = 10,
        max_distance: float | None = None,
    ) -> list[SearchHit]:
        """Objects whose vectors are nearest to the stored object's, the object itself excluded."""
        _check_window(limit + 1, 0)
        state = await self.collection(collection)
        self._require_compatible(state)
        source = await self.get(collection, uuid, include_vector=True)
        if source is None:
            raise not_found(
                f"No object {uuid} in {collection}.",
                hint="Use an object_id from knowledge_search results.",
            )
        hits = await self._run(
            self._near_vector_sync,
            state,
            source.vector,
            bind(where, state.definition),
            limit + 1,
            0,
            max_distance,
        )
        return [hit for hit in hits if hit.uuid != source.uuid][:limit]

    async def info(self, collection: str) -> CollectionInfo:
        state = await self.collection(collection)
        return CollectionInfo(
            name=collection,
            count=await self._run(self._count_sync, state, None),
            embedding_model=state.embedding_model,
            dimensions=state.dimensions,
            compatible=state.compatible,
        )

    async def reembed(self, collection: str, progress: Progress | None = None) -> int:
        """Recompute every vector of `collection` with the configured embedder; how many.

        The collection then records the new model. Safe to interrupt: the old vectors stay
        in use until the last batch is written.
        """
        state = await self.collection(collection)
        count = await self._reembed(state, progress)
        self._forget(collection)
        await self.collection(collection)
        return count

    async def close(self) -> None:
        await self._run(self._close_sync)


def _check_window(limit: int, offset: int) -> None:
    if limit < 1 or offset < 0:
        raise invalid_input("limit must be at least 1 and offset at least 0.")
    if limit + offset > MAX_RESULTS:
        raise invalid_input(
            f"limit + offset may be at most {MAX_RESULTS}; page with filters or order_by instead."
        )


def _above(hits: list[SearchHit], min_score: float | None) -> list[SearchHit]:
    """Hits whose score comparable across queries (`relevance` where the backend gives
    it, else the score) reaches `min_score`."""
    if min_score is None:
        return hits
    return [
        hit
        for hit in hits
        if (hit.relevance if hit.relevance is not None else hit.score) >= min_score
    ]


def to_hit(
    collection: str,
    candidate: Candidate,
    fitted: ranking.Params,
    words: ranking.QueryWords,
    scored: bool = True,
) -> SearchHit:
    """A ranked candidate as the hit a search returns; with `scored`, its relevance (a
    search that returns a few of many hits scores those few: `score_hit`)."""
    hit = SearchHit(
        uuid=candidate.key,
        collection=collection,
        properties=candidate.properties,
        score=candidate.fused,
        distance=None if candidate.cosine is None else 1.0 - candidate.cosine,
        keyword_score=candidate.keyword,
    )
    if scored:
        score_hit(hit, candidate.text, fitted, words)
    return hit


def score_hit(hit: SearchHit, text: str, fitted: ranking.Params, words: ranking.QueryWords) -> None:
    """Set the hit's `keyword_share` and `relevance` from its own searchable `text`."""
    cosine = None if hit.distance is None else 1.0 - hit.distance
    hit.keyword_share = ranking.share(words, text)
    hit.relevance = ranking.relevance(fitted, words, cosine, text)

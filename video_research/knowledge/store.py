"""The knowledge store: one async interface, two backends (embedded SQLite, Weaviate).

Get the process-wide store with `await get_store()` (embedded SQLite file unless
WEAVIATE_URL is set). Every method is async and never blocks the event loop: SQLite and
the Weaviate client run in worker threads, embeddings in the embedder.

Objects live in collections (see `knowledge.collections`); each has a UUID, its
properties, and one vector computed from its `vectorize` properties by the configured
embedder (or supplied by the caller). Properties are validated against the collection
definition on every write; `created_at` is filled in when absent.

Writing (the embedded backend makes every call one transaction: all or nothing)::

    uuid = await store.insert("VideoAnalyses", {"title": ..., "summary": ...})
    uuid = await store.upsert("VideoMetadata", props, uuid=generate_uuid5(video_id))
    uuids = await store.insert_many(name, [props, ...], uuids=None, vectors=None, upsert=False)
    deleted, uuids = await store.replace_where(name, Filter.eq("source_path", p), [props, ...])
    await store.delete(name, uuid)                       # -> bool
    await store.delete_where(name, Filter.eq("video_id", v))   # -> count

`insert` refuses a UUID that exists (conflict); `upsert` replaces the whole object.
`vectors` is an optional (n, dimensions) array-like; rows are L2-normalised on the way in.

Reading::

    await store.get(name, uuid, include_vector=False)    # -> StoredObject | None
    await store.count(name, where=None)
    page = await store.fetch(name, where=..., order_by=[Sort("chunk_index")], limit=100, offset=0)
    page.objects, page.next_offset                       # next_offset None on the last page

Searching (results are `SearchHit`s, best first; `score` is higher-is-better)::

    await store.hybrid(name, "query", alpha=None, where=None, limit=10, offset=0,
                       min_score=None, vector=None)
    await store.candidates(name, "query", vector=None, where=None, limit=100)
    await store.near_text(name, "text", where=None, limit=10, max_distance=None)
    await store.near_vector(name, vector, where=None, limit=10, max_distance=None)
    await store.near_object(name, uuid, where=None, limit=10)   # excludes the object itself

Hybrid search is `knowledge.ranking`'s pipeline on both backends: each backend only
returns its candidates (the keyword side's and the vector side's best, each with its
exact cosine), and one module fuses them (the fitted method; a given `alpha` is a fixed
weight of the vector side over min-max normalised scores, 0 keywords only, 1 vectors
only) and scores each hit's relevance. `min_score` drops hits whose relevance is below
it; `vector` is the query's embedding when the caller has it already (one query over
several collections). Vector-only searches score 1 - distance.

The default local model is use-multilingual; a store whose collections were embedded
with another local model keeps it while KNOWLEDGE_EMBEDDING_MODEL is unset
(`effective_settings`), so upgrading never breaks an existing store's vector search.
The store records which embedding model and size made each collection's vectors. When
the configuration changes either, writes and vector searches on that collection fail
with a config_error that says how to re-embed (`reembed(name)`, or the
knowledge_reembed tool); keyword search, get, fetch, count and delete keep working.
An empty collection simply switches to the new model.

This module opens the process-wide store and names everything a caller needs. The
interface both backends implement is `knowledge.base.KnowledgeStore`, the value types
are in `knowledge.models`: the backends import those, never this module, and this
module imports a backend only when it opens one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from video_research.config import Settings
from video_research.knowledge.base import (
    MAX_RESULTS,
    KnowledgeStore,
    Progress,
)
from video_research.knowledge.embedders.embeddings import (
    DEFAULT_LOCAL_MODEL,
    LOCAL_MODELS,
    embedder_key,
    get_embedder,
)
from video_research.knowledge.models import (
    CollectionInfo,
    CollectionState,
    Page,
    SearchHit,
    Sort,
    StoredObject,
    generate_uuid5,
    normalise_uuid,
    now_utc,
)
from video_research.support.services import Resource, current_services

__all__ = [
    "MAX_RESULTS",
    "CollectionInfo",
    "CollectionState",
    "KnowledgeStore",
    "Page",
    "Progress",
    "SearchHit",
    "Sort",
    "StoredObject",
    "generate_uuid5",
    "get_store",
    "normalise_uuid",
    "now_utc",
]


# ------------------------------------------------------------------ the shared store


_RECORDED: dict[str, tuple[tuple[Any, ...], str | None]] = {}
"""recorded_local_model's last answer per store file, with the files' state it read."""


def recorded_local_model(settings: Settings) -> str | None:
    """The local model an existing embedded store was embedded with, when the model is
    not configured: a store made before the default changed keeps its model (and keeps
    answering vector searches) until it is re-embedded. None: nothing to keep (no file,
    no non-empty collection, Weaviate, Gemini, or a model set explicitly).

    Asked on every get_store(), so on every tool call: the answer is read again only when
    the database or its write-ahead log changed since (opening the file each time cost
    about as much as linking a search's moments)."""
    if (
        settings.weaviate_enabled
        or settings.embedding_provider != "local"
        or settings.embedding_model
        or not settings.knowledge_db.exists()
    ):
        return None
    path = str(settings.knowledge_db)
    state = tuple(_file_state(Path(path + suffix)) for suffix in ("", "-wal"))
    known = _RECORDED.get(path)
    if known is not None and known[0] == state:
        return known[1]
    model = _read_recorded_model(settings)
    _RECORDED[path] = (state, model)
    return model


def _file_state(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def _read_recorded_model(settings: Settings) -> str | None:
    import sqlite3

    try:
        conn = sqlite3.connect(f"file:{settings.knowledge_db}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return None
    try:
        recorded = conn.execute("SELECT name, embedding_model FROM collections").fetchall()
        for name, identity in recorded:
            model = identity.removeprefix("local:")
            kept = model in LOCAL_MODELS and model != DEFAULT_LOCAL_MODEL
            if kept and conn.execute(f'SELECT 1 FROM "obj_{name}" LIMIT 1').fetchone():
                return model
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return None


def effective_settings(settings: Settings) -> Settings:
    """`settings` with the model an existing store records, when none is configured."""
    model = recorded_local_model(settings)
    if model is None:
        return settings
    return settings.model_copy(update={"embedding_model": model})


def _key(settings: Settings) -> tuple[Any, ...]:
    settings = effective_settings(settings)
    if settings.weaviate_enabled:
        location: tuple[Any, ...] = (
            "weaviate",
            settings.weaviate_url,
            settings.weaviate_api_key.get_secret_value(),
            settings.weaviate_grpc_port,
        )
    else:
        location = ("sqlite", str(settings.knowledge_db))
    return (*location, embedder_key(settings))


def _open(settings: Settings) -> KnowledgeStore:
    """A store object for `settings`; connects lazily, so this is cheap."""
    settings = effective_settings(settings)
    embedder = get_embedder(settings)
    if settings.weaviate_enabled:
        from video_research.knowledge.backends.weaviate_store import WeaviateStore

        return WeaviateStore(settings, embedder)
    from video_research.knowledge.backends.sqlite_store import SqliteStore

    return SqliteStore(settings, embedder)


KNOWLEDGE_STORE: Resource[KnowledgeStore] = Resource(
    "knowledge",
    key=_key,
    open=_open,
    close=lambda store: store.close(),
    # One at a time: a configuration change (another data dir, Weaviate URL or
    # embedder) closes the store it replaces.
    single=True,
)


async def get_store(settings: Settings | None = None) -> KnowledgeStore:
    """The store for the settings in force, opened on first use and closed with the
    services that opened it."""
    return await current_services().aget(KNOWLEDGE_STORE, settings)

"""The embedded backend: one SQLite file with objects, an FTS5 index and sqlite-vec vectors.

Layout of the file (KNOWLEDGE_DB, default `knowledge.db` in the data dir):

- `collections`: one row per collection: its definition, the embedding model and size
  its vectors were made with, and the name of its live vector table.
- `obj_<Collection>`: `id` (integer key shared by the three tables), `uuid`, `properties`
  (JSON). Filterable scalar properties get an expression index on
  `json_extract(properties, '$.<name>')`, which is the expression filters compile to.
- `fts_<Collection>`: FTS5 (unicode61, diacritics folded) over the searchable properties;
  ranked with bm25() (k1 1.2, b 0.75, as Weaviate's BM25).
- `vectors_<Collection>...`: `id`, `embedding` (float32 bytes, L2-normalised).
- `vector_log`: (seq, collection, id) for every object id written or deleted, in commit
  order: how each process's in-memory vector index (`knowledge.ann`) learns what changed,
  whichever thread or process changed it.

Every write is one `BEGIN IMMEDIATE` transaction over all four, so a crash or a killed
process never leaves an object without its text index, its vector or its log entry. Connections use
WAL (readers never wait for the writer), a busy timeout for concurrent writers (other
processes included), and live one per worker thread: the store is only touched from
`asyncio.to_thread`, never on the event loop.

Vector search goes through `knowledge.ann.VectorIndex` (faiss HNSW beside the file,
exact numpy for small collections and for objects not yet in the graph); a filter is
first resolved to the matching ids (SQLite, through the expression indexes), and the
index searches only those: exactly when they are few, through faiss's filtered HNSW
search otherwise, so a selective filter still returns `limit` results when that many
match. Keyword search goes through a Tantivy index beside the file
(`keyword_index`, via `sqlite_keywords`), or FTS5 with a bounded plan (`fts`) while that
index cannot serve.

Schema version 1 files (vectors in sqlite-vec `vec0` tables) are migrated on open. The
file's tables, their migrations and each collection's tables are `sqlite_schema`'s;
vector search is `sqlite_vectors`', keyword search `sqlite_keywords`', re-embedding
`sqlite_reembed`'s; this module keeps connections, writes, reads and the hybrid merge.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from video_research.config import Settings
from video_research.knowledge.backends import sqlite_ext
from video_research.knowledge.backends.ann import VectorIndex
from video_research.knowledge.backends.keyword_index import KeywordIndex
from video_research.knowledge.backends.sqlite_keywords import KeywordSearch
from video_research.knowledge.backends.sqlite_reembed import ReEmbedding
from video_research.knowledge.backends.sqlite_schema import (
    KNOWLEDGE_SCHEMA_VERSION as KNOWLEDGE_SCHEMA_VERSION,  # imported from here elsewhere
)
from video_research.knowledge.backends.sqlite_schema import CollectionSchema
from video_research.knowledge.backends.sqlite_sql import (
    compile_filter,
    id_chunks,
    log_vector_changes,
    objects_by_row,
    properties_json,
    property_sql,
    rows_in,
    transaction,
)
from video_research.knowledge.backends.sqlite_vectors import VectorSearch
from video_research.knowledge.base import KnowledgeStore
from video_research.knowledge.embedders.embeddings import Embedder
from video_research.knowledge.filters import FilterNode
from video_research.knowledge.models import CollectionState, SearchHit, Sort, StoredObject
from video_research.knowledge.ranking import Candidate
from video_research.support.errors import ErrorCategory, ToolFailure, config_error

logger = logging.getLogger(__name__)

BUSY_TIMEOUT_SECONDS = 30.0
_CHUNK = 500
"""Parameters per IN (...) list, well under SQLite's limit."""


class SqliteStore(CollectionSchema, KeywordSearch, VectorSearch, ReEmbedding, KnowledgeStore):
    backend = "sqlite"

    def __init__(self, settings: Settings, embedder: Embedder) -> None:
        super().__init__(settings, embedder)
        self.path = settings.knowledge_db
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._schema_ready = False
        self._vec_tables: dict[str, str] = {}
        self._indexes: dict[str, VectorIndex] = {}
        self._keyword_indexes: dict[str, KeywordIndex] = {}
        self._indexes_lock = threading.Lock()
        self._filter_ids: dict[tuple[Any, ...], Any] = {}
        self._write_lock = threading.Lock()
        self._search_slots = threading.BoundedSemaphore(max(1, min(4, os.cpu_count() or 1)))
        """Searches running at once: one per core. More only share the cores and all finish
        late; queued, the first of fifty concurrent searches answers as fast as a lone one."""
        self.pragmas: list[str] = []
        """Extra PRAGMA statements for every new connection (tests: max_page_count)."""

    @property
    def location(self) -> str:
        return str(self.path)

    def apply_pragma(self, statement: str) -> None:
        """Run a PRAGMA on every open connection and on each one opened later: how the
        fault tests cap `max_page_count` under a running server to fill its disk."""
        self.pragmas.append(statement)
        with self._connections_lock:
            connections = list(self._connections)
        for conn in connections:
            conn.execute(statement)

    # ------------------------------------------------------------ connections
    async def _run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super()._run(fn, *args, **kwargs)
        except sqlite3.Error as exc:
            raise self._failure(exc) from exc
        except sqlite_ext.ExtensionError as exc:
            raise config_error(
                str(exc),
                hint="Set WEAVIATE_URL to use Weaviate instead of the embedded store.",
            ) from exc

    def _failure(self, exc: sqlite3.Error) -> ToolFailure:
        text = str(exc)
        if "locked" in text or "busy" in text:
            return ToolFailure(
                ErrorCategory.TIMEOUT,
                f"The knowledge store {self.path} stayed locked by another writer for "
                f"{BUSY_TIMEOUT_SECONDS:.0f} s.",
                hint="Another process is writing a large batch; retry in a moment.",
            )
        if "disk is full" in text or "disk I/O error" in text:
            return config_error(
                f"The knowledge store {self.path} could not write: {text}. Nothing already "
                "stored was lost (the write was rolled back as a whole).",
                hint="Free space on that disk, or point KNOWLEDGE_DB (or VIDEO_RESEARCH_DATA_DIR) "
                "at a disk with room, then retry.",
            )
        if "unable to open" in text or "readonly" in text or "read-only" in text:
            return config_error(
                f"The knowledge store {self.path} cannot be opened for writing: {text}.",
                hint="Check that the directory exists and is writable, or point KNOWLEDGE_DB "
                "(or VIDEO_RESEARCH_DATA_DIR) elsewhere.",
            )
        if "malformed" in text or "not a database" in text:
            return ToolFailure(
                ErrorCategory.INTERNAL_ERROR,
                f"The knowledge store {self.path} is damaged: {text}.",
                hint="Restore it from a backup, or move it aside to start a new one.",
            )
        return ToolFailure(ErrorCategory.INTERNAL_ERROR, f"Knowledge store error: {text}")

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn, _route = sqlite_ext.connect(
                str(self.path),
                timeout=BUSY_TIMEOUT_SECONDS,
                isolation_level=None,
                check_same_thread=False,
            )
            if not self._schema_ready:
                try:
                    # Before journal_mode: a newer file is refused without one byte written.
                    self._create_schema(conn)
                except BaseException:
                    conn.close()
                    raise
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            for pragma in self.pragmas:
                conn.execute(pragma)
            with self._connections_lock:
                self._connections.append(conn)
            self._local.conn = conn
        return conn

    @contextmanager
    def _transaction(self, immediate: bool = True) -> Iterator[sqlite3.Connection]:
        """A transaction on this thread's connection. Writers of this process queue on a
        lock first: SQLite's busy handler makes a waiting writer sleep in growing steps,
        so fifty concurrent writes through it took longer than fifty in a row."""
        conn = self._conn()
        if not immediate:
            with transaction(conn, False):
                yield conn
            return
        with self._write_lock, transaction(conn, True):
            yield conn

    def _close_sync(self) -> None:
        with self._indexes_lock:
            indexes, self._indexes = list(self._indexes.values()), {}
            keyword_indexes = list(self._keyword_indexes.values())
            self._keyword_indexes = {}
        for index in indexes:
            index.close()
        for keyword_index in keyword_indexes:
            keyword_index.close()
        with self._connections_lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            try:
                conn.close()
            except sqlite3.Error as exc:  # pragma: no cover - closing is best effort
                logger.debug("closing a knowledge connection failed: %s", exc)

    # ------------------------------------------------------------ writes
    def _write_sync(
        self,
        state: CollectionState,
        rows: list[tuple[str, dict[str, Any], Any]],
        *,
        upsert: bool,
        replace: FilterNode | None,
    ) -> int:
        definition = state.definition
        name = definition.name
        vec = self._vec_tables[name]
        with self._transaction() as conn:
            deleted = 0
            if replace is not None:
                deleted = self._delete_ids(conn, state, self._matching_ids(conn, name, replace))
            existing: dict[str, int] = dict(
                rows_in(
                    conn,
                    f'SELECT uuid, id FROM "obj_{name}" WHERE uuid IN',
                    [uuid for uuid, _, _ in rows],
                )
            )
            if existing and not upsert:
                taken = next(iter(existing))
                raise ToolFailure(
                    ErrorCategory.CONFLICT,
                    f"{name} already holds an object with UUID {taken}.",
                    hint="Use upsert to replace it, or leave the UUID out to get a new one.",
                )
            next_id = conn.execute(f'SELECT coalesce(max(id), 0) FROM "obj_{name}"').fetchone()[0]
            fresh, updated, keyword, vectors = [], [], [], []
            for uuid, properties, vector in rows:
                body = properties_json(properties)
                row_id = existing.get(uuid)
                if row_id is None:
                    next_id += 1
                    row_id = next_id
                    fresh.append((row_id, uuid, body))
                else:
                    updated.append((body, row_id))
                keyword.append((row_id, definition.keyword_text(properties)))
                vectors.append((row_id, vector.tobytes()))
            if updated:
                conn.executemany(f'UPDATE "obj_{name}" SET properties = ? WHERE id = ?', updated)
                stale = [(row_id,) for _, row_id in updated]
                conn.executemany(f'DELETE FROM "fts_{name}" WHERE rowid = ?', stale)
            conn.executemany(
                f'INSERT INTO "obj_{name}" (id, uuid, properties) VALUES (?, ?, ?)', fresh
            )
            conn.executemany(f'INSERT INTO "fts_{name}" (rowid, body) VALUES (?, ?)', keyword)
            conn.executemany(
                f'INSERT OR REPLACE INTO "{vec}" (id, embedding) VALUES (?, ?)', vectors
            )
            log_vector_changes(conn, name, [row_id for row_id, _ in vectors])
        self._index_changed(name)
        return deleted

    def _matching_ids(self, conn: sqlite3.Connection, name: str, where: FilterNode) -> list[int]:
        sql, params = compile_filter(where, f"obj_{name}")
        return [i for (i,) in conn.execute(f'SELECT id FROM "obj_{name}" o WHERE {sql}', params)]

    def _delete_ids(self, conn: sqlite3.Connection, state: CollectionState, ids: list[int]) -> int:
        name = state.definition.name
        for chunk in id_chunks(ids):
            marks = ",".join("?" * len(chunk))
            for table in (f"obj_{name}", f"fts_{name}"):
                key = "id" if table.startswith("obj_") else "rowid"
                conn.execute(f'DELETE FROM "{table}" WHERE {key} IN ({marks})', list(chunk))
            conn.execute(
                f'DELETE FROM "{self._vec_tables[name]}" WHERE id IN ({marks})', list(chunk)
            )
        log_vector_changes(conn, name, ids)
        return len(ids)

    def _delete_sync(
        self, state: CollectionState, uuid: str | None, where: FilterNode | None
    ) -> int:
        name = state.definition.name
        with self._transaction() as conn:
            if uuid is not None:
                ids = [
                    i
                    for (i,) in conn.execute(f'SELECT id FROM "obj_{name}" WHERE uuid = ?', (uuid,))
                ]
            else:
                ids = self._matching_ids(conn, name, where) if where is not None else []
            deleted = self._delete_ids(conn, state, ids)
        if deleted:
            self._index_changed(name)
        return deleted

    # ------------------------------------------------------------ reads
    def _get_sync(
        self, state: CollectionState, uuid: str, include_vector: bool
    ) -> StoredObject | None:
        name = state.definition.name
        with self._transaction(immediate=False) as conn:
            row = conn.execute(
                f'SELECT id, properties FROM "obj_{name}" WHERE uuid = ?', (uuid,)
            ).fetchone()
            if row is None:
                return None
            vector = None
            if include_vector:
                blob = conn.execute(
                    f'SELECT embedding FROM "{self._vec_tables[name]}" WHERE id = ?', (row[0],)
                ).fetchone()
                vector = _floats(blob[0]) if blob else None
        return StoredObject(
            uuid=uuid, collection=name, properties=json.loads(row[1]), vector=vector
        )

    def _count_sync(self, state: CollectionState, where: FilterNode | None) -> int:
        sql, params = compile_filter(where, f"obj_{state.definition.name}")
        conn = self._conn()
        return conn.execute(
            f'SELECT count(*) FROM "obj_{state.definition.name}" o WHERE {sql}', params
        ).fetchone()[0]

    def _fetch_sync(
        self,
        state: CollectionState,
        where: FilterNode | None,
        order_by: Sequence[Sort],
        limit: int,
        offset: int,
    ) -> list[StoredObject]:
        name = state.definition.name
        sql, params = compile_filter(where, f"obj_{name}")
        order = ", ".join(
            f"{property_sql(s.prop)} {'DESC' if s.descending else 'ASC'}" for s in order_by
        )
        order = f"{order}, o.id" if order else "o.id"
        rows = self._conn().execute(
            f'SELECT uuid, properties FROM "obj_{name}" o WHERE {sql} '
            f"ORDER BY {order} LIMIT ? OFFSET ?",
            [*params, limit, offset],
        )
        return [
            StoredObject(uuid=uuid, collection=name, properties=json.loads(body))
            for uuid, body in rows
        ]

    # ------------------------------------------------------------ the vector index
    # ------------------------------------------------------------ vector search (sqlite_vectors)

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
        name = state.definition.name
        with self._search_slots, self._transaction(immediate=False) as conn:
            rows = self._knn(conn, state, vector, where, limit + offset, not approximate)
            rows = rows[offset:]
        # Built without validation: every field comes from this store's own rows, already
        # typed, and a transcript search builds a hundred of them for its sentences.
        return [
            SearchHit.model_construct(
                uuid=uuid,
                collection=name,
                properties=json.loads(body),
                score=1.0 - distance,
                distance=distance,
            )
            for uuid, distance, body in rows
            if max_distance is None or distance <= max_distance
        ]

    def _candidates_sync(
        self,
        state: CollectionState,
        query: str,
        vector: Any,
        where: FilterNode | None,
        limit: int,
    ) -> list[Candidate]:
        name = state.definition.name
        with self._search_slots, self._transaction(immediate=False) as conn:
            keyword = self._keyword(conn, name, query, where, limit)[0] if query.strip() else []
            # Row ids and the codes' distances first: only the candidates are read back
            # (object, exact vector), each a random read in the file.
            nearest = (
                self._nearest(conn, state, vector, where, limit, exact=False)
                if vector is not None
                else []
            )
            rows = list(dict.fromkeys([row for row, _ in keyword] + [c.row for c in nearest]))
            objects = objects_by_row(conn, name, rows)
            cosines = (
                {row: 1.0 - d for row, d in self._distances(conn, name, vector, rows).items()}
                if vector is not None
                else {}
            )
        by_row: dict[int, Candidate] = {}
        for rank, (row, score) in enumerate(keyword):
            by_row[row] = Candidate(key="", properties={}, keyword=score, keyword_rank=rank)
        for rank, near in enumerate(nearest):
            by_row.setdefault(near.row, Candidate(key="", properties={})).vector_rank = rank
        found = []
        for row, candidate in by_row.items():
            if row not in objects:  # deleted since the index answered
                continue
            candidate.key = objects[row][0]
            candidate.properties = json.loads(objects[row][1])
            candidate.cosine = cosines.get(row)
            found.append(candidate)
        return found

    def _distances(
        self, conn: sqlite3.Connection, name: str, vector: Any, rows: list[int]
    ) -> dict[int, float]:
        """Exact cosine distances of the rows a hybrid search returns (so every hit
        carries its exact cosine, whichever side found it)."""
        import numpy as np

        query = np.asarray(vector, dtype=np.float32)
        select = f'SELECT id, embedding FROM "{self._vec_tables[name]}" WHERE id IN'
        return {
            int(row): 1.0 - float(np.frombuffer(blob, dtype=np.float32) @ query)
            for row, blob in rows_in(conn, select, rows)
        }


def _floats(blob: bytes) -> list[float]:
    import numpy as np

    return np.frombuffer(blob, dtype=np.float32).tolist()

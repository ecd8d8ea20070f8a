"""The embedded store's vector side: the per-collection `VectorIndex`, fed from SQLite.

A mixin of `SqliteStore`: it owns `self._indexes` (one `knowledge.ann.VectorIndex` per
collection), hands each index readers of this thread's connection (the change log, the
vectors by id, all vectors), resolves filters to the matching row ids (cached until the
collection changes) and joins the index's answer back to the objects. Also the one-time
move of schema-1 vectors out of sqlite-vec's vec0 tables.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

from video_research.knowledge.backends.ann import Candidate, VectorIndex
from video_research.knowledge.backends.sqlite_sql import compile_filter, objects_by_row, rows_in
from video_research.knowledge.filters import FilterNode
from video_research.knowledge.models import CollectionState

logger = logging.getLogger(__name__)


class VectorSearch:
    """Vector search for SqliteStore (see the module docstring)."""

    # Provided by SqliteStore.
    path: Path
    settings: Any
    _vec_tables: dict[str, str]
    _indexes: dict[str, VectorIndex]
    _indexes_lock: Any
    _filter_ids: dict[tuple[Any, ...], Any]

    def _conn(self) -> sqlite3.Connection:  # pragma: no cover - SqliteStore's
        raise NotImplementedError

    @staticmethod
    def _create_vec_table(conn: sqlite3.Connection, table: str, dimensions: int) -> None:
        """A plain rowid table of float32 vector bytes (the dimensions live in `collections`)."""
        conn.execute(
            f'CREATE TABLE IF NOT EXISTS "{table}" (id INTEGER PRIMARY KEY, embedding BLOB NOT NULL)'
        )

    def _migrate_from_vec0(self, conn: sqlite3.Connection) -> None:
        """Schema 1 -> 2: each collection's vec0 table becomes a plain table of float32 bytes.

        vec0 scans every vector for every query and reads single vectors slowly (~2 ms
        each); the vector index now does the searching, and needs fast reads by id.
        """
        collections = conn.execute("SELECT name, vec_table FROM collections").fetchall()
        for name, old in collections:
            new = f"vectors_{name}"
            logger.info("knowledge store: moving the vectors of %s out of vec0", name)
            self._create_vec_table(conn, new, 0)
            conn.execute(
                f'INSERT OR REPLACE INTO "{new}" (id, embedding) SELECT rowid, embedding FROM "{old}"'
            )
            conn.execute(f'DROP TABLE "{old}"')
            conn.execute("UPDATE collections SET vec_table = ? WHERE name = ?", (new, name))
        for key, staging in conn.execute(
            "SELECT key, value FROM store_meta WHERE key LIKE 'reembed_staging:%'"
        ).fetchall():
            conn.execute(f'DROP TABLE IF EXISTS "{staging}"')
            conn.execute("DELETE FROM store_meta WHERE key = ?", (key,))
        conn.execute("UPDATE store_meta SET value = '2' WHERE key = 'schema_version'")

    def _index(self, state: CollectionState) -> VectorIndex:
        name = state.definition.name
        source = self._vec_tables[name]
        with self._indexes_lock:
            index = self._indexes.get(name)
            if index is None or index.source != source or index.dimensions != state.dimensions:
                if index is not None:
                    index.close()
                settings = self.settings
                index = VectorIndex(
                    Path(str(self.path) + ".ann"),
                    name,
                    source,
                    state.dimensions,
                    min_objects=settings.knowledge_ann_min_objects
                    if settings.knowledge_ann
                    else 2**62,
                    ef_search=settings.knowledge_ann_ef_search,
                )
                self._indexes[name] = index
            return index

    def _index_changed(self, name: str) -> None:
        """After a commit: a loaded index takes the change in now (its worker merges it)."""
        index = self._indexes.get(name)
        if index is not None and index.applied >= 0:
            index.catch_up(*self._readers(self._conn(), name))

    def _readers(self, conn: sqlite3.Connection, name: str) -> tuple[Any, Any, Any]:
        table = self._vec_tables[name]

        def read_log(after: int) -> tuple[int, list[int] | None]:
            latest = conn.execute(
                "SELECT coalesce(max(seq), 0) FROM vector_log WHERE collection = ?", (name,)
            ).fetchone()[0]
            if after < 0 or latest <= after:
                return latest, []
            ids = conn.execute(
                "SELECT id FROM vector_log WHERE collection = ? AND seq > ? ORDER BY seq",
                (name, after),
            ).fetchall()
            return latest, [i for (i,) in ids]

        def read_vectors(ids: list[int]) -> dict[int, bytes]:
            return dict(rows_in(conn, f'SELECT id, embedding FROM "{table}" WHERE id IN', ids))

        def read_all() -> Any:
            cursor = conn.execute(f'SELECT id, embedding FROM "{table}"')
            while batch := cursor.fetchmany(10000):
                yield from batch

        return read_log, read_vectors, read_all

    def _allowed_ids(
        self, conn: sqlite3.Connection, name: str, where: FilterNode, generation: int
    ) -> Any:
        """Sorted row ids matching `where`, cached until the collection changes."""
        import numpy as np

        sql, params = compile_filter(where, f"obj_{name}")
        key = (name, sql, tuple(params), generation)
        ids = self._filter_ids.get(key)
        if ids is None:
            (found,) = conn.execute(
                f'SELECT json_group_array(id) FROM "obj_{name}" o WHERE {sql}', params
            ).fetchone()
            ids = np.sort(np.asarray(json.loads(found), dtype=np.int64))
            if len(self._filter_ids) >= 64:
                self._filter_ids.pop(next(iter(self._filter_ids)))
            self._filter_ids[key] = ids
        return ids

    def _knn(
        self,
        conn: sqlite3.Connection,
        state: CollectionState,
        vector: Any,
        where: FilterNode | None,
        k: int,
        exact: bool = True,
    ) -> list[tuple[str, float, str]]:
        """(uuid, cosine distance, properties JSON) of the k nearest objects matching
        `where` (`exact`: see `_nearest`)."""
        name = state.definition.name
        nearest = self._nearest(conn, state, vector, where, k, exact)
        if not nearest:
            return []
        bodies = objects_by_row(conn, name, [c.row for c in nearest])
        return [
            (bodies[c.row][0], c.distance, bodies[c.row][1]) for c in nearest if c.row in bodies
        ]

    def _nearest(
        self,
        conn: sqlite3.Connection,
        state: CollectionState,
        vector: Any,
        where: FilterNode | None,
        k: int,
        exact: bool = True,
    ) -> list[Candidate]:
        """The index's k nearest rows matching `where` (row ids: no object is read);
        `exact=False`: distances of graph candidates from their codes (see
        `VectorIndex.search`)."""
        name = state.definition.name
        index = self._index(state)
        read_log, read_vectors, read_all = self._readers(conn, name)
        index.catch_up(read_log, read_vectors, read_all)
        allowed = None
        if where is not None:
            allowed = self._allowed_ids(conn, name, where, index.applied)
            if not len(allowed):
                return []
        return index.search(vector, k, allowed, read_vectors, exact)

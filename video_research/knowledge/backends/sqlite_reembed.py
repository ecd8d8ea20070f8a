"""The embedded store's re-embedding: every vector of a collection made again by the
current model (`knowledge_reembed`), while the collection stays searchable.

A mixin of `SqliteStore`. The new vectors go to a staging table beside the live one, in
batches of REEMBED_BATCH, with progress; objects written meanwhile are caught up at the
end, and the swap (the live table dropped, the collection's model, size and table
updated) is one transaction; a vector index is keyed by its table, so it is rebuilt from
the new one. A staging table left by a stopped run is dropped by the next one.
"""

from __future__ import annotations

import json
import sqlite3
import uuid as uuid_lib
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Any

from video_research.knowledge.base import Progress
from video_research.knowledge.models import CollectionState

REEMBED_BATCH = 256
"""Objects embedded and written per step of a re-embedding."""


class ReEmbedding:
    """Re-embedding for SqliteStore (see the module docstring)."""

    # Provided by SqliteStore and its VectorSearch. Annotations only: a stub here would
    # come before KnowledgeStore in the method order, where SqliteStore's super() calls go.
    embedder: Any
    _vec_tables: dict[str, str]
    _run: Callable[..., Awaitable[Any]]
    _conn: Callable[[], sqlite3.Connection]
    _transaction: Callable[..., AbstractContextManager[sqlite3.Connection]]
    _create_vec_table: Callable[[sqlite3.Connection, str, int], None]

    async def _reembed(self, state: CollectionState, progress: Progress | None) -> int:
        name = state.definition.name
        staging = f"vectors_{name}_{uuid_lib.uuid4().hex[:8]}"
        total = await self._run(self._begin_reembed, name, staging)
        done, after = 0, 0
        while True:
            batch = await self._run(self._rows_after, name, after, REEMBED_BATCH)
            if not batch:
                break
            await self._stage(state, staging, batch)
            done += len(batch)
            after = batch[-1][0]
            if progress is not None:
                await progress(done, total)
        while True:
            late = await self._run(self._finish_reembed, state, staging)
            if not late:
                return done
            await self._stage(state, staging, late)
            done += len(late)

    async def _stage(self, state: CollectionState, staging: str, batch: list[tuple[int, str]]):
        texts = [state.definition.vector_text(json.loads(body)) for _, body in batch]
        vectors = await self.embedder.embed(texts, "document")
        await self._run(self._write_staging, staging, [i for i, _ in batch], vectors)

    def _begin_reembed(self, name: str, staging: str) -> int:
        key = f"reembed_staging:{name}"
        with self._transaction() as conn:
            leftover = conn.execute("SELECT value FROM store_meta WHERE key = ?", (key,)).fetchone()
            if leftover is not None:
                conn.execute(f'DROP TABLE IF EXISTS "{leftover[0]}"')
            self._create_vec_table(conn, staging, self.embedder.dimensions)
            conn.execute("INSERT OR REPLACE INTO store_meta VALUES (?, ?)", (key, staging))
            return conn.execute(f'SELECT count(*) FROM "obj_{name}"').fetchone()[0]

    def _rows_after(self, name: str, after: int, limit: int) -> list[tuple[int, str]]:
        return (
            self._conn()
            .execute(
                f'SELECT id, properties FROM "obj_{name}" WHERE id > ? ORDER BY id LIMIT ?',
                (after, limit),
            )
            .fetchall()
        )

    def _write_staging(self, staging: str, ids: list[int], vectors: Any) -> None:
        with self._transaction() as conn:
            conn.executemany(
                f'INSERT OR REPLACE INTO "{staging}" (id, embedding) VALUES (?, ?)',
                [(i, v.tobytes()) for i, v in zip(ids, vectors, strict=True)],
            )

    def _finish_reembed(self, state: CollectionState, staging: str) -> list[tuple[int, str]]:
        """Swap the staging vectors in; or the objects written meanwhile that still need one."""
        name = state.definition.name
        with self._transaction() as conn:
            late = conn.execute(
                f'SELECT id, properties FROM "obj_{name}" WHERE id NOT IN '
                f'(SELECT id FROM "{staging}") ORDER BY id'
            ).fetchall()
            if late:
                return late
            orphans = conn.execute(
                f'SELECT id FROM "{staging}" WHERE id NOT IN (SELECT id FROM "obj_{name}")'
            ).fetchall()
            conn.executemany(f'DELETE FROM "{staging}" WHERE id = ?', orphans)
            conn.execute(f'DROP TABLE "{self._vec_tables[name]}"')
            conn.execute(
                "UPDATE collections SET embedding_model = ?, dimensions = ?, vec_table = ? "
                "WHERE name = ?",
                (self.embedder.identity, self.embedder.dimensions, staging, name),
            )
            conn.execute("DELETE FROM store_meta WHERE key = ?", (f"reembed_staging:{name}",))
            # Every vector changed, so nothing goes to the vector log: an index is keyed by
            # its table (`VectorSearch._index`), and the new vec_table rebuilds it.
        self._vec_tables[name] = staging
        return []

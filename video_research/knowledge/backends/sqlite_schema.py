"""The embedded store's schema: the file's tables and their migrations, and each
collection's tables (created, checked against the embedder, re-indexed when its
searchable fields change).

A mixin of `SqliteStore` (see sqlite_store's docstring for the file's layout), kept
apart from the reads and writes: what a file holds and how an old one is brought up to
date is one question, searching and writing it another.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from video_research.knowledge.backends import fts
from video_research.knowledge.backends.keyword_index import KeywordIndex
from video_research.knowledge.collections import CollectionDef, DataType
from video_research.knowledge.embedders.embeddings import Embedder
from video_research.knowledge.models import CollectionState
from video_research.support import migrations

logger = logging.getLogger(__name__)

KNOWLEDGE_SCHEMA_VERSION = 2
"""Version 1 kept vectors in sqlite-vec vec0 tables; 2 keeps them as float32 bytes.
store_meta.schema_version repeats it, so releases from before user_version (which
read only that row) also refuse a newer file."""
SCHEMA_VERSION = str(KNOWLEDGE_SCHEMA_VERSION)


class CollectionSchema:
    """The file's schema and each collection's tables, for SqliteStore."""

    # Provided by SqliteStore.
    path: Path
    embedder: Embedder
    _schema_ready: bool
    _vec_tables: dict[str, str]
    _keyword_indexes: dict[str, KeywordIndex]
    _indexes_lock: Any

    if TYPE_CHECKING:  # provided by SqliteStore and VectorSearch

        def _transaction(
            self, immediate: bool = True
        ) -> AbstractContextManager[sqlite3.Connection]: ...

        def _create_vec_table(
            self, conn: sqlite3.Connection, table: str, dimensions: int
        ) -> None: ...

        def _migrate_from_vec0(self, conn: sqlite3.Connection) -> None: ...

    def _create_schema(self, conn: sqlite3.Connection) -> None:
        schema = migrations.Schema(
            "knowledge",
            KNOWLEDGE_SCHEMA_VERSION,
            create=create_tables,
            steps={1: self._migrate_from_vec0},
            unversioned=unversioned,
        )
        migrations.migrate(conn, schema, str(self.path))
        self._schema_ready = True

    def _ensure_sync(self, definition: CollectionDef) -> CollectionState:
        name = definition.name
        keyword_fields = json.dumps([p.name for p in definition.bm25])
        with self._transaction() as conn:
            row = conn.execute(
                "SELECT embedding_model, dimensions, vec_table, keyword_fields FROM collections "
                "WHERE name = ?",
                (name,),
            ).fetchone()
            if row is None:
                vec_table = f"vectors_{name}"
                conn.execute(
                    f'CREATE TABLE IF NOT EXISTS "obj_{name}" ('
                    "id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, properties TEXT NOT NULL)"
                )
                conn.execute(
                    f'CREATE VIRTUAL TABLE IF NOT EXISTS "fts_{name}" USING fts5('
                    "body, tokenize = 'unicode61 remove_diacritics 2')"
                )
                self._create_vec_table(conn, vec_table, self.embedder.dimensions)
                conn.execute(
                    "INSERT INTO collections VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        name,
                        json.dumps(definition.to_dict()),
                        self.embedder.identity,
                        self.embedder.dimensions,
                        vec_table,
                        keyword_fields,
                    ),
                )
                model, dimensions = self.embedder.identity, self.embedder.dimensions
            else:
                model, dimensions, vec_table, stored_fields = row
                if (model, dimensions) != (self.embedder.identity, self.embedder.dimensions):
                    empty = not conn.execute(f'SELECT 1 FROM "obj_{name}" LIMIT 1').fetchone()
                    if empty:
                        logger.info(
                            "knowledge collection %s is empty: switching it from %s to %s",
                            name,
                            model,
                            self.embedder.identity,
                        )
                        conn.execute(f'DROP TABLE "{vec_table}"')
                        vec_table = f"vectors_{name}"
                        self._create_vec_table(conn, vec_table, self.embedder.dimensions)
                        model, dimensions = self.embedder.identity, self.embedder.dimensions
                        conn.execute(
                            "UPDATE collections SET embedding_model = ?, dimensions = ?, "
                            "vec_table = ? WHERE name = ?",
                            (model, dimensions, vec_table, name),
                        )
                if stored_fields != keyword_fields:
                    self._rebuild_keyword_index(conn, definition)
                    with self._indexes_lock:
                        stale = self._keyword_indexes.pop(name, None)
                    if stale is not None:
                        stale.close()
                conn.execute(
                    "UPDATE collections SET definition = ?, keyword_fields = ? WHERE name = ?",
                    (json.dumps(definition.to_dict()), keyword_fields, name),
                )
            for prop in definition.filterable:
                if prop.data_type is not DataType.TEXT_ARRAY:
                    conn.execute(
                        f'CREATE INDEX IF NOT EXISTS "ix_{name}_{prop.name}" '
                        f"ON \"obj_{name}\" (json_extract(properties, '$.{prop.name}'))"
                    )
            for compound in definition.indexes:
                columns = ", ".join(f"json_extract(properties, '$.{n}')" for n in compound)
                conn.execute(
                    f'CREATE INDEX IF NOT EXISTS "ix_{name}_{"_".join(compound)}" '
                    f'ON "obj_{name}" ({columns})'
                )
        self._vec_tables[name] = vec_table
        return CollectionState(
            definition=definition,
            embedding_model=model,
            dimensions=dimensions,
            compatible=(model, dimensions) == (self.embedder.identity, self.embedder.dimensions),
        )

    def _rebuild_keyword_index(self, conn: sqlite3.Connection, definition: CollectionDef) -> None:
        name = definition.name
        logger.info("rebuilding the keyword index of %s (its searchable fields changed)", name)
        # A plain DELETE: FTS5's 'delete-all' command only works on contentless tables.
        conn.execute(f'DELETE FROM "fts_{name}"')
        fts.forget(name)
        rows = conn.execute(f'SELECT id, properties FROM "obj_{name}"')
        conn.executemany(
            f'INSERT INTO "fts_{name}"(rowid, body) VALUES (?, ?)',
            ((i, definition.keyword_text(json.loads(p))) for i, p in rows),
        )


def create_tables(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
    )
    conn.execute(
        """CREATE TABLE IF NOT EXISTS collections (
            name TEXT PRIMARY KEY,
            definition TEXT NOT NULL,
            embedding_model TEXT NOT NULL,
            dimensions INTEGER NOT NULL,
            vec_table TEXT NOT NULL,
            keyword_fields TEXT NOT NULL
        )"""
    )
    conn.execute(
        "CREATE TABLE IF NOT EXISTS vector_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
        "collection TEXT NOT NULL, id INTEGER NOT NULL)"
    )
    conn.execute("CREATE INDEX IF NOT EXISTS ix_vector_log ON vector_log (collection, seq)")
    conn.execute(
        "INSERT OR REPLACE INTO store_meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,)
    )


def unversioned(conn: sqlite3.Connection) -> int:
    """Files from before user_version name their version in store_meta (absent: today's)."""
    has_meta = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'store_meta'"
    ).fetchone()
    row = (
        conn.execute("SELECT value FROM store_meta WHERE key = 'schema_version'").fetchone()
        if has_meta
        else None
    )
    found = int(row[0]) if row and str(row[0]).isdigit() else KNOWLEDGE_SCHEMA_VERSION
    if found <= KNOWLEDGE_SCHEMA_VERSION:  # a newer one is refused by migrate, untouched
        create_tables(conn)
    return found

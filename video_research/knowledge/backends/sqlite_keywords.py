"""The embedded store's keyword side: the per-collection Tantivy index, fed from SQLite.

A mixin of `SqliteStore`: it owns `self._keyword_indexes` (one
`keyword_index.KeywordIndex` per collection), hands each index readers of this thread's
connection (the change log, FTS5 bodies by id, all bodies, the row count), and answers
with row ids: the hybrid merge reads back from SQLite only the rows it returns, so an
object deleted since the index last caught up is never returned. When the index cannot serve (another process holds its
writer, a large rebuild is running, it is switched off) the bounded FTS5 plan of
`knowledge.fts` answers instead.
"""

from __future__ import annotations

import logging
import sqlite3
from contextlib import suppress
from pathlib import Path
from typing import Any

from video_research.knowledge.backends import fts
from video_research.knowledge.backends.keyword_index import Busy, KeywordIndex, query_tokens
from video_research.knowledge.backends.sqlite_sql import keyword_bodies
from video_research.knowledge.filters import FilterNode
from video_research.knowledge.keyword_tokens import content_terms

logger = logging.getLogger(__name__)


class KeywordSearch:
    """Keyword search for SqliteStore (see the module docstring)."""

    # Provided by SqliteStore and VectorSearch.
    path: Path
    settings: Any
    _keyword_indexes: dict[str, KeywordIndex]
    _indexes_lock: Any

    def _conn(self) -> sqlite3.Connection:  # pragma: no cover - SqliteStore's
        raise NotImplementedError

    # VectorSearch's (later in the MRO, so not stubbed here): the change-log reader and
    # a filter's row ids.
    _readers: Any
    _allowed_ids: Any

    def _keyword(
        self, conn: sqlite3.Connection, name: str, query: str, where: FilterNode | None, k: int
    ) -> tuple[list[tuple[int, float]], bool]:
        """((row id, BM25 score) best first, whether the scores are normalised): the
        Tantivy index when it is current (scores over their upper bound for the query,
        0..1), else FTS5 (raw bm25). Row ids, not objects: the caller reads the rows of
        the hits it keeps (a row the index still holds but SQLite no longer does is
        dropped there), so a hybrid search reads 30 rows rather than 100 per side."""
        index = self._keyword_index(name)
        # A damaged index (a process killed inside Tantivy's commit) is rebuilt from
        # SQLite and asked again, once.
        if index is not None:
            for attempt in range(2):
                try:
                    index.catch_up()
                    found = self._keyword_from_index(conn, index, name, query, where, k)
                    if found is not None:
                        return found, True
                    break
                except Busy as busy:
                    logger.debug("keyword index of %s not usable now (%s): FTS5", name, busy)
                    break
                except Exception as exc:  # noqa: BLE001 - a damaged index is rebuilt, not fatal
                    logger.warning(
                        "keyword index of %s failed (%s): rebuilding it%s",
                        name,
                        exc,
                        "" if attempt == 0 else " on the next search",
                    )
                    index.invalidate()
        return fts.keyword_search(conn, name, query, where, k, self._allowed_ids), False

    def _keyword_index(self, name: str) -> KeywordIndex | None:
        if not self.settings.knowledge_keyword_index:
            return None
        with self._indexes_lock:
            index = self._keyword_indexes.get(name)
            if index is None:
                fields = (
                    self._conn()
                    .execute("SELECT keyword_fields FROM collections WHERE name = ?", (name,))
                    .fetchone()
                )
                if fields is None:
                    return None
                index = KeywordIndex(
                    Path(str(self.path) + ".kw"),
                    name,
                    fields[0],
                    lambda: self._keyword_readers(self._conn(), name),
                )
                self._keyword_indexes[name] = index
            return index

    def _keyword_readers(self, conn: sqlite3.Connection, name: str) -> Any:
        read_log = self._readers(conn, name)[0]

        def read_bodies(ids: list[int]) -> dict[int, str]:
            return keyword_bodies(conn, name, ids)

        def read_all() -> Any:
            cursor = conn.execute(f'SELECT rowid, body FROM "fts_{name}"')
            while batch := cursor.fetchmany(10000):
                yield from batch

        def count() -> int:
            return conn.execute(f'SELECT count(*) FROM "obj_{name}"').fetchone()[0]

        return read_log, read_bodies, read_all, count

    def _keyword_from_index(
        self,
        conn: sqlite3.Connection,
        index: KeywordIndex,
        name: str,
        query: str,
        where: FilterNode | None,
        k: int,
    ) -> list[tuple[int, float]] | None:
        """The index's answer, scores over their bound (see `KeywordIndex.score_bound`);
        None when a filter leaves too few of the index's candidates (the FTS5 path then
        searches inside the filter)."""
        import numpy as np

        terms = index.telling(content_terms(query_tokens(query)))
        if not terms:
            return []
        allowed = None
        span = None
        fetch = k
        if where is not None:
            allowed = self._allowed_ids(conn, name, where, index.applied)
            if not len(allowed):
                return []
            span = (int(allowed[0]), int(allowed[-1]))
            fetch = max(4 * k, 200)
        hits = index.search(terms, fetch, span)
        if allowed is not None:
            keep = np.isin(np.asarray([row for row, _ in hits], dtype=np.int64), allowed)
            complete = len(hits) < fetch
            hits = [hit for hit, kept in zip(hits, keep, strict=True) if kept][:k]
            if len(hits) < k and not complete:
                return None
        bound = index.score_bound(terms)
        if bound <= 0:
            return None
        # Not capped here: a passage holding the words twice must still rank above one
        # holding them once (SearchHit.keyword_score is capped at 1).
        return [(row, score / bound) for row, score in hits]

    def _index_changed(self, name: str) -> None:
        """After a commit: loaded indexes (vectors, keywords) take the change in now."""
        # a mixin: the next class in SqliteStore's order (VectorSearch) defines it
        super()._index_changed(name)  # type: ignore[misc]
        index = self._keyword_indexes.get(name)
        if index is not None and index.applied >= 0:
            # Busy: the next search catches up (or falls back to FTS5).
            with suppress(Busy):
                index.catch_up()

"""Keyword (BM25) search over FTS5 with bounded cost, for the embedded store.

FTS5 ranks by computing bm25() for every row that matches the MATCH expression, so a
query with a common word ("the", "video") costs a pass over most of the collection:
~90 ms at 100k rows, a second at 1M. Two bounds keep a query's cost independent of the
collection's size and of the query's length:

1. **Terms.** The query's words are split where scripts change (`query_terms`): FTS5's
   unicode61 tokenizer keeps a run of CJK characters and the Latin letters or digits
   glued to it as one token, so "讲解GPT4模型" would match nothing; split, "gpt4" is
   searched on its own. At most `MAX_QUERY_TERMS` distinct terms are considered.
2. **Postings.** Each term's document frequency comes from an `fts5vocab` table
   (cached per process). When all the terms together match at most `POSTINGS_BUDGET`
   rows, the query is exactly the exhaustive one. Otherwise terms in half the rows or
   more are dropped (FTS5 gives them an IDF of 1e-6: they add nothing to a score, though
   the rows that match only them leave the ranked set), then terms are kept rarest first
   while the postings they bring stay within `POSTINGS_BUDGET`. The dropped terms are the most
   common ones, the least telling; the vector side still reads the whole query. When
   even the rarest term is too common, the scan is limited to the newest rows (a rowid
   range FTS5 seeks to), and with a filter to the span of row ids the filter matches
   (chunks of one video are written together, so that span is short).

Scores are FTS5's bm25() (k1 1.2, b 0.75) over the kept terms, so hybrid search's
relative score fusion means what it meant: min-max normalised BM25.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Callable
from typing import Any

from video_research.knowledge.backends.sqlite_sql import compile_filter
from video_research.knowledge.filters import FilterNode
from video_research.knowledge.keyword_tokens import content_terms

MAX_QUERY_TERMS = 32
"""Distinct terms of a query considered at all (a longer query costs no more)."""
MAX_KEPT_TERMS = 12
"""Terms that go into the MATCH expression."""
POSTINGS_BUDGET = 5_000
"""Rows the kept terms may match together (estimated from their document frequencies)."""

_WORD = re.compile(r"\w+", re.UNICODE)
_SCRIPT_RUN = re.compile(
    r"[\u2e80-\u2fff\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    r"\uf900-\ufaff\U00020000-\U0002fa1f]+|[^\u2e80-\u2fff\u3040-\u30ff\u3100-\u31ff"
    r"\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]+"
)


def _fold(term: str) -> str:
    """Lower case without diacritics: what unicode61 remove_diacritics 2 indexes."""
    decomposed = unicodedata.normalize("NFKD", term.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def query_terms(query: str) -> list[str]:
    """Distinct search terms of `query`, split where CJK and other scripts meet."""
    terms: list[str] = []
    for word in _WORD.findall(query):
        for run in _SCRIPT_RUN.findall(word):
            term = _fold(run)
            if term and term not in terms:
                terms.append(term)
                if len(terms) == MAX_QUERY_TERMS:
                    return terms
    return terms


def match_expression(terms: list[str]) -> str | None:
    """An FTS5 query matching any of `terms` (BM25's OR semantics), or None."""
    if not terms:
        return None
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


class _Frequencies:
    """Document frequencies per (collection, term), refreshed as the collection grows."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], tuple[int, int]] = {}
        self._lock = threading.Lock()

    def get(self, conn: sqlite3.Connection, name: str, terms: list[str], size: int) -> list[int]:
        out: list[int] = []
        missing: list[str] = []
        found: dict[str, int] = {}
        with self._lock:
            for term in terms:
                cached = self._cache.get((name, term))
                if cached is None or abs(cached[1] - size) > 0.1 * max(cached[1], 1000):
                    missing.append(term)
        if missing:
            _ensure_vocab(conn, name)
            for term in missing:
                row = conn.execute(
                    f'SELECT doc FROM "fts_{name}_vocab" WHERE term = ?', (term,)
                ).fetchone()
                found[term] = row[0] if row else 0
            with self._lock:
                if len(self._cache) > 100_000:
                    self._cache.clear()
                for term, df in found.items():
                    if df:  # a term not seen yet may arrive with the next write
                        self._cache[(name, term)] = (df, size)
        with self._lock:
            for term in terms:
                cached = self._cache.get((name, term))
                out.append(cached[0] if cached else found.get(term, 0))
        return out

    def forget(self, name: str) -> None:
        with self._lock:
            for key in [key for key in self._cache if key[0] == name]:
                del self._cache[key]


_frequencies = _Frequencies()


def forget(name: str) -> None:
    """Drop cached frequencies of `name` (its keyword index was rebuilt)."""
    _frequencies.forget(name)


def _ensure_vocab(conn: sqlite3.Connection, name: str) -> None:
    # In the temp schema: a view of the FTS index, nothing written to the file.
    conn.execute(
        f'CREATE VIRTUAL TABLE IF NOT EXISTS temp."fts_{name}_vocab" '
        f"USING fts5vocab(main, \"fts_{name}\", 'row')"
    )


def plan(
    terms: list[str], frequencies: list[int], size: int, span: int | None
) -> tuple[list[str], float]:
    """(terms to match, fraction of the scanned range to keep: 1.0 is all of it).

    `size` is the number of rows, `span` the rows a filter's id range covers (None
    without a filter); postings are estimated as df * span / size inside a span.
    """
    scale = 1.0 if span is None or size == 0 else min(1.0, span / size)
    ranked = sorted(
        ((df, term) for term, df in zip(terms, frequencies, strict=True) if df > 0),
        key=lambda item: item[0],
    )
    if not ranked:
        return [], 1.0
    if sum(df for df, _ in ranked) * scale <= POSTINGS_BUDGET:
        return [t for _, t in ranked], 1.0  # cheap already: exactly the exhaustive query
    useful = [(df, t) for df, t in ranked if df < size / 2] or ranked[:1]
    kept: list[str] = []
    postings = 0.0
    for df, term in useful[:MAX_KEPT_TERMS]:
        cost = df * scale
        if kept and postings + cost > POSTINGS_BUDGET:
            break
        kept.append(term)
        postings += cost
    fraction = 1.0 if postings <= POSTINGS_BUDGET else POSTINGS_BUDGET / postings
    return kept, fraction


def keyword_search(
    conn: sqlite3.Connection,
    name: str,
    query: str,
    where: FilterNode | None,
    k: int,
    allowed_ids: Callable[[sqlite3.Connection, str, FilterNode, int], Any],
) -> list[tuple[int, float]]:
    """(row id, bm25 score) of the best k objects matching `where`, best first."""
    terms = content_terms(query_terms(query))
    if not terms:
        return []
    size = conn.execute(f'SELECT coalesce(max(id), 0) FROM "obj_{name}"').fetchone()[0]
    if size == 0:
        return []
    low, high = 1, size
    if where is not None:
        generation = conn.execute(
            "SELECT coalesce(max(seq), 0) FROM vector_log WHERE collection = ?", (name,)
        ).fetchone()[0]
        allowed = allowed_ids(conn, name, where, generation)
        if not len(allowed):
            return []
        low, high = int(allowed[0]), int(allowed[-1])
    frequencies = _frequencies.get(conn, name, terms, size)
    kept, fraction = plan(terms, frequencies, size, high - low + 1 if where else None)
    expression = match_expression(kept)
    if expression is None:
        return []
    if fraction < 1.0:
        low = max(low, high - int((high - low + 1) * fraction))
    sql, params = compile_filter(where, f"obj_{name}")
    rows = conn.execute(
        f'SELECT o.id, -bm25("fts_{name}") FROM "fts_{name}" '
        f'JOIN "obj_{name}" o ON o.id = "fts_{name}".rowid '
        f'WHERE "fts_{name}" MATCH ? AND "fts_{name}".rowid BETWEEN ? AND ? AND {sql} '
        f'ORDER BY bm25("fts_{name}") LIMIT ?',
        [expression, low, high, *params, k],
    )
    return [(int(row), float(score)) for row, score in rows]


PHRASE_WORK = 40
"""How much work the phrase lookup of one search may do (`phrase_rows`), in PHRASE_STEPS
of SQLite's virtual machine: a count, not a time, so that whether a quote is found does
not depend on how busy the machine is (a time bound gave up on quotes, more of them the
busier the machine). The bound sits above what the large eval corpus's longest quotes
need at a million chunks (docs/benchmarks-log-2026.md, "A phrase lookup bounded by its
work")."""
PHRASE_STEPS = 1000
"""SQLite virtual-machine steps between two looks at the lookup's budget."""
PHRASE_SECONDS = 0.25
"""A backstop: a lookup whose work reads pages from a cold disk, or that a very busy
machine starves, is given up after this long whatever work is left."""


def phrase_rows(
    conn: sqlite3.Connection, name: str, query: str, where: FilterNode | None, most: int
) -> list[int]:
    """The row ids of the objects that hold `query`'s words as one phrase (FTS5's own
    tokenizer, so as the bodies were indexed), when `most` or fewer do; else, or when the
    lookup runs past PHRASE_WORK (or PHRASE_SECONDS), none. A quote pasted into a search
    is in one or two passages; a phrase in more is a saying, which tells nothing."""
    deadline = time.monotonic() + PHRASE_SECONDS
    looks = iter(range(PHRASE_WORK))

    def give_up() -> bool:
        return next(looks, None) is None or time.monotonic() > deadline

    phrase = '"' + query.replace('"', '""') + '"'
    sql, params = compile_filter(where, f"obj_{name}")
    conn.set_progress_handler(give_up, PHRASE_STEPS)
    try:
        rows = conn.execute(
            f'SELECT o.id FROM "fts_{name}" JOIN "obj_{name}" o ON o.id = "fts_{name}".rowid '
            f'WHERE "fts_{name}" MATCH ? AND {sql} LIMIT ?',
            [phrase, *params, most + 1],
        ).fetchall()
    except sqlite3.OperationalError:  # interrupted, or a query FTS5 cannot parse
        return []
    finally:
        conn.set_progress_handler(None, 0)
    return [int(row) for (row,) in rows] if len(rows) <= most else []

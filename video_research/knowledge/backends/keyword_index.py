"""The embedded store's keyword index: Tantivy beside SQLite, derived, never the truth.

FTS5 ranks every row a query's terms match, so exact BM25 top-k costs a pass over the
postings of every term (a second at 1M rows for a query with a common word), and the
bounded plan in `knowledge.fts` trades recall for speed (0.35 of exhaustive BM25's
top-10 at 1M). Tantivy (through its official Python bindings) finds the exact top-k of
a disjunction with block-max WAND: it skips whole blocks of postings that cannot reach
the current k-th score, so a query costs about a millisecond at 100k rows and a few at
1M, and its top-10 is the exhaustive one.

SQLite stays the source of truth: the index holds, per object, its row id (a fast
field) and its keyword text (the FTS5 row's body, re-tokenised by `index_tokens`). It is
kept current from the store's change log (`vector_log`, one row per object id written
or deleted, in commit order, in the same transaction as the change), exactly as the
vector index is: before every search and after every write of this process the log
past `applied` is read, each changed id is deleted from the index and re-added from
SQLite when it still exists, and the commit is followed by the meta file recording the
new `applied`. Replaying an entry twice is harmless (delete then add), so a process
killed between Tantivy's commit (atomic) and the meta file only replays again.

On disk (`<knowledge.db>.kw/`): `<Collection>/0/`, `<Collection>/1/` are the Tantivy
indexes of its shards (one below SHARD_MIN rows; row r lives in shard r % shards) and
`<Collection>.json` names its format, its shard count, its source (the collection's
keyword fields and this tokenisation) and `applied`. A missing, stale (other format,
source or a shard count far from the collection's size, `applied` ahead of the log, a
document count that disagrees with SQLite) or unreadable index is rebuilt from SQLite,
with a log line, never a failed search; while another process holds Tantivy's writer
lock, or while a large rebuild runs, the caller falls back to the FTS5 path, so a search
never waits on this index or returns a deleted object (the store reads the hits it
returns back from SQLite).

Exact top-k: Tantivy stores a document's length in one byte (exact up to 40 tokens,
then in steps of a few percent), so two transcript chunks whose BM25 scores differ by
less than that step can swap places: its top-10 is 0.97-0.98 of an exhaustive textbook
BM25's. The best RESCORED hits are therefore scored again with the textbook formula
(k1 1.2, b 0.75, IDF ln(1 + (N - n + 0.5) / (n + 0.5))) over their exact token counts
(their bodies read back from SQLite) and the exact mean length (each document's length
is a fast field, summed once per set of searchers), and re-ranked: the top-10 then
matches the exhaustive scoring (`make bench`, recall@10 against tests/bench/exact_bm25.py).

Tokens: `keyword_tokens` (CJK bigrams, Latin words and numbers whole).
"""

from __future__ import annotations

import json
import logging
import math
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from video_research.knowledge.keyword_tokens import (
    MAX_QUERY_TERMS,
    count_terms,
    index_tokens,
    query_tokens,
    tokens,
)

__all__ = ["MAX_QUERY_TERMS", "Busy", "KeywordIndex", "index_tokens", "query_tokens", "tokens"]

logger = logging.getLogger(__name__)

FORMAT = 4
SHARDS = 2
"""Tantivy indexes per collection, each row in shard `row % SHARDS`, searched in parallel.
Tantivy's search releases the GIL, and a query of a dozen common-ish words costs a pass
over long posting lists that block-max WAND can barely skip (a transcript chunk is full of
"going", "function", "really"): at a million chunks one index took ~10 ms for such a
query, two half-size ones searched on two threads 0.5-0.7 of that (`make bench
BENCH=million`). The shards' hits are merged by score and the best RESCORED are rescored
with the statistics of all shards, so the answer is the one-index answer."""
SHARD_MIN = 200_000
"""Collections built with fewer rows keep one index. Each shard ranks its hits with its
own document frequencies, and in a small collection those drift from the whole
collection's enough to leave a true top-10 hit outside its shard's top 30 (400 short
documents over a dozen words did it); at a hundred thousand rows a shard the drift is a
fraction of a percent. An index keeps its shard count while the collection stays within
a factor of two of SHARD_MIN on the other side; past that it is rebuilt when a process
next opens it."""
TOKENIZER = "cjk-bigram-1"
"""Part of the index's source: a change of tokenisation makes old indexes stale."""
WRITER_HEAP = 64 * 2**20

TELLING_MIN_DOCS = 1000
"""From this size on, words in more than half the documents are left out of a query."""
RESCORED = 30
"""The index's best this many hits are rescored with exact document lengths (below)."""
K1, B = 1.2, 0.75
SYNC_REBUILD_MAX = 50_000
"""Collections up to this size are (re)built inside the search that finds the index
missing (about a second); larger ones are built by a background thread meanwhile."""
_ANALYZER = "ws_lower"

Readers = tuple[
    Callable[[int], tuple[int, list[int] | None]],
    Callable[[list[int]], dict[int, str]],
    Callable[[], Iterable[tuple[int, str]]],
    Callable[[], int],
]


class Busy(Exception):
    """The index cannot be brought up to date now (another writer, a rebuild running)."""


def _document(row: int, text: str) -> Any:
    """The index's document of SQLite row `row`: id, tokens, exact token count."""
    import tantivy

    body = index_tokens(text)
    doc = tantivy.Document()
    doc.add_unsigned("id", row)
    doc.add_text("body", body)
    doc.add_unsigned("len", body.count(" ") + 1 if body else 0)
    return doc


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _forget_pool() -> None:
    """In a forked child the pool's worker thread does not exist: start a new pool."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


def _shard_hits(searcher: Any, query: Any, limit: int) -> list[tuple[int, float, int | None]]:
    """(row id, score, exact token count) of one shard's best `limit` hits."""
    # count=False: counting every match would visit every posting (no WAND skipping).
    result = searcher.search(query, limit, count=False)
    addresses = [address for _, address in result.hits]
    if not addresses:
        return []
    rows = searcher.fast_field_values("id", addresses)
    lengths = searcher.fast_field_values("len", addresses)
    return [
        (int(row), float(score), length)
        for (score, _), row, length in zip(result.hits, rows, lengths, strict=True)
        if row is not None
    ]


def _length_sum(searcher: Any) -> float:
    """The tokens of every document of one shard (its `len` fast field, summed)."""
    import tantivy

    result = searcher.aggregate(tantivy.Query.all_query(), {"total": {"sum": {"field": "len"}}})
    return float(result["total"]["value"] or 0.0)


def _each(searchers: list[Any], query: Any, limit: int) -> list[list[tuple[int, float, Any]]]:
    """Every shard's hits: the first shard on this thread, the others on the pool's."""
    global _pool
    if len(searchers) <= 1:
        return [_shard_hits(searcher, query, limit) for searcher in searchers]
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(SHARDS - 1, thread_name_prefix="keyword-shard")
    others = [_pool.submit(_shard_hits, searcher, query, limit) for searcher in searchers[1:]]
    return [_shard_hits(searchers[0], query, limit), *(other.result() for other in others)]


class KeywordIndex:
    """One collection's Tantivy index in this process (see the module docstring).

    `readers()` gives readers of SQLite on the calling thread's connection:
    `read_log(after)` -> (latest seq, changed ids), `read_bodies(ids)` -> {id: text},
    `read_all()` -> iterable of (id, text), `count()` -> rows in the collection; the
    store passes it in so this module never opens the database.
    """

    def __init__(
        self, directory: Path | None, name: str, source: str, readers: Callable[[], Readers]
    ) -> None:
        self.directory = directory
        self.readers = readers
        self.name = name
        self.source = f"{TOKENIZER}|{source}"
        self.lock = threading.RLock()
        self.applied = -1
        self._indexes: list[Any] = []
        self._schema: Any = None
        self._searchers: list[Any] = []
        """One per shard; replaced (never changed in place) when the index is reloaded."""
        self._stats: tuple[Any, float, dict[str, int]] = (None, 0.0, {})
        """(searchers, their mean document length, document frequencies asked of them)."""
        self._builder: threading.Thread | None = None
        self.build_seconds = 0.0

    @property
    def shards(self) -> int:
        """The open index's Tantivy indexes (1 before it is opened)."""
        return len(self._indexes) or 1

    # ------------------------------------------------------------------ paths
    @property
    def _path(self) -> Path:
        assert self.directory is not None
        return self.directory / self.name

    @property
    def _meta_path(self) -> Path:
        assert self.directory is not None
        return self.directory / f"{self.name}.json"

    def _write_meta(self, applied: int) -> None:
        meta = {
            "format": FORMAT,
            "shards": self.shards,
            "source": self.source,
            "applied": applied,
        }
        tmp = self._meta_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(meta))
        os.replace(tmp, self._meta_path)

    # ------------------------------------------------------------------ opening
    @staticmethod
    def _schema_and_analyzer() -> tuple[Any, Any]:
        import tantivy

        builder = tantivy.SchemaBuilder()
        builder.add_unsigned_field("id", stored=False, indexed=True, fast=True)
        # Frequencies without positions: term queries never read positions (a third
        # of the index's bytes and of its build time).
        builder.add_text_field("body", stored=False, tokenizer_name=_ANALYZER, index_option="freq")
        builder.add_unsigned_field("len", stored=False, indexed=False, fast=True)
        analyzer = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace())
            .filter(tantivy.Filter.lowercase())
            .build()
        )
        return builder.build(), analyzer

    def _open(self, create: bool, shards: int) -> None:
        import tantivy

        schema, analyzer = self._schema_and_analyzer()
        if create:
            shutil.rmtree(self._path, ignore_errors=True)
            self._meta_path.unlink(missing_ok=True)
        indexes = []
        for shard in range(shards):
            path = self._path / str(shard)
            path.mkdir(parents=True, exist_ok=True)
            index = tantivy.Index(schema, path=str(path), reuse=not create)
            index.register_tokenizer(_ANALYZER, analyzer)
            indexes.append(index)
        self._indexes, self._schema = indexes, schema
        self._searchers = [index.searcher() for index in indexes]

    def _reload(self) -> None:
        for index in self._indexes:
            index.reload()
        self._searchers = [index.searcher() for index in self._indexes]

    def _num_docs(self, searchers: list[Any] | None = None) -> int:
        return sum(searcher.num_docs for searcher in (searchers or self._searchers))

    def _saved_applied(self, rows: int) -> int | None:
        """`applied` of a usable index on disk, or None (missing, stale, unreadable)."""
        try:
            meta = json.loads(self._meta_path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            logger.warning(
                "keyword index file %s is unreadable (%s): rebuilding it from SQLite",
                self._meta_path,
                exc,
            )
            return None
        shards = meta.get("shards")
        if meta.get("format") != FORMAT or meta.get("source") != self.source:
            logger.info("keyword index %s is stale (%s): rebuilding", self.name, meta)
            return None
        if not (
            (shards == 1 and rows < 2 * SHARD_MIN) or (shards == SHARDS and rows >= SHARD_MIN // 2)
        ):
            logger.info(
                "keyword index %s has %s shards for %d rows: rebuilding", self.name, shards, rows
            )
            return None
        try:
            self._open(create=False, shards=shards)
        except Exception as exc:  # noqa: BLE001 - any damage means: rebuild
            logger.warning(
                "keyword index %s in %s is unreadable (%s): rebuilding it from SQLite",
                self.name,
                self._path,
                exc,
            )
            return None
        return int(meta.get("applied", -1))

    def _writers(self, heap: int = WRITER_HEAP) -> list[Any]:
        """A writer per shard (each holds its shard's lock until dropped), or Busy."""
        writers = []
        try:
            for index in self._indexes:
                writers.append(index.writer(heap_size=heap, num_threads=1))
        except ValueError as exc:  # another process holds Tantivy's writer lock
            writers.clear()  # drops (and unlocks) the shards already taken
            raise Busy(str(exc)) from exc
        return writers

    # ------------------------------------------------------------------ keeping current
    def catch_up(self) -> None:
        """Bring the index up to the log's end; Busy when it cannot be now."""
        if self.directory is None:
            raise Busy("no directory for a keyword index")
        if self._builder is not None and self._builder.is_alive():
            raise Busy("the keyword index is being built")
        read_log, read_bodies, read_all, count = self.readers()
        with self.lock:
            if self.applied < 0:
                self._load(read_log, read_bodies, read_all, count)
            latest, changed = read_log(self.applied)
            if latest <= self.applied:
                return
            self._apply(latest, changed or [], read_bodies)

    def _load(self, read_log, read_bodies, read_all, count) -> None:
        saved = self._saved_applied(count())
        if saved is not None and saved >= 0:
            latest, _ = read_log(-1)
            if saved <= latest:
                self.applied = saved
                _, changed = read_log(saved)
                if latest > saved:
                    self._apply(latest, changed or [], read_bodies)
                if self._num_docs() == count():
                    return
                logger.info(
                    "keyword index %s holds %d documents, SQLite %d: rebuilding",
                    self.name,
                    self._num_docs(),
                    count(),
                )
            else:
                logger.info("keyword index %s is ahead of the store's log: rebuilding", self.name)
        self.applied = -1
        if count() > SYNC_REBUILD_MAX:
            self._builder = threading.Thread(
                target=self._rebuild_in_background,
                name=f"keyword-{self.name}",
                daemon=True,
            )
            self._builder.start()
            raise Busy("the keyword index is being built")
        self.rebuild(read_log, read_all, count())

    def _rebuild_in_background(self) -> None:
        try:
            read_log, _, read_all, count = self.readers()
            with self.lock:
                self.rebuild(read_log, read_all, count())
        except Exception as exc:  # noqa: BLE001 - the FTS5 path keeps serving
            logger.warning("building the keyword index of %s failed: %s", self.name, exc)

    def rebuild(
        self,
        read_log: Callable[[int], tuple[int, list[int] | None]],
        read_all: Callable[[], Iterable[tuple[int, str]]],
        rows: int,
    ) -> None:
        """A new index from every row of SQLite (the readers must be usable on this
        thread), sharded when `rows` reach SHARD_MIN."""

        started = time.perf_counter()
        self._open(create=True, shards=SHARDS if rows >= SHARD_MIN else 1)
        latest, _ = read_log(-1)
        writers = self._writers()
        docs = 0
        for row, text in read_all():
            writers[row % self.shards].add_document(_document(row, text))
            docs += 1
        for writer in writers:
            writer.commit()
        for writer in writers:
            writer.wait_merging_threads()
        writers.clear()
        self._write_meta(latest)
        self._reload()
        self.applied = latest
        self.build_seconds = time.perf_counter() - started
        logger.info(
            "keyword index %s built from SQLite: %d documents in %.1f s",
            self.name,
            docs,
            self.build_seconds,
        )

    def _apply(
        self, latest: int, changed: list[int], read_bodies: Callable[[list[int]], dict[int, str]]
    ) -> None:
        import tantivy

        unique = list(dict.fromkeys(changed))
        writers = self._writers()
        try:
            for start in range(0, len(unique), 500):
                part = unique[start : start + 500]
                bodies = read_bodies(part)
                for shard, writer in enumerate(writers):
                    mine = [row for row in part if row % self.shards == shard]
                    if not mine:
                        continue
                    # By query: the term form would take the Python int for a signed
                    # value and match nothing in this unsigned field.
                    writer.delete_documents_by_query(
                        tantivy.Query.term_set_query(self._schema, "id", mine)
                    )
                    for row in mine:
                        text = bodies.get(row)
                        if text is not None:
                            writer.add_document(_document(row, text))
            # A kill between two shards' commits leaves `applied` behind: the next
            # process replays the entries (delete then add), so both shards agree again.
            for writer in writers:
                writer.commit()
            # Written while the writer locks are held: no other process moves `applied` now.
            self._write_meta(latest)
        finally:
            writers.clear()  # releases Tantivy's writer locks for other processes
        self._reload()
        self.applied = latest

    # ------------------------------------------------------------------ search
    def search(
        self, terms: list[str], k: int, id_range: tuple[int, int] | None = None
    ) -> list[tuple[int, float]]:
        """(row id, BM25 score) of the best k rows matching any of `terms`, best first."""
        import tantivy

        if not terms or k <= 0:
            return []
        with self.lock:
            searchers, schema = self._searchers, self._schema
        query = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.term_query(schema, "body", term))
                for term in terms
            ]
        )
        if id_range is not None:
            span = tantivy.Query.range_query(
                schema, "id", tantivy.FieldType.Unsigned, id_range[0], id_range[1]
            )
            query = tantivy.Query.boolean_query(
                [
                    (tantivy.Occur.Must, query),
                    (tantivy.Occur.Must, tantivy.Query.const_score_query(span, 0.0)),
                ]
            )
        limit = max(k, RESCORED) if id_range is None else k
        hits = sorted(
            (hit for found in _each(searchers, query, limit) for hit in found),
            key=lambda hit: -hit[1],
        )[:limit]
        if id_range is None and len(hits) > 1:
            return self._rescored(searchers, terms, hits)[:k]
        return [(row, score) for row, score, _ in hits[:k]]

    def _rescored(
        self, searchers: list[Any], terms: list[str], hits: list[tuple[int, float, int | None]]
    ) -> list[tuple[int, float]]:
        """`hits` (row, Tantivy's score, exact length) with the first RESCORED scored by
        exact lengths (module docstring); a hit's term frequencies are counted in its
        SQLite body (`keyword_tokens.count_terms`)."""
        head, tail = hits[:RESCORED], hits[RESCORED:]
        bodies = self.readers()[1]([row for row, _, _ in head])
        mean, frequencies = self._statistics(searchers, terms)
        total = max(1, self._num_docs(searchers))
        weights = {
            term: math.log(1 + (total - df + 0.5) / (df + 0.5)) for term, df in frequencies.items()
        }
        rescored = []
        for row, score, length in head:
            body = bodies.get(row)
            if body is None or mean <= 0 or length is None:
                rescored.append((row, score))
                continue
            norm = K1 * (1 - B + B * int(length) / mean)
            exact = sum(
                weights[term] * tf * (K1 + 1) / (tf + norm)
                for term, tf in count_terms(body, terms).items()
            )
            rescored.append((row, exact))
        rescored.sort(key=lambda hit: -hit[1])
        return rescored + [(row, score) for row, score, _ in tail]

    def _statistics(self, searchers: list[Any], terms: list[str]) -> tuple[float, dict[str, int]]:
        """The shards' mean document length (tokens, summed once per set of searchers)
        and each term's document frequency over all shards (asked once per set of
        searchers: a query asks for each three times, to leave common words out, to
        rescore and to normalise)."""

        seen, mean, known = self._stats
        if seen is not searchers:
            total = sum(_length_sum(searcher) for searcher in searchers)
            mean = float(total) / max(1, self._num_docs(searchers))
            known = {}
            self._stats = (searchers, mean, known)
        if len(known) > 100_000:  # long-lived searchers asked for many words
            known.clear()
        frequencies = {}
        for term in terms:
            df = known.get(term)
            if df is None:
                df = known[term] = sum(searcher.doc_freq("body", term) for searcher in searchers)
            frequencies[term] = df
        return mean, frequencies

    def settle(self) -> None:
        """Build or catch up now, waiting for a background build (benchmarks, tests)."""
        while True:
            try:
                self.catch_up()
                return
            except Busy:
                builder = self._builder
                if builder is None or not builder.is_alive():
                    raise
                builder.join()

    def invalidate(self) -> None:
        """Forget the index: the next catch-up rebuilds it from SQLite."""
        with self.lock:
            if self.directory is not None:
                self._meta_path.unlink(missing_ok=True)
            self._indexes, self._searchers = [], []
            self.applied = -1

    def telling(self, terms: list[str]) -> list[str]:
        """`terms` less those in more than half the documents, unless that leaves none.

        FTS5's BM25 gives such a word an IDF of 1e-6 (its IDF, ln((N - df + 0.5) /
        (df + 0.5)), goes negative); Tantivy's, ln(1 + ...), keeps it above 0, so "the"
        would lift every passage that repeats it. Dropped, the two rank alike (recall@10
        against exhaustive FTS5 BM25 in `make bench`) and the query skips the longest
        posting lists. Not below TELLING_MIN_DOCS documents: in a handful of passages
        ("episode 3 part 12" over three videos' six chunks) every word is common, and
        each still tells passages apart."""
        with self.lock:
            searchers = self._searchers
        total = self._num_docs(searchers) if searchers else 0
        if total < TELLING_MIN_DOCS:
            return terms
        half = total / 2
        frequencies = self._statistics(searchers, terms)[1]
        kept = [term for term in terms if frequencies[term] <= half]
        return kept or terms

    def score_bound(self, terms: list[str]) -> float:
        """What BM25 gives a document of average length holding each of `terms` once:
        the sum of their IDFs (Tantivy's IDF ln(1 + (N - df + 0.5) / (df + 0.5)); the
        term-frequency part is then (k1 + 1) / (1 + k1) = 1). score / bound, capped at 1,
        is the share of the query's weighted words a document matches, and means the
        same for every query. A word the index does not hold counts with df 0: a
        passage matching half of what was asked scores about half."""
        with self.lock:
            searchers = self._searchers
        if not searchers:
            return 0.0
        total = max(1, self._num_docs(searchers))
        frequencies = self._statistics(searchers, terms)[1]
        return sum(math.log(1 + (total - df + 0.5) / (df + 0.5)) for df in frequencies.values())

    def close(self) -> None:
        builder = self._builder
        if builder is not None and builder is not threading.current_thread():
            builder.join(timeout=0.1)
        with self.lock:
            self._indexes, self._searchers = [], []
            self.applied = -1

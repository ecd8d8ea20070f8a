"""The embedded store's vector index: faiss HNSW beside SQLite, derived, never the truth.

SQLite holds every vector (`vectors_<Collection>` rows, float32 bytes) and a change log
(`vector_log`: one row per object id written or deleted, in commit order). A
`VectorIndex` is this process's in-memory view of one collection's vectors, made of

- an HNSW graph (faiss `IndexHNSWSQ`, 8-bit scalar-quantised codes: 384 bytes a vector
  plus the graph, so a million 384-dim vectors take ~0.7 GB instead of 1.8) with a
  position -> row id table; a replaced or deleted object's position is a tombstone,
  excluded from every search by faiss's `IDSelectorBitmap` and reclaimed by a rebuild;
- a flat part: the exact float32 vectors of objects not yet in the graph (all of them
  while the collection is smaller than KNOWLEDGE_ANN_MIN_OBJECTS), searched exactly.

Searching takes the graph's candidates (in the order of their 8-bit codes) and the flat
part's, then ranks the first of them by their exact cosine distance (vectors read back
from SQLite), so distances and scores are exactly what an exhaustive search reports;
only recall is approximate. Hybrid search asks for the codes' distances instead
(`exact=False`) and measures exactly only the hits it returns.

Keeping current: every search first reads the log past the index's `applied` sequence
number (one indexed query) and applies it: ids whose vector row is gone are tombstoned,
the others are (re)loaded into the flat part. Writes by this process, other threads and
other processes alike reach the index that way, so a search never returns a deleted
object or a replaced object's old vector. A background thread moves the flat part into
the graph and saves it. The first graph of a large flat part (a store opened without its
file, a rebuild) is built from all of it at once, outside the lock, while searches go
on over the flat part: faiss adds BULK_SLICE vectors a call in parallel (OpenMP), 1.8x
faster on 2 cores than slice by slice under the lock (100k 512-dim vectors: 9.2 s
against 16.8 s; `make bench BENCH=million`), at the cost of a copy of the vectors while
it builds; what changed meanwhile is tombstoned in the new graph and stays in the flat
part. Between its calls the build stops when the index is closed or reset, so a
shutdown never waits minutes for a graph that would be thrown away, and no faiss call is
still running when the interpreter exits (which aborts the process). Later additions
move MERGE_SLICE at a time, under the lock (searches interleave). All of this is
`ann_build`'s.

On open the saved graph is loaded (`ann_files`) and the log past its sequence
replayed; a missing, stale (another vector table, dimension or model) or unreadable
file is rebuilt from SQLite, with a log line, never a failed search.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from video_research.knowledge.backends.ann_build import UNCLOSED, GraphBuilding
from video_research.knowledge.backends.ann_files import FORMAT, GraphFiles

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FORMAT", "Candidate", "VectorIndex"]

logger = logging.getLogger(__name__)

EXACT_FILTER_MAX = 0.02
"""Filters matching at most this fraction of the graph are searched exactly (docs/knowledge-store.md, "The vector index")."""
RERANK_FACTOR = 2
"""Graph candidates fetched per result wanted (in the order of their 8-bit codes)."""
EXACT_SHARE = 1.25
"""Of those, the first k x this are ranked by their exact vectors, read from SQLite: the
codes' order is within ~1e-3 of the exact one, and each exact vector is a random read
of the database (at 1M 512-dim chunks the reads were most of a hybrid search's time
while the file was not in the page cache)."""
FILTER_CACHE_BYTES = 64 * 2**20
"""Decoded vectors of small filters kept between searches (a 1% filter of 1M: 15 MB)."""


@dataclass
class Candidate:
    row: int
    distance: float


class VectorIndex(GraphBuilding, GraphFiles):
    """One collection's vectors in this process; see the module docstring.

    `read_log(after)` -> (max seq, [(seq, id)]) and `read_vectors(ids)` -> {id: bytes}
    and `read_all()` -> iterable of (id, bytes) read SQLite on the calling thread's
    connection; the store passes them in so this module never opens the database.
    """

    def __init__(
        self,
        directory: Path | None,
        name: str,
        source: str,
        dimensions: int,
        *,
        min_objects: int,
        ef_search: int,
    ) -> None:
        self.directory = directory
        self.name = name
        self.source = source
        self.dimensions = dimensions
        self.min_objects = min_objects
        self.ef_search = ef_search
        self.lock = threading.RLock()
        self.applied = -1
        """Log sequence number this index reflects; -1 before it is loaded."""
        self.hnsw: Any = None
        self.rows: Any = None  # int64 position -> row id, -1 for a tombstone
        self.row_pos: Any = None  # int64 row id -> graph position, -1 where none
        self.live = 0
        self.dead = 0
        self._alive_bits: Any = None
        self.flat_ids: list[int] = []
        self.flat_vectors: Any = None
        self.flat_index: dict[int, int] = {}
        self.flat_count = 0
        self.saved_changes = 0
        self._filter_cache: dict[int, tuple[Any, Any, Any]] = {}
        """id(allowed) -> (weak ref to allowed, graph positions, their decoded vectors),
        oldest first; emptied whenever the graph changes."""
        self._bulk_changed: set[int] | None = None
        """Ids changed while a bulk build runs outside the lock (None: none runs)."""
        self._bulk_done = threading.Event()
        self._epoch = 0
        """Bumped by every reset: a bulk build started before one is thrown away."""
        self._worker: threading.Thread | None = None
        self._wake = threading.Event()
        self._closed = False
        self.build_seconds = 0.0
        self.bulk_added = 0
        """Vectors the running (or last) first-graph build has added so far."""
        UNCLOSED.add(self)

    # ------------------------------------------------------------------ size
    @property
    def count(self) -> int:
        return self.live + self.flat_count

    def memory_bytes(self) -> int:
        """Bytes the index holds (graph codes and links, flat vectors, tables)."""
        total = 0
        if self.hnsw is not None:
            links = self.hnsw.hnsw.neighbors.size() * 4
            total += int(self.hnsw.ntotal) * self.dimensions + links + self.rows.nbytes
        if self.flat_vectors is not None:
            total += self.flat_vectors.nbytes
        return total

    # ------------------------------------------------------------------ flat part
    def _flat_put(self, row: int, vector: np.ndarray) -> None:
        import numpy as np

        at = self.flat_index.get(row)
        if at is None:
            if self.flat_vectors is None or self.flat_count == len(self.flat_vectors):
                grown = np.empty((max(1024, self.flat_count * 2), self.dimensions), np.float32)
                if self.flat_count:
                    grown[: self.flat_count] = self.flat_vectors[: self.flat_count]
                self.flat_vectors = grown
            at = self.flat_count
            self.flat_count += 1
            self.flat_ids.append(row)
            self.flat_index[row] = at
        self.flat_vectors[at] = vector

    def _flat_drop(self, row: int) -> None:
        at = self.flat_index.pop(row, None)
        if at is None:
            return
        last = self.flat_count - 1
        if at != last:
            moved = self.flat_ids[last]
            self.flat_vectors[at] = self.flat_vectors[last]
            self.flat_ids[at] = moved
            self.flat_index[moved] = at
        self.flat_ids.pop()
        self.flat_count = last

    def _shrink_flat(self) -> None:
        """Give back the flat buffer's memory once most of it has moved into the graph."""
        capacity = 0 if self.flat_vectors is None else len(self.flat_vectors)
        if self.flat_count == 0:
            self.flat_vectors = None
        elif capacity > 4096 and self.flat_count < capacity // 4:
            self.flat_vectors = self.flat_vectors[: self.flat_count * 2].copy()

    def _graph_drop(self, row: int) -> None:
        if self.row_pos is None or row >= len(self.row_pos) or self.row_pos[row] < 0:
            return
        self.rows[self.row_pos[row]] = -1
        self.row_pos[row] = -1
        self.live -= 1
        self.dead += 1
        self._alive_bits = None

    def _index_rows(self) -> None:
        """row_pos, live and dead from `rows`."""
        import numpy as np

        alive = np.flatnonzero(self.rows >= 0)
        size = int(self.rows.max()) + 1 if len(self.rows) else 0
        self.row_pos = np.full(max(size, 1024), -1, dtype=np.int64)
        self.row_pos[self.rows[alive]] = alive
        self.live = len(alive)
        self.dead = len(self.rows) - len(alive)
        self._alive_bits = None

    # ------------------------------------------------------------------ keeping current
    def catch_up(
        self,
        read_log: Callable[[int], tuple[int, list[int] | None]],
        read_vectors: Callable[[list[int]], dict[int, bytes]],
        read_all: Callable[[], Iterable[tuple[int, bytes]]],
    ) -> None:
        """Apply the log past `applied`; load (file or SQLite) on first use."""
        import numpy as np

        with self.lock:
            loaded = self.applied < 0
            if loaded:
                self._load(read_log, read_all)
            latest, changed = read_log(self.applied)
            if latest <= self.applied:
                if loaded:
                    # A flat part loaded from SQLite (no file, or a damaged one) gets its
                    # graph now, not at the next write: a store nobody writes to would
                    # otherwise be searched exactly, and never saved, for as long as it runs.
                    self._maybe_work()
                return
            if changed is None or (self.dead > 1000 and self.dead > 0.3 * self.live):
                # The log was compacted past us, or a third of the graph is tombstones:
                # start again from SQLite's exact vectors (the graph is rebuilt from them).
                logger.info("vector index %s: rebuilding from SQLite", self.name)
                self._reset()
                self._load(read_log, read_all, from_file=False)
                self._maybe_work()
                return
            unique = list(dict.fromkeys(changed))
            if self._bulk_changed is not None:
                self._bulk_changed.update(unique)
            for start in range(0, len(unique), 500):
                part = unique[start : start + 500]
                found = read_vectors(part)
                for row in part:
                    self._graph_drop(row)
                    blob = found.get(row)
                    if blob is None:
                        self._flat_drop(row)
                    else:
                        self._flat_put(row, np.frombuffer(blob, dtype=np.float32))
            self.saved_changes += len(unique)
            self.applied = latest
            self._filter_cache.clear()
        self._maybe_work()

    def _reset(self) -> None:
        self._epoch += 1
        self.hnsw, self.rows, self.row_pos, self.live, self.dead = None, None, None, 0, 0
        self._alive_bits = None
        self.flat_ids, self.flat_vectors, self.flat_index, self.flat_count = [], None, {}, 0
        self._filter_cache.clear()
        self.applied = -1

    def _load(
        self,
        read_log: Callable[[int], tuple[int, list[int] | None]],
        read_all: Callable[[], Iterable[tuple[int, bytes]]],
        from_file: bool = True,
    ) -> None:
        import numpy as np

        if from_file and self._load_file():
            return
        started = time.perf_counter()
        # Everything committed up to `latest` is in this read, so the log is replayed from
        # there (entries at or below it are already reflected; replaying them is harmless).
        latest, _ = read_log(-1)
        for row, blob in read_all():
            self._flat_put(row, np.frombuffer(blob, dtype=np.float32))
        self.applied = latest
        self.saved_changes = self.flat_count
        logger.info(
            "vector index %s loaded %d vectors from SQLite in %.1f s",
            self.name,
            self.flat_count,
            time.perf_counter() - started,
        )

    # ------------------------------------------------------------------ search
    def search(
        self,
        query: np.ndarray,
        k: int,
        allowed: np.ndarray | None,
        read_vectors: Callable[[list[int]], dict[int, bytes]],
        exact: bool = True,
    ) -> list[Candidate]:
        """The k nearest rows, restricted to `allowed` row ids, with exact cosine
        distances; `exact=False`: graph candidates keep the distances of their 8-bit
        codes (within ~1e-3; no database read), for a caller that fuses many candidates
        and measures exactly only the few it returns (hybrid search)."""
        import numpy as np

        query = np.ascontiguousarray(query, dtype=np.float32)
        with self.lock:
            found: dict[int, float | None] = {}
            # The flat part: exact.
            if self.flat_count:
                ids = np.asarray(self.flat_ids, dtype=np.int64)
                vectors = self.flat_vectors[: self.flat_count]
                if allowed is not None:
                    keep = np.flatnonzero(np.isin(ids, allowed, assume_unique=False))
                    ids, vectors = ids[keep], vectors[keep]
                if len(ids):
                    scores = vectors @ query
                    top = _top(scores, k)
                    for i in top:
                        found[int(ids[i])] = 1.0 - float(scores[i])
            # The graph: approximate candidates, ranked exactly below.
            if self.hnsw is not None and self.live:
                measured = max(int(k * EXACT_SHARE), k + 2)
                coded: dict[int, float] = {}
                if exact and allowed is not None and len(allowed) <= measured:
                    # Every row the filter allows is measured exactly below: ranking their
                    # codes first (and keeping them for a filter one search uses, as
                    # linking's windows are) only cost time and memory.
                    rows = self._graph_rows(allowed)
                else:
                    rows, coded = self._graph_candidates(query, k, allowed)
                if exact:
                    for row in rows[:measured]:
                        found.setdefault(row, None)
                else:
                    rows = [row for row in rows if row not in found]
                    todo = [row for row in rows if row not in coded]
                    positions = self.row_pos[np.asarray(todo, dtype=np.int64)]
                    if len(positions):
                        codes = self.hnsw.reconstruct_batch(positions) @ query
                        coded.update(zip(todo, codes.tolist(), strict=True))
                    for row in rows:
                        found[row] = 1.0 - coded[row]
        unknown = [row for row, distance in found.items() if distance is None]
        if unknown:
            blobs = read_vectors(unknown)
            for row in unknown:
                blob = blobs.get(row)
                if blob is None:
                    found.pop(row)  # deleted since the index was caught up
                else:
                    found[row] = 1.0 - float(np.frombuffer(blob, dtype=np.float32) @ query)
        ranked = sorted(found.items(), key=lambda item: (item[1], item[0]))[:k]
        # every distance is known by now: the unknown ones were read above or dropped
        return [Candidate(row, distance) for row, distance in ranked if distance is not None]

    def _graph_rows(self, allowed: Any) -> list[int]:
        """The rows of `allowed` in the graph (those `_graph_candidates` ranks when a
        filter allows few)."""
        inside = allowed[allowed < len(self.row_pos)]
        positions = self.row_pos[inside]
        return [int(self.rows[p]) for p in positions[positions >= 0]]

    def _graph_candidates(
        self, query: Any, k: int, allowed: Any
    ) -> tuple[list[int], dict[int, float]]:
        """The graph's best rows for `query` in the order of their codes, and the codes'
        inner products where they were computed on the way (a filter that allows few)."""
        import faiss
        import numpy as np

        want = max(k * RERANK_FACTOR, 20)
        if allowed is not None:
            inside = allowed[allowed < len(self.row_pos)]
            positions = self.row_pos[inside]
            positions = positions[positions >= 0]
            if len(positions) == 0:
                return [], {}
            if len(positions) <= max(want, EXACT_FILTER_MAX * len(self.rows)):
                # Few matches: score them all from their codes (exact up to quantisation).
                positions, decoded = self._decoded(allowed, positions)
                scores = decoded @ query
                top = [(int(self.rows[positions[i]]), float(scores[i])) for i in _top(scores, want)]
                return [row for row, _ in top], dict(top)
            mask = np.zeros(len(self.rows), dtype=bool)
            mask[positions] = True
            bits = np.packbits(mask, bitorder="little")
            selector = faiss.IDSelectorBitmap(len(self.rows), faiss.swig_ptr(bits))
        elif self.dead:
            bits = self._alive_bits
            if bits is None:
                bits = self._alive_bits = np.packbits(self.rows >= 0, bitorder="little")
            selector = faiss.IDSelectorBitmap(len(self.rows), faiss.swig_ptr(bits))
        else:
            bits, selector = None, None
        # SWIG-made, missing from the annotations faiss ships
        params = faiss.SearchParametersHNSW(  # type: ignore[attr-defined]
            efSearch=max(self.ef_search, want), sel=selector
        )
        _, positions = self.hnsw.search(query[None, :], want, params=params)
        del bits  # the bitmap must outlive the search: faiss holds a raw pointer to it
        return [int(self.rows[p]) for p in positions[0] if p >= 0 and self.rows[p] >= 0], {}

    def _decoded(self, allowed: Any, positions: Any) -> tuple[Any, Any]:
        """The filter's graph positions and decoded vectors, kept for the next search.

        Decoding is most of an exact filtered search (10k codes at a 1% filter of 1M:
        ~15 ms; the product with the query ~1 ms), and the store hands the same `allowed`
        array for the same filter until the collection changes, so a repeated filter
        (one channel, one video) pays it once. Called with the lock held.
        """
        import weakref

        cached = self._filter_cache.get(id(allowed))
        if cached is not None and cached[0]() is allowed:
            self._filter_cache[id(allowed)] = self._filter_cache.pop(id(allowed))  # newest
            return cached[1], cached[2]
        decoded = self.hnsw.reconstruct_batch(positions)
        budget = FILTER_CACHE_BYTES - decoded.nbytes
        while self._filter_cache and budget < sum(c[2].nbytes for c in self._filter_cache.values()):
            self._filter_cache.pop(next(iter(self._filter_cache)))
        if budget >= 0:
            self._filter_cache[id(allowed)] = (weakref.ref(allowed), positions, decoded)
        return positions, decoded


def _top(scores: Any, k: int) -> Any:
    import numpy as np

    if len(scores) <= k:
        return np.argsort(-scores)
    top = np.argpartition(-scores, k)[:k]
    return top[np.argsort(-scores[top])]

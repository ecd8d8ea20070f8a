"""Building the vector index's graph: a mixin of `ann.VectorIndex`.

Vectors arrive in the flat part (exact, searched as they are); this moves them into the
HNSW graph. The first graph of a large flat part is built from all of it at once,
outside the lock, BULK_SLICE vectors a faiss call; later additions move MERGE_SLICE at
a time under the lock; a background thread does both and saves the graph now and then
(`ann` module docstring). A build stops between its calls when the index is closed or
reset, and at the interpreter's exit every unclosed index's build is stopped first.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

logger = logging.getLogger("video_research.knowledge.backends.ann")

HNSW_M = 32
"""Graph neighbours per node (faiss HNSW M); 32 keeps recall@10 >= 0.95 on 384-dim data."""
EF_CONSTRUCTION = 80
MERGE_SLICE = 2048
"""Vectors moved from the flat part into the graph per lock hold (~0.3-1 s on 2 cores)."""
BULK_SLICE = 8192
"""Vectors a first graph's build adds per faiss call: as fast as one call for the whole
part (100k realistic 512-dim vectors on 2 idle cores: 7.9 s against 8.3 s, recall@10 at
ef 64 0.983 against 0.985) and under a second a call, the longest a close waits for the
build to notice it."""
SAVE_AFTER_CHANGES = 0.05
"""Save the graph once this fraction of it changed since the last save (and at close)."""


UNCLOSED: weakref.WeakSet[GraphBuilding] = weakref.WeakSet()
"""Indexes not yet closed: a process that exits without closing its store still stops
their builds first (`stop_all_builds`)."""


@atexit.register
def stop_all_builds() -> None:
    """Stop every background build before the interpreter finalises: a daemon thread
    still inside faiss at that point can abort the process (exit 134, "terminate called
    without an active exception", seen at the end of a 1M-chunk eval that never closed
    its store; the same run exited 0 with this hook)."""
    indexes = list(UNCLOSED)
    for index in indexes:
        index._closed = True
        index._wake.set()
    for index in indexes:
        worker = index._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout=60)


class GraphBuilding:
    """Moving the flat part into the graph (see the module docstring); state is
    `VectorIndex`'s."""

    name: str
    dimensions: int
    min_objects: int
    directory: Any
    lock: threading.RLock
    hnsw: Any
    rows: Any
    row_pos: Any
    live: int
    dead: int
    flat_ids: list[int]
    flat_vectors: Any
    flat_index: dict[int, int]
    flat_count: int
    saved_changes: int
    build_seconds: float
    bulk_added: int
    _alive_bits: Any
    _filter_cache: dict[int, tuple[Any, Any, Any]]
    _bulk_changed: set[int] | None
    _bulk_done: threading.Event
    _epoch: int
    _worker: threading.Thread | None
    _wake: threading.Event
    _closed: bool
    save: Callable[[], bool]  # GraphFiles' (annotated only: a stub here would shadow it)

    def _flat_put(self, row: int, vector: Any) -> None:  # pragma: no cover - VectorIndex's
        raise NotImplementedError

    def _shrink_flat(self) -> None:  # pragma: no cover - VectorIndex's
        raise NotImplementedError

    def _index_rows(self) -> None:  # pragma: no cover - VectorIndex's
        raise NotImplementedError

    def _wants_graph(self) -> bool:
        return self.hnsw is not None or self.flat_count >= self.min_objects

    def merge_slice(self, bulk: bool = True) -> bool:
        """Move flat vectors into the graph: the whole flat part when it makes the first
        graph and holds more than MERGE_SLICE (`bulk`, module docstring), else up to
        MERGE_SLICE of them; whether anything moved."""
        with self.lock:
            if not self.flat_count or not self._wants_graph():
                return False
            if not (bulk and self.hnsw is None and self.flat_count > MERGE_SLICE):
                return self._merge_one_slice()
        return self._bulk_build()

    def _merge_one_slice(self) -> bool:
        """Up to MERGE_SLICE flat vectors into the graph, with the lock held."""
        import numpy as np

        with self.lock:
            started = time.perf_counter()
            if self.hnsw is None:
                self._start_graph()
            take = min(MERGE_SLICE, self.flat_count)
            ids = self.flat_ids[self.flat_count - take : self.flat_count]
            vectors = np.ascontiguousarray(
                self.flat_vectors[self.flat_count - take : self.flat_count]
            )
            first = int(self.hnsw.ntotal)
            self.hnsw.add(vectors)
            added = np.asarray(ids, dtype=np.int64)
            self.rows = np.concatenate([self.rows, added])
            if int(added.max()) >= len(self.row_pos):
                grown = np.full(max(int(added.max()) + 1, 2 * len(self.row_pos)), -1, np.int64)
                grown[: len(self.row_pos)] = self.row_pos
                self.row_pos = grown
            self.row_pos[added] = np.arange(first, first + take, dtype=np.int64)
            self.live += take
            for row in ids:
                del self.flat_index[row]
            del self.flat_ids[self.flat_count - take :]
            self.flat_count -= take
            self._shrink_flat()
            self._alive_bits = None
            self._filter_cache.clear()
            self.build_seconds += time.perf_counter() - started
            return True

    def _bulk_build(self) -> bool:
        """The first graph from the whole flat part, built outside the lock (module
        docstring); True when a graph now exists (built here or elsewhere meanwhile)."""
        import numpy as np

        with self.lock:
            if self.hnsw is not None:
                return True
            if self._bulk_changed is not None:  # another thread builds it: wait for it
                building = True
            else:
                building = False
                take = self.flat_count
                ids = np.asarray(self.flat_ids[:take], dtype=np.int64)
                vectors = self.flat_vectors[:take].copy()  # the flat part changes meanwhile
                self._bulk_changed = set()
                self._bulk_done.clear()
                epoch = self._epoch
        if building:
            self._bulk_done.wait()
            return self.hnsw is not None
        started = time.perf_counter()
        logger.info("vector index %s: building the graph of %d vectors", self.name, take)
        self.bulk_added = 0
        try:
            hnsw = _new_graph(self.dimensions, vectors)
            for first in range(0, take, BULK_SLICE):
                if self._closed or epoch != self._epoch:
                    break  # the graph would be thrown away below: stop building it
                hnsw.add(vectors[first : first + BULK_SLICE])
                self.bulk_added = min(take, first + BULK_SLICE)
        except BaseException:
            with self.lock:
                self._bulk_changed = None
            self._bulk_done.set()
            raise
        del vectors
        with self.lock:
            changed, self._bulk_changed = self._bulk_changed, None
            self._bulk_done.set()
            if epoch != self._epoch or self.hnsw is not None or self._closed:
                return False  # reset or closed meanwhile: this graph is stale
            rows = ids
            if changed:
                rows[np.isin(ids, np.fromiter(changed, np.int64, len(changed)))] = -1
            kept = [
                (row, self.flat_vectors[self.flat_index[row]].copy())
                for row in changed
                if row in self.flat_index
            ]
            self.hnsw, self.rows = hnsw, rows
            self._index_rows()
            self.flat_ids, self.flat_vectors, self.flat_index, self.flat_count = [], None, {}, 0
            for row, vector in kept:
                self._flat_put(row, vector)
            self._filter_cache.clear()
            self.build_seconds += time.perf_counter() - started
            logger.info(
                "vector index %s: graph of %d vectors built in %.1f s (%d changed meanwhile)",
                self.name,
                self.live,
                time.perf_counter() - started,
                len(kept),
            )
        return True

    def _start_graph(self) -> None:
        """A new, empty graph, its quantiser trained on the flat part's vectors."""
        import numpy as np

        hnsw = _new_graph(self.dimensions, self.flat_vectors[: self.flat_count])
        self.hnsw, self.rows = hnsw, np.zeros(0, np.int64)
        self.row_pos = np.full(1024, -1, dtype=np.int64)
        self.live = self.dead = 0
        logger.info("vector index %s: building the graph", self.name)

    def _maybe_work(self) -> None:
        if self.flat_count and self._wants_graph() or self._save_due():
            self._wake.set()
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(
                    target=self._work, name=f"ann-{self.name}", daemon=True
                )
                self._worker.start()

    def _save_due(self) -> bool:
        if self.hnsw is None or self.directory is None:
            return False
        return self.saved_changes > max(1000, SAVE_AFTER_CHANGES * self.hnsw.ntotal)

    def _work(self) -> None:
        while not self._closed:
            if self.merge_slice():
                continue
            if self._closed:
                return
            if self._save_due():
                self.save()
            self._wake.clear()
            # close() sets `_closed` before it wakes this thread: if the clear above
            # swallowed that wake, the flag still says so.
            if self._closed or not self._wake.wait(timeout=5.0):
                return

    def settle(self) -> None:
        """Merge everything into the graph now (benchmarks, tests)."""
        while self.merge_slice():
            pass

    def close(self) -> None:
        self._closed = True
        UNCLOSED.discard(self)
        self._wake.set()
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout=60)
        with self.lock:
            # Save only a graph that covers everything; merging a large flat part now
            # would hold shutdown for minutes, and the next start replays the log anyway.
            if self.saved_changes and self.hnsw is not None and not self.flat_count:
                self.save()


def _new_graph(dimensions: int, vectors: Any) -> Any:
    """An empty HNSW graph of 8-bit codes, its quantiser trained on `vectors`."""
    import faiss
    import numpy as np

    hnsw = faiss.IndexHNSWSQ(
        dimensions,
        faiss.ScalarQuantizer.QT_8bit,  # type: ignore[arg-type]  # faiss's SWIG stubs: an int
        HNSW_M,
        faiss.METRIC_INNER_PRODUCT,
    )
    hnsw.hnsw.efConstruction = EF_CONSTRUCTION
    hnsw.train(np.ascontiguousarray(vectors[:100_000]))
    return hnsw

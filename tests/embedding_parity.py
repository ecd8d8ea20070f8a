"""Parity of the server's local embedder with the numpy reference on real transcript text.

Shared by the fast test in tests/test_embeddings.py (100 chunks, a few seconds, part of
`make test`) and the full check in tests/bench/bench_knowledge.py (1,000 chunks and 40
queries, `make bench`): the numpy reference is slow, so the large check lives with the
benchmarks. The transcripts are read from ../shared/data/transcripts at run time and
never copied into the repository.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.helpers import shared_data


def transcripts_dir() -> Path | None:
    shared = shared_data()
    root = shared / "transcripts" if shared else None
    return root if root and root.is_dir() else None


def real_chunks(limit: int) -> list[str]:
    """~20-token windows of caption text from the real transcripts, in a fixed order."""
    root = transcripts_dir()
    if root is None:
        return []
    lines: list[str] = []
    for path in sorted(root.rglob("*")):
        if path.suffix in (".srt", ".vtt"):
            for line in path.read_text(errors="replace").splitlines():
                line = line.strip()
                if line and "-->" not in line and not line.isdigit() and line != "WEBVTT":
                    lines.append(re.sub(r"<[^>]+>", "", line))
        elif path.suffix == ".json":
            data = json.loads(path.read_text())
            items = data if isinstance(data, list) else data.get("segments", data.get("events", []))
            lines += [str(i.get("text", "")).strip() for i in items if isinstance(i, dict)]
    lines = [line for line in lines if line]
    chunks = [" ".join(lines[i : i + 2]) for i in range(0, len(lines), 2)]
    step = max(1, len(chunks) // limit)
    return chunks[::step][:limit]


@dataclass
class Parity:
    chunks: int
    min_cosine: float
    queries: int
    same_top10: int
    """Queries whose top-10 (over all chunks) is identical, in order, to the reference's."""


def parity(embedder: Any, reference: Any, chunks: list[str], every: int = 25) -> Parity:
    """Cosines per chunk, and top-10 agreement for queries built from every `every`-th chunk."""
    import numpy as np

    ours = embedder.encode(chunks)
    theirs = reference.encode(chunks, 64)
    cosines = (ours * theirs).sum(axis=1)
    queries = [" ".join(chunks[i].split()[2:9]) for i in range(0, len(chunks), every)]
    same = 0
    for q_ours, q_theirs in zip(
        embedder.encode(queries, "query"), reference.encode(queries), strict=True
    ):
        same += np.argsort(-(ours @ q_ours))[:10].tolist() == (
            np.argsort(-(theirs @ q_theirs))[:10].tolist()
        )
    return Parity(len(chunks), float(cosines.min()), len(queries), same)

"""Parity of the server's local embedder with the numpy reference on real transcript text.

Shared by the fast test in tests/knowledge/test_embeddings.py (100 chunks, a few seconds, part of
`make test`) and the full check in tests/bench/bench_knowledge.py (1,000 chunks and 40
queries, `make bench`): the numpy reference is slow, so the large check lives with the
benchmarks. The transcripts are read from ../shared/data/transcripts at run time and
never copied into the repository.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.helpers import shared_data


def transcripts_dir() -> Path | None:
    shared = shared_data()
    root = shared / "transcripts" if shared else None
    return root if root and root.is_dir() else None


def caption_lines() -> list[str]:
    """Every caption of the real transcripts (.srt, .vtt, .json), read by the server's own
    parsers (entities decoded, rolling captions kept once), in a fixed order."""
    from video_research.transcripts.parsers import TranscriptFormatError, parse_file

    root = transcripts_dir()
    if root is None:
        return []
    lines: list[str] = []
    for path in sorted(root.rglob("*")):
        if path.suffix in (".srt", ".vtt", ".json"):
            try:
                lines += [cue.text for cue in parse_file(path).cues if cue.text.strip()]
            except TranscriptFormatError:
                continue
    return lines


def real_chunks(limit: int) -> list[str]:
    """~20-token windows (two captions) of the real transcripts, spread over all of them."""
    lines = caption_lines()
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

"""Two naive baselines over fixed 60-second windows of every indexed transcript, computed
in the same run as the server's search so the comparison is fair:

- BM25: SQLite FTS5 (the store's own tokenizer settings) over the windows' words, the
  query's words OR-ed, best 10 windows;
- cosine: the same embedder the store uses, exact dot product over all windows.

A window's link is its start, as a "jump to the minute" player would give.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass

from tests.eval.metrics import Answer

WINDOW_SECONDS = 60.0
_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class Window:
    video_id: str
    start: float
    text: str


def windows(transcripts: dict[str, list[tuple[float, str]]]) -> list[Window]:
    """Fixed windows: each video's cues grouped by the minute they start in."""
    found: list[Window] = []
    for video_id, cues in sorted(transcripts.items()):
        groups: dict[int, list[str]] = {}
        for start, text in cues:
            groups.setdefault(int(start // WINDOW_SECONDS), []).append(text)
        for minute, texts in sorted(groups.items()):
            found.append(Window(video_id, minute * WINDOW_SECONDS, " ".join(texts)))
    return found


class Bm25:
    def __init__(self, items: Sequence[Window]) -> None:
        self.items = list(items)
        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE w USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')"
        )
        self.db.executemany(
            "INSERT INTO w(rowid, body) VALUES (?, ?)",
            [(n, item.text) for n, item in enumerate(self.items)],
        )

    def search(self, query: str, k: int = 10) -> tuple[list[Answer], float]:
        started = time.perf_counter()
        tokens = list(dict.fromkeys(t.lower() for t in _TOKEN.findall(query)))[:64]
        if not tokens:
            return [], time.perf_counter() - started
        expression = " OR ".join(f'"{token}"' for token in tokens)
        rows = self.db.execute(
            "SELECT rowid FROM w WHERE w MATCH ? ORDER BY bm25(w) LIMIT ?", (expression, k)
        ).fetchall()
        answers = [(self.items[row].video_id, self.items[row].start) for (row,) in rows]
        return answers, time.perf_counter() - started


class Cosine:
    def __init__(self, items: Sequence[Window], embedder) -> None:
        self.items = list(items)
        self.embedder = embedder
        self.matrix = None

    async def prepare(self) -> None:
        self.matrix = await self.embedder.embed([item.text for item in self.items], "document")

    async def search(self, query: str, k: int = 10) -> tuple[list[Answer], float]:
        import numpy as np

        started = time.perf_counter()
        vector = (await self.embedder.embed([query], "query"))[0]
        scores = self.matrix @ vector
        best = np.argsort(-scores)[:k]
        answers = [(self.items[n].video_id, self.items[n].start) for n in best]
        return answers, time.perf_counter() - started

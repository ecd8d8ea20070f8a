"""Scoring a ranked list of (video, second) answers against the query set's labels.

A query is labelled with the video and the second where the passage it asks for begins.
An answer is a *moment hit* when its video is right and its link lands within
MOMENT_SECONDS of that second. Per query set: video@1/@5, moment@1/@5, MRR@10 (by the
first moment hit), and the p50 latency of the calls.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

MOMENT_SECONDS = 30.0
QUERIES = Path(__file__).with_name("queries.jsonl")
NOTES = Path(__file__).with_name("notes_queries.jsonl")
"""Queries written the way people take notes on a talk (long, names and numbers,
paraphrase; English and Chinese); its `held-out` part is never used for tuning."""


@dataclass(frozen=True)
class Query:
    id: str
    query: str
    video_id: str
    second: float
    kind: str
    """literal (uses the caption's words), paraphrase (avoids them), foreign (another
    language than the passage)."""
    query_language: str
    passage_language: str
    split: str = "tune"
    """`held-out`: reported apart and left out of every tuning (--sweep skips it)."""
    end: float | None = None
    """Where the answer is a span (a chapter: from `second` to here), an answer anywhere
    in it is a moment hit."""

    @property
    def group(self) -> str:
        if self.query_language != self.passage_language:
            return "cross-language"
        return "other-language" if self.query_language != "en" else self.kind


def load_queries(path: Path = QUERIES) -> list[Query]:
    return [Query(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


Answer = tuple[str, float]
"""(video_id, link second) of one result."""


@dataclass
class Scores:
    video1: int = 0
    video5: int = 0
    moment1: int = 0
    moment5: int = 0
    reciprocal: float = 0.0
    count: int = 0
    latencies: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    """Process CPU seconds per call (all threads): steadier than wall time on a busy machine."""
    link_errors: list[float] = field(default_factory=list)
    """Link minus labelled second, for the top answer in the right video (pinpointing)."""
    trace: list[tuple[Query, float, list[Answer]]] = field(default_factory=list)

    def add(
        self, query: Query, answers: Sequence[Answer], seconds: float, cpu: float = 0.0
    ) -> None:
        self.trace.append((query, seconds, list(answers)))
        self.count += 1
        self.latencies.append(seconds)
        self.cpu.append(cpu)
        videos = [video for video, _ in answers]
        self.video1 += videos[:1] == [query.video_id]
        self.video5 += query.video_id in videos[:5]
        hits = [is_moment(query, answer) for answer in answers[:10]]
        self.moment1 += any(hits[:1])
        self.moment5 += any(hits[:5])
        self.reciprocal += next((1 / (n + 1) for n, hit in enumerate(hits) if hit), 0.0)
        first = next((at for video, at in answers if video == query.video_id), None)
        if first is not None:
            self.link_errors.append(first - query.second)

    def row(self) -> dict[str, float]:
        n = max(self.count, 1)
        return {
            "video@1": self.video1 / n,
            "video@5": self.video5 / n,
            "moment@1": self.moment1 / n,
            "moment@5": self.moment5 / n,
            "MRR@10": self.reciprocal / n,
            "p50 ms": statistics.median(self.latencies) * 1000 if self.latencies else 0.0,
            "p50 cpu ms": statistics.median(self.cpu) * 1000 if self.cpu else 0.0,
            "n": self.count,
        }


def by_group(scores: Scores, group: str) -> Scores:
    return subset(scores, lambda query: query.group == group)


def subset(scores: Scores, keep) -> Scores:
    """The scores of the queries `keep(query)` is true for."""
    part = Scores()
    for (query, seconds, answers), cpu in zip(scores.trace, scores.cpu, strict=True):
        if keep(query):
            part.add(query, answers, seconds, cpu)
    return part


def is_moment(query: Query, answer: Answer) -> bool:
    video, at = answer
    if query.end is not None:
        return video == query.video_id and query.second - 2.0 <= at < query.end
    return video == query.video_id and abs(at - query.second) <= MOMENT_SECONDS


COLUMNS = ("video@1", "video@5", "moment@1", "moment@5", "MRR@10", "p50 ms", "p50 cpu ms")


def table(rows: dict[str, dict[str, float]]) -> str:
    """A Markdown table of named rows."""
    lines = [
        "| mode | " + " | ".join(COLUMNS) + " |",
        "|---|" + "---:|" * len(COLUMNS),
    ]
    for name, row in rows.items():
        cells = [f"{row[c]:.0f}" if c.endswith(" ms") else f"{row[c]:.3f}" for c in COLUMNS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- overlap

_WORD = re.compile(r"\w+")
_STOP_TEXT = """
a an and are as at be by for from has have how i in into is it its of on or that the
their them then there these this to was we what when where which while who why will with
you your can do does not no so if out up one two all any always many using never would
but after only other also without each own before some more most very just than every
take under
"""
_STOP = frozenset(_STOP_TEXT.split())


def content_words(text: str) -> set[str]:
    """Lower-cased content words, crudely stemmed, for the paraphrase overlap check."""
    found = set()
    for word in _WORD.findall(text.lower()):
        if word in _STOP or len(word) < 3:
            continue
        for suffix in ("ing", "ed", "es", "s", "ly"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 4:
                word = word[: -len(suffix)]
                break
        found.add(word)
    return found


def overlap(query: Query, caption: str) -> set[str]:
    """Content words a query shares with the caption text around its labelled second."""
    return content_words(query.query) & content_words(caption)

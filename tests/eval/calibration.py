"""Whether `relevance` can say "nothing here": the weak threshold on answerable and
no-answer queries (`make eval`, and `EVAL=--calibrate` to fit knowledge.relevance).

Every answerable query (queries.jsonl, notes_queries.jsonl) and every query of
no_answer_queries.jsonl (60 questions whose answer is in no indexed transcript) goes
through semantic_search_transcripts in the default mode. For an answerable query the
sample is its right moment (right video, link within MOMENT_SECONDS of the label) when
the ten results hold it; for a no-answer query, its best hit (highest relevance). Each
sample is the moment's best chunk's cosine and word share (its `scores`) and the
relevance the server gave it.

Reported per part (tuning, held-out), for the server's relevance and for the rule it
replaced (weak = no shared word and cosine below 0.3): the share of no-answer queries
whose best hit is weak (target >= 0.9), and of answerable queries whose right moment is
(target <= 0.05). `--calibrate` fits the logistic of knowledge.relevance on the tuning
part only (both signals, each alone) and prints the constants to paste there.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from tests.eval.metrics import MOMENT_SECONDS, Query, load_queries

NO_ANSWER = Path(__file__).with_name("no_answer_queries.jsonl")
OLD_WEAK_COSINE = 0.3
"""The rule relevance replaced (knowledge.guidance before it): no shared word, cosine < 0.3."""
TARGET_MISSED = 0.04
"""The share of tuning positives the fitted intercept lets fall below WEAK (under the 0.05
target, with a margin for the held-out part)."""


@dataclass
class Sample:
    query: Query
    answerable: bool
    cosine: float | None
    share: float | None
    relevance: float | None
    baseline: float = 0.0
    """The query's mean cosine to BACKGROUND: how close it sits to any text (an experiment)."""

    @property
    def held_out(self) -> bool:
        if self.query.kind in ("notes", "no_answer"):
            return self.query.split == "held-out"
        return self.query.id[1:].isdigit() and int(self.query.id[1:]) % 3 == 0


BACKGROUND = [
    "The meeting was moved to Thursday afternoon.",
    "Please close the door when you leave the room.",
    "I will call you back in a few minutes.",
    "The weather was nice so we went for a walk.",
    "Thanks for your message, I will have a look tomorrow.",
    "She put the keys on the kitchen table.",
    "We are running a little late, start without us.",
    "The shop opens at nine and closes at six.",
    "Can you send me the file again, the link did not work?",
    "He has been living in the same house for ten years.",
    "Let us talk about it after lunch.",
    "The train was crowded this morning.",
    "I forgot my umbrella at the office.",
    "They painted the fence white last summer.",
    "Remember to buy milk on the way home.",
    "The children were playing in the garden.",
]
"""Everyday sentences about nothing in particular, for the baseline experiment."""


def load_no_answer() -> list[Query]:
    return load_queries(NO_ANSWER)


Call = Callable[[str, dict], Awaitable[dict]]


async def collect(
    call: Call, answerable: list[Query], no_answer: list[Query], embedder=None
) -> tuple[list[Sample], int]:
    """The samples, and how many answerable queries had no right moment in their top 10."""
    samples: list[Sample] = []
    missed = 0
    for query, has_answer in [*((q, True) for q in answerable), *((q, False) for q in no_answer)]:
        result = await call(
            "semantic_search_transcripts", {"query": query.query, "k": 10, "auto_index": False}
        )
        results = result["results"]
        if has_answer:
            chosen = next(
                (
                    r
                    for r in results
                    if r["video_id"] == query.video_id
                    and abs(r["match_time"] - query.second) <= MOMENT_SECONDS
                ),
                None,
            )
            if chosen is None:
                missed += 1
                continue
        else:
            if not results:
                continue
            chosen = max(results, key=lambda r: r["relevance"])
        scores = chosen["scores"]
        samples.append(
            Sample(query, has_answer, scores["cosine"], scores["share"], chosen["relevance"])
        )
    if embedder is not None:
        import numpy as np

        background = np.array(await embedder.embed(BACKGROUND, "document"))
        for sample in samples:
            vector = np.array((await embedder.embed([sample.query.query], "query"))[0])
            sample.baseline = float(np.mean(background @ vector))
    return samples, missed


def _old_weak(sample: Sample) -> bool:
    no_word = not sample.share
    return no_word and (sample.cosine is None or sample.cosine < OLD_WEAK_COSINE)


def _rates(samples: list[Sample], weak: Callable[[Sample], bool]) -> tuple[str, str]:
    negatives = [s for s in samples if not s.answerable]
    positives = [s for s in samples if s.answerable]
    caught = sum(weak(s) for s in negatives)
    lost = sum(weak(s) for s in positives)
    return (
        f"{caught / max(len(negatives), 1):.3f} ({caught}/{len(negatives)})",
        f"{lost / max(len(positives), 1):.3f} ({lost}/{len(positives)})",
    )


def report(samples: list[Sample], missed: int, threshold: float) -> str:
    """The Markdown table: per part, per rule, both shares."""
    lines = [
        "| part | rule | no-answer: best hit weak (>= 0.9) | answerable: right moment weak (<= 0.05) |",
        "|---|---|---:|---:|",
    ]
    for part, keep in (("tuning", lambda s: not s.held_out), ("HELD-OUT", lambda s: s.held_out)):
        chosen = [s for s in samples if keep(s)]
        for rule, weak in (
            (f"relevance < {threshold}", lambda s: s.relevance is None or s.relevance < threshold),
            ("before: no shared word, cosine < 0.3", _old_weak),
        ):
            caught, lost = _rates(chosen, weak)
            lines.append(f"| {part} | {rule} | {caught} | {lost} |")
    lines.append(
        f"\n({missed} answerable queries had no right moment in their top 10: not counted)"
    )
    wrong = [s for s in samples if (s.relevance is None or s.relevance < threshold) == s.answerable]
    lines.append("\nmisjudged (query id, answerable, cosine, share, relevance, query):")
    for s in wrong:
        lines.append(
            f"  {s.query.id} {s.answerable} {s.cosine} {s.share} {s.relevance} {s.query.query[:70]!r}"
        )
    return "\n".join(lines)


def _fit(rows: list[tuple[list[float], int]], steps: int = 60) -> list[float]:
    """Weighted logistic regression by Newton's method (classes weighed equally), with a
    little L2 so that separable data keeps finite weights. Returns [w..., intercept]."""
    import numpy as np

    x = np.array([[*features, 1.0] for features, _ in rows], dtype=float)
    y = np.array([label for _, label in rows], dtype=float)
    positives = max(y.sum(), 1.0)
    negatives = max(len(y) - y.sum(), 1.0)
    weight = np.where(y == 1, len(y) / (2 * positives), len(y) / (2 * negatives))
    beta = np.zeros(x.shape[1])
    ridge = 0.01 * np.eye(x.shape[1])
    ridge[-1, -1] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ beta)))
        gradient = x.T @ (weight * (p - y)) + ridge @ beta
        hessian = (x.T * (weight * p * (1 - p))) @ x + ridge
        beta -= np.linalg.solve(hessian, gradient)
    return [float(b) for b in beta]


def _shifted(beta: list[float], positives: list[list[float]]) -> list[float]:
    """The intercept moved so that TARGET_MISSED of `positives` fall below 0.5 (z < 0)."""
    z = sorted(
        sum(w * f for w, f in zip(beta[:-1], feats, strict=True)) + beta[-1] for feats in positives
    )
    at = z[min(len(z) - 1, int(math.floor(TARGET_MISSED * len(z))))]
    return [*beta[:-1], beta[-1] - at + 1e-3]


def calibrate(samples: list[Sample]) -> str:
    """The fits on the tuning part: both signals, cosine alone, share alone."""
    tuning = [s for s in samples if not s.held_out and s.cosine is not None and s.share is not None]
    out = []
    for name, features in (
        ("both", lambda s: [s.cosine, s.share]),
        ("both, baseline (experiment)", lambda s: [s.cosine, s.share, s.baseline]),
        ("cosine - baseline, share (experiment)", lambda s: [s.cosine - s.baseline, s.share]),
        ("cosine only", lambda s: [s.cosine]),
        ("share only", lambda s: [s.share]),
    ):
        rows = [(features(s), int(s.answerable)) for s in tuning]
        beta = _fit(rows)
        shifted = _shifted(beta, [f for f, label in rows if label])
        out.append(
            f"- {name}: fitted {[round(b, 3) for b in beta]}, "
            f"intercept shifted: {[round(b, 3) for b in shifted]}"
        )

        def weak(s: Sample, beta: list[float] = shifted, features=features) -> bool:
            if s.cosine is None or s.share is None:
                return True
            z = sum(w * f for w, f in zip(beta[:-1], features(s), strict=True)) + beta[-1]
            return z < 0

        for part, held in (("tuning", False), ("HELD-OUT", True)):
            caught, lost = _rates([s for s in samples if s.held_out == held], weak)
            out.append(f"  - {part}: no-answer weak {caught}, answerable weak {lost}")
    return "\n".join(out)

"""Whether `relevance` can say "nothing here": the weak threshold on answerable and
no-answer queries (`make eval`, and `EVAL=--calibrate` to fit knowledge.relevance).

Every answerable query (queries.jsonl, notes_queries.jsonl) and every query of
no_answer_queries.jsonl (100 questions and notes whose answer is in no indexed
transcript) goes through semantic_search_transcripts in the default mode. For an
answerable query the sample is its right moment (right video, link within MOMENT_SECONDS
of the label) when the ten results hold it; for a no-answer query, its best hit (highest
relevance). Each sample is the moment's best chunk's cosine and word share, the best
cosine of the stored windows inside the moment (its `scores`), and the relevance the
server gave it.

Reported per part (tuning, held-out) and per query style, for the server's relevance,
for the same without the search's ceiling (knowledge.relevance.CEILING: each hit's own
relevance_in_context), for the two-signal fit it had before the windows were read
(knowledge.relevance's CALIBRATION; each no-answer query's best hit chosen by it), and
for the rule before that (weak = no shared word and cosine below 0.3): the share of
no-answer queries whose best hit is weak (target >= 0.9), and of answerable queries whose
right moment is (target <= 0.05). `--calibrate` fits the logistics of knowledge.relevance on the tuning part only,
the ceiling's among them, and prints the constants to paste there.
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
OWN_RAISES = (0.0, 0.25, 0.5, 1.0)
"""How far the in-context fit's intercept may be raised to leave room for the search's
ceiling within the same TARGET_MISSED (a coarse grid: a finer one chose by single queries)."""


@dataclass
class Sample:
    query: Query
    answerable: bool
    cosine: float | None
    share: float | None
    relevance: float | None
    window: float | None = None
    """The best cosine to the query of the stored windows inside the moment."""
    before: float | None = None
    """The two-signal relevance (CALIBRATION) of this sample; for a no-answer query, of
    the hit that it scores best."""
    best: tuple[float | None, float | None, float] = (None, None, 0.0)
    """The search's best window, chunk cosine and share among its ten results: what
    knowledge.relevance's ceiling reads."""
    own: float | None = None
    """The relevance without the ceiling (relevance_in_context of the sample's scores); for
    a no-answer query, the best of its hits'."""

    @property
    def held_out(self) -> bool:
        if self.query.kind in ("notes", "no_answer"):
            return self.query.split == "held-out"
        return self.query.id[1:].isdigit() and int(self.query.id[1:]) % 3 == 0

    @property
    def style(self) -> str:
        """literal, paraphrase, cross-language (viewer queries), notes and its language, or
        no-answer and its language."""
        q = self.query
        if q.kind == "no_answer":
            return f"no-answer {q.query_language}"
        if q.kind == "notes":
            return f"notes {q.query_language}"
        return "cross-language" if q.query_language != q.passage_language else q.kind


def load_no_answer() -> list[Query]:
    return load_queries(NO_ANSWER)


Call = Callable[[str, dict], Awaitable[dict]]


async def collect(
    call: Call, answerable: list[Query], no_answer: list[Query], model: str
) -> tuple[list[Sample], int]:
    """The samples, and how many answerable queries had no right moment in their top 10."""
    from video_research.knowledge import relevance

    def before(result: dict) -> float:
        scores = result["scores"]
        return relevance.relevance(scores["cosine"], scores["share"], model)

    def own(result: dict) -> float:
        scores = result["scores"]
        return relevance.relevance_in_context(
            scores["cosine"], scores.get("window"), scores["share"], model
        )

    def best(results: list[dict]) -> tuple[float | None, float | None, float]:
        def top(name: str) -> float | None:
            return max(
                (r["scores"][name] for r in results if r["scores"].get(name) is not None),
                default=None,
            )

        return top("window"), top("cosine"), top("share") or 0.0

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
            was, alone = before(chosen), own(chosen)
        else:
            if not results:
                continue
            chosen = max(results, key=lambda r: r["relevance"])
            was, alone = max(before(r) for r in results), max(own(r) for r in results)
        scores = chosen["scores"]
        samples.append(
            Sample(
                query,
                has_answer,
                scores["cosine"],
                scores["share"],
                chosen["relevance"],
                scores.get("window"),
                was,
                best(results),
                alone,
            )
        )
    return samples, missed


def _old_weak(sample: Sample) -> bool:
    no_word = not sample.share
    return no_word and (sample.cosine is None or sample.cosine < OLD_WEAK_COSINE)


def _weak(value: float | None, threshold: float) -> bool:
    return value is None or value < threshold


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
    """The Markdown tables: per part and rule, then per query style; the misjudged."""
    rules: list[tuple[str, Callable[[Sample], bool]]] = [
        (f"relevance < {threshold}", lambda s: _weak(s.relevance, threshold)),
        ("before: without the ceiling", lambda s: _weak(s.own, threshold)),
        ("before: cosine and share only", lambda s: _weak(s.before, threshold)),
        ("before that: no shared word, cosine < 0.3", _old_weak),
    ]
    lines = [
        "| part | rule | no-answer: best hit weak (>= 0.9) | answerable: right moment weak (<= 0.05) |",
        "|---|---|---:|---:|",
    ]
    for part, keep in (("tuning", lambda s: not s.held_out), ("HELD-OUT", lambda s: s.held_out)):
        chosen = [s for s in samples if keep(s)]
        for rule, weak in rules:
            caught, lost = _rates(chosen, weak)
            lines.append(f"| {part} | {rule} | {caught} | {lost} |")
    lines.append(
        f"\n({missed} answerable queries had no right moment in their top 10: not counted)"
    )
    lines += [
        "\nper query style, both parts (answerable: right moment weak; no-answer: best hit weak):\n",
        "| style | queries | weak now | without the ceiling | two signals |",
        "|---|---:|---:|---:|---:|",
    ]
    for style in sorted({s.style for s in samples}):
        group = [s for s in samples if s.style == style]
        now = sum(_weak(s.relevance, threshold) for s in group) / len(group)
        alone = sum(_weak(s.own, threshold) for s in group) / len(group)
        was = sum(_weak(s.before, threshold) for s in group) / len(group)
        lines.append(f"| {style} | {len(group)} | {now:.3f} | {alone:.3f} | {was:.3f} |")
    wrong = [s for s in samples if _weak(s.relevance, threshold) == s.answerable]
    lines.append("\nmisjudged (query id, answerable, cosine, window, share, relevance, query):")
    for s in wrong:
        lines.append(
            f"  {s.query.id} {s.answerable} {s.cosine} {s.window} {s.share} {s.relevance} "
            f"{s.query.query[:70]!r}"
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
    """The fits on the tuning part: in context (with the window), both signals, each alone.
    In the first, a sample without a window (none stored inside its moment) is left out of
    the fit and judged by the two-signal relevance, as the server does."""
    tuning = [s for s in samples if not s.held_out and s.cosine is not None and s.share is not None]
    out = []
    for name, features, needs_window in (
        ("in context: cosine, window, share", lambda s: [s.cosine, s.window, s.share], True),
        ("both: cosine, share", lambda s: [s.cosine, s.share], False),
        ("cosine only", lambda s: [s.cosine], False),
        ("share only", lambda s: [s.share], False),
    ):
        rows = [
            (features(s), int(s.answerable))
            for s in tuning
            if not needs_window or s.window is not None
        ]
        beta = _fit(rows)
        shifted = _shifted(beta, [f for f, label in rows if label])
        out.append(
            f"- {name}: fitted {[round(b, 3) for b in beta]}, "
            f"intercept shifted: {[round(b, 3) for b in shifted]}"
        )

        def weak(s: Sample, beta=shifted, features=features, needs=needs_window) -> bool:
            if s.cosine is None or s.share is None:
                return True
            if needs and s.window is None:
                return _weak(s.before, 0.5)
            z = sum(w * f for w, f in zip(beta[:-1], features(s), strict=True)) + beta[-1]
            return z < 0

        for part, held in (("tuning", False), ("HELD-OUT", True)):
            caught, lost = _rates([s for s in samples if s.held_out == held], weak)
            out.append(f"  - {part}: no-answer weak {caught}, answerable weak {lost}")
    out.append(_ceiling_fit(samples))
    return "\n".join(out)


def _ceiling_fit(samples: list[Sample]) -> str:
    """knowledge.relevance's CEILING: the logistic of "this search found an answer" over the
    search's best window, cosine and share, fitted on the tuning part. The right moments
    weak by either their own relevance or the ceiling share one budget, TARGET_MISSED: for
    each raise of the in-context intercept (OWN_RAISES), the ceiling's intercept is lowered
    in steps of 0.01 while the budget holds, and the pair that flags the most no-answer
    queries of the tuning part wins (ties: the smaller raise)."""
    tuning = [
        s for s in samples if not s.held_out and s.best[0] is not None and s.best[1] is not None
    ]
    beta = _fit([(list(s.best), int(s.answerable)) for s in tuning])
    positives = [s for s in tuning if s.answerable]

    def weak(s: Sample, raised: float, ceiling: list[float]) -> bool:
        own = s.own is None or _logit(s.own) + raised < 0
        bounded = s.best[0] is not None and s.best[1] is not None
        return own or (bounded and _z(ceiling, s.best) < 0)

    def lost(raised: float, shift: float) -> float:
        ceiling = [*beta[:-1], beta[-1] + shift]
        return sum(weak(s, raised, ceiling) for s in positives) / max(len(positives), 1)

    chosen: tuple[int, float, list[float]] | None = None
    for raised in OWN_RAISES:
        shift = 5.0  # far enough up that the ceiling flags none of the tuning part
        if lost(raised, shift) > TARGET_MISSED:
            continue
        while shift > -10.0 and lost(raised, shift - 0.01) <= TARGET_MISSED:
            shift -= 0.01
        ceiling = [*beta[:-1], beta[-1] + shift]
        caught = sum(weak(s, raised, ceiling) for s in tuning if not s.answerable)
        if chosen is None or caught > chosen[0]:
            chosen = (caught, raised, ceiling)
    if chosen is None:
        return "- ceiling: no intercept keeps the right moments within TARGET_MISSED"
    _, raised, ceiling = chosen
    out = [
        f"- ceiling (best window, best cosine, best share): fitted {[round(b, 3) for b in beta]}, "
        f"intercept lowered: {[round(b, 3) for b in ceiling]}; the in-context intercept "
        f"raised by {raised}"
    ]
    for part, held in (("tuning", False), ("HELD-OUT", True)):
        caught, missed = _rates(
            [s for s in samples if s.held_out == held], lambda s: weak(s, raised, ceiling)
        )
        out.append(
            f"  - {part}, own relevance and the ceiling: no-answer weak {caught}, "
            f"answerable weak {missed}"
        )
    return "\n".join(out)


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def _z(beta: list[float], features: tuple[float | None, ...]) -> float:
    return sum(w * (f or 0.0) for w, f in zip(beta[:-1], features, strict=True)) + beta[-1]

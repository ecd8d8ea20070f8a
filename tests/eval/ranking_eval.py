"""The ranking pipeline replayed over stored candidates: baselines, ablation, cross-validation.

A search is `knowledge.ranking`'s stages over the candidates the store returns
(`KnowledgeStore.candidates`), and every stage after the first reads only those
candidates and the query. So the eval asks the real store once per query for its
candidates (`collect`: the real index, the real embedder), keeps them (`save`), and then
replays any variant of the later stages over them with the server's own functions
(`replay`): the default, each baseline (keywords only, vectors only, a fixed weight,
reciprocal rank fusion), and the default with each stage removed. What the server
answers for a query is exactly `replay(sample, DEFAULT)`: tests/eval checks it.

`make eval` (tests/eval/__main__.py `--ranking`) prints the tables; `make eval EVAL=--fit`
fits every parameter (`fit`) and writes video_research/knowledge/ranking_params.json.
"""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tests.eval.metrics import Query, Scores

TOP = 10
"""Results each replayed search returns (the tool's default k)."""


@dataclass
class Sample:
    """One query with what the store returned for it."""

    query: Query
    channel: str
    candidates: list[Any]
    """`knowledge.ranking.Candidate`s over TranscriptChunks."""
    model: str
    """The embedder's identity."""
    sentences: dict[str, list[Any]] = field(default_factory=dict)
    """video id -> the stored sentences (`windows.Scored`) inside the candidates' spans."""


@dataclass(frozen=True)
class Variant:
    """One way to run the stages after the candidates."""

    fusion: str = "fitted"
    """fitted | alpha | rrf | cosine | keywords | vectors"""
    alpha: float = 0.5
    fold: bool = True
    link_words: bool = True
    link_sentences: bool = True
    """Link by the stored sentences (else by the query's words only)."""
    sentences: bool = True
    """A spoken chunk as near as its nearest sentence (`search.by_sentences`)."""


DEFAULT = Variant()


async def collect(queries: Sequence[Query], channels: dict[str, str]) -> list[Sample]:
    """Each query's candidates from the current store, with the stored sentences inside
    them (see the module docstring)."""
    from video_research.knowledge.store import get_store
    from video_research.transcripts import windows
    from video_research.transcripts.indexer import CHUNKS

    store = await get_store()
    samples = []
    for query in queries:
        vector = (await store.embedder.embed([query.query], "query"))[0]
        found = await store.candidates(CHUNKS, query.query, vector=vector)
        spans: dict[str, list[tuple[float, float]]] = {}
        for c in found:
            if (c.properties.get("evidence") or "speech") == "speech":
                spans.setdefault(c.properties["video_id"], []).append(
                    (float(c.properties["start_time"]) - 1.0, float(c.properties["end_time"]))
                )
        sentences = await windows.in_spans(store, vector, spans)
        samples.append(
            Sample(
                query, channels.get(query.video_id, ""), found, store.embedder.identity, sentences
            )
        )
    return samples


def save(path: Path, samples: list[Sample]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(samples))


def load(path: Path) -> list[Sample]:
    return pickle.loads(path.read_bytes())


def replay(
    sample: Sample, variant: Variant = DEFAULT, fitted: Any = None
) -> list[tuple[str, float, float]]:
    """The (video id, link second, relevance) of the first TOP moments the server's
    stages give for `sample` under `variant` (`fitted`: `ranking.Params`, default the
    package's)."""
    from video_research.knowledge import ranking
    from video_research.knowledge.base import to_hit
    from video_research.transcripts import search
    from video_research.transcripts.indexer import CHUNKS
    from video_research.transcripts.moments import (
        Moment,
        TermMatcher,
        focus,
        query_terms,
    )

    fitted = fitted or ranking.params(sample.model)
    candidates = [copy.copy(c) for c in sample.candidates]
    alpha: float | None = None
    if variant.fusion == "keywords":
        candidates = [c for c in candidates if c.keyword_rank is not None]
        for c in candidates:
            c.vector_rank = None
        alpha = 0.0
    elif variant.fusion == "vectors":
        candidates = [c for c in candidates if c.vector_rank is not None]
        for c in candidates:
            c.keyword_rank, c.keyword = None, None
        alpha = 1.0
    elif variant.fusion == "rrf":
        fitted = replace(fitted, fusion="rrf")
    elif variant.fusion == "cosine":
        fitted = replace(fitted, fusion="cosine", alpha=variant.alpha)
    elif variant.fusion == "alpha":
        alpha = variant.alpha
    text = sample.query.query
    sentences = read_sentences(sample, candidates) if variant.sentences else {}
    if variant.fold:
        moments = search.moments_of(text, candidates, sentences, fitted, alpha, TOP)
    else:
        words = ranking.QueryWords.of(text)
        found = search.by_words(search.by_sentences(candidates, sentences))
        fused = ranking.fuse(found, fitted, alpha)
        moments = [Moment([to_hit(CHUNKS, c, fitted, words, scored=False)]) for c in fused[:TOP]]
    search.scored(text, moments, fitted)
    matcher = TermMatcher(query_terms(text) if variant.link_words else [])
    out = []
    linking = sentences if variant.sentences else read_sentences(sample, candidates)
    for moment in moments:
        if variant.link_sentences:
            own = linking.get(moment.props["video_id"], ())
            at = search.link(moment, own, matcher)
        else:
            at = focus(moment, matcher)
        result = moment.to_result(at)
        out.append((result["video_id"], result["match_time"], result["relevance"]))
    return out


def read_sentences(sample: Sample, candidates: Sequence[Any]) -> dict[str, list[Any]]:
    """The stored sentences the server reads for `candidates` (`windows.in_spans` with
    `search.SENTENCES`): of those kept with the sample (read inside the candidates with a
    wider margin, all of them), the ones inside the spoken candidates' spans, the
    `search.SENTENCES` nearest the query, in time order."""
    from video_research.transcripts import search

    spans = search.spans(candidates)
    inside = [
        (video, sentence)
        for video, own in sample.sentences.items()
        for sentence in own
        if any(
            first - 0.01 <= sentence.start <= last + 0.01 for first, last in spans.get(video, ())
        )
    ]
    inside.sort(key=lambda pair: -pair[1].cosine)
    kept: dict[str, list[Any]] = {}
    for video, sentence in inside[: search.SENTENCES]:
        kept.setdefault(video, []).append(sentence)
    return {video: sorted(own, key=lambda s: s.start) for video, own in kept.items()}


def score(samples: Iterable[Sample], variant: Variant = DEFAULT, fitted: Any = None) -> Scores:
    scores = Scores()
    for sample in samples:
        scores.add(sample.query, _answers(sample, variant, fitted), 0.0)
    return scores


_MEMO: dict[tuple[int, Variant], list[tuple[str, float]]] = {}


def _answers(sample: Sample, variant: Variant, fitted: Any) -> list[tuple[str, float]]:
    """The replayed answers, remembered per sample and variant while the package's own
    parameters are used (fitting asks the same ones fold after fold)."""
    key = (id(sample), variant)
    if fitted is not None or key not in _MEMO:
        answers = [(video, at) for video, at, _ in replay(sample, variant, fitted)]
        if fitted is not None:
            return answers
        _MEMO[key] = answers
    return _MEMO[key]


def forget() -> None:
    """Drop the remembered answers (after the package's parameters changed)."""
    _MEMO.clear()


def objective(scores: Scores) -> float:
    """What fitting maximises: moment@5 plus MRR@10, the issue's two figures."""
    row = scores.row()
    return row["moment@5"] + row["MRR@10"]


# ---------------------------------------------------------------- fitting


FUSION_GRID = (
    [Variant(fusion="alpha", alpha=a / 10) for a in range(0, 11)]
    + [Variant(fusion="rrf")]
    + [Variant(fusion="cosine", alpha=a / 20) for a in range(10, 20)]
)
"""The fusion methods the fit chooses among: a fixed weight 0.0-1.0 over both sides'
normalised scores, RRF, or a weight 0.50-0.95 of the cosine itself against the
normalised keyword score (ties keep the first)."""


def choose(samples: Sequence[Sample], grid: Sequence[Variant] = FUSION_GRID) -> Variant:
    """The variant of `grid` that scores best on `samples` (ties: the first, so the
    simpler or the lower weight)."""
    best, best_value = grid[0], -1.0
    for variant in grid:
        value = objective(score(samples, variant))
        if value > best_value + 1e-9:
            best, best_value = variant, value
    return best


def folds(samples: Sequence[Sample]) -> dict[str, tuple[list[Sample], list[Sample]]]:
    """Leave one channel out: for each channel, (the other channels' samples, its own)."""
    channels = sorted({s.channel for s in samples if s.channel})
    return {
        channel: (
            [s for s in samples if s.channel != channel],
            [s for s in samples if s.channel == channel],
        )
        for channel in channels
    }


def cross_validate(
    samples: Sequence[Sample], grid: Sequence[Variant] = FUSION_GRID
) -> list[dict[str, Any]]:
    """Per fold: the variant chosen on the other channels and what it scores on the one
    left out, beside the fixed-weight 0.5 baseline there."""
    rows = []
    for channel, (train, test) in folds(samples).items():
        chosen = choose(train, grid)
        rows.append(
            {
                "channel": channel,
                "n": len(test),
                "chosen": describe(chosen),
                "chosen_row": score(test, chosen).row(),
                "alpha 0.5": score(test, Variant(fusion="alpha", alpha=0.5)).row(),
            }
        )
    return rows


LINK_SECONDS = 2.0
"""A link counts as right within this many seconds of the labelled second (the issue's
target for links)."""


def link_rate(scores: Scores) -> float:
    """The share of queries whose right video's first result links within LINK_SECONDS."""
    errors = scores.link_errors
    return sum(abs(e) <= LINK_SECONDS for e in errors) / max(scores.count, 1)


def describe(variant: Variant) -> str:
    if variant.fusion == "alpha":
        return f"alpha {variant.alpha:.1f}"
    if variant.fusion == "cosine":
        return f"cosine {variant.alpha:.2f}"
    return variant.fusion


def fit_relevance(
    positives: list[tuple[float, float]], negatives: list[tuple[float, float]]
) -> dict:
    """A logistic fit of "this hit answers" over (cosine, share), the classes weighed
    alike (so 0.5, WEAK, is where either is as likely), by Newton's method."""
    import numpy as np

    x = np.asarray(positives + negatives, dtype=np.float64)
    y = np.asarray([1.0] * len(positives) + [0.0] * len(negatives))
    w = np.where(y == 1, 0.5 / max(len(positives), 1), 0.5 / max(len(negatives), 1))
    design = np.hstack([x, np.ones((len(x), 1))])
    beta = np.zeros(design.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-(design @ beta)))
        gradient = design.T @ (w * (y - p)) - 1e-4 * beta
        hessian = -(design.T * (w * p * (1 - p))) @ design - 1e-4 * np.eye(len(beta))
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return {
        "cosine_weight": round(float(beta[0]), 3),
        "share_weight": round(float(beta[1]), 3),
        "intercept": round(float(beta[2]), 3),
    }


def relevance_samples(
    answerable: Sequence[Sample], no_answer: Sequence[Sample], variant: Variant = DEFAULT
) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """(cosine, share) of each answerable query's right moment among its results, and of
    the first results of each no-answer query."""
    from tests.eval.metrics import is_moment
    from video_research.knowledge import ranking
    from video_research.transcripts import search

    positives, negatives = [], []
    for sample, negative in [(s, False) for s in answerable] + [(s, True) for s in no_answer]:
        words = ranking.QueryWords.of(sample.query.query)
        fitted = ranking.params(sample.model)
        candidates = [copy.copy(c) for c in sample.candidates]
        sentences = read_sentences(sample, candidates) if variant.sentences else {}
        found = search.by_words(search.by_sentences(candidates, sentences))
        fused = ranking.fuse(found, fitted)
        for candidate in fused[: 3 if negative else TOP * 3]:
            if candidate.cosine is None:
                continue
            features = (candidate.cosine, ranking.share(words, candidate.text))
            props = candidate.properties
            if negative:
                negatives.append(features)
            elif is_moment(sample.query, (props["video_id"], float(props["start_time"]))):
                positives.append(features)
                break
    return positives, negatives


def write_params(path: Path, entries: dict[str, dict]) -> None:
    data = json.loads(path.read_text()) if path.is_file() else {}
    data.update(entries)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")

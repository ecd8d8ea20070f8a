"""How a hybrid search ranks: one pipeline, the same for both backends.

Read top to bottom, a search is four stages:

1. **Candidates** (the backend's only job, `KnowledgeStore.candidates`): the keyword
   side's best `CANDIDATES` and the vector side's best `CANDIDATES` under the filter,
   merged into one list of `Candidate`s. Each carries its rank and score on the side
   that found it and its exact cosine to the query, whichever side found it. How many
   is fixed, never derived from how many results were asked for, so the first k results
   are the first k of any larger k.
2. **Fusion** (`fuse`): one score per candidate from its two sides, by the method in
   the fitted `Params`: a weight of the cosine itself against the keyword score min-max
   normalised ("cosine": a cosine means the same from query to query, while normalising
   it lifts the best of a poor lot to 1, level with the keyword side's best); a fixed
   weight over both sides' min-max normalised scores ("alpha"); or reciprocal rank
   fusion. A caller's own `alpha` always means the fixed weight over both normalised
   sides.
3. **Moments** (transcripts only, `transcripts.search`): each fused hit a moment,
   linked to the sentence that matched: where the query's words are spoken, else the
   moment's sentence nearest the query by meaning.
4. **Relevance** (`relevance`): how likely a hit answers the query, from the hit's own
   signals only (its cosine and the share of the query's content words it holds), so
   it does not depend on k, on the filter or on what else was found. A hit that holds
   three or more of the query's content words as one run, in order, is never weak: it
   says what was asked, word for word.

Every number the pipeline uses is in `ranking_params.json` beside this module, per
embedding model, written by `make eval EVAL=--fit` (tests/eval/ranking_report.py); nothing here is
pasted from an eval. docs/ranking.md says how each stage earned its place and what it
scores.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

from video_research.knowledge.keyword_tokens import content_terms, query_tokens, token_list
from video_research.knowledge.relevance import STOPWORDS, WEAK

CANDIDATES = 100
"""Candidates each side returns: Weaviate's hybrid default, and enough for the 50
moments a search may return (neighbouring sentences merge into one)."""
EXACT_RUN = 3
"""Content words of the query a hit must hold as one run, in order, to be never weak."""


@dataclass
class Candidate:
    """One object either side of a hybrid search returned."""

    key: str
    """The object's UUID."""
    properties: dict[str, Any]
    keyword: float | None = None
    """The keyword side's score (BM25, higher is better); None: not among its best."""
    keyword_rank: int | None = None
    cosine: float | None = None
    """Exact cosine to the query vector (None: the search had no vector)."""
    vector_rank: int | None = None
    nearest: float | None = None
    """The cosine of the object's nearest part (a transcript chunk's sentence), set by
    the caller that read the parts: fusion's vector side reads the larger of it and
    `cosine`; relevance reads `cosine` alone, the object's own, so a hit's relevance
    never depends on which parts were read beside it."""
    by_meaning: bool = True
    """Whether fusion may rank it by its cosine, whichever side found it (False: by its
    words only, `transcripts.search.by_words`)."""
    text: str = ""
    """The object's searchable text (what the keyword side read)."""
    fused: float = 0.0
    """Set by `fuse`."""


@dataclass(frozen=True)
class Fit:
    """relevance = logistic(cosine_weight x cosine + share_weight x share + intercept)."""

    cosine_weight: float
    share_weight: float
    intercept: float


@dataclass(frozen=True)
class Params:
    """The fitted numbers of one embedding model (see the module docstring)."""

    fusion: Literal["alpha", "rrf", "cosine"] = "alpha"
    alpha: float = 0.5
    """The vector side's weight when `fusion` is "alpha" or "cosine"."""
    rrf_k: float = 60.0
    """Reciprocal rank fusion's constant when `fusion` is "rrf" (the usual 60, not fitted)."""
    relevance: Fit = Fit(0.0, 10.0, -6.0)
    """A model without a fit scores by the share alone: weak below 60% of the query's
    content words."""


PARAMS_FILE = "ranking_params.json"


@cache
def _params_file() -> dict[str, Any]:
    text = resources.files("video_research.knowledge").joinpath(PARAMS_FILE).read_text()
    return json.loads(text)


def params(model: str) -> Params:
    """The fitted parameters of embedding model `model` (its identity, e.g.
    "local:use-multilingual"); those of "default" for a model without its own."""
    data = _params_file()
    entry = data.get(model) or data["default"]
    fit = entry.get("relevance")
    return Params(
        fusion=entry.get("fusion", "alpha"),
        alpha=float(entry.get("alpha", 0.5)),
        rrf_k=float(entry.get("rrf_k", 60.0)),
        relevance=Fit(**fit) if fit else Params.relevance,
    )


# ---------------------------------------------------------------- fusion


def fuse(
    candidates: Sequence[Candidate], fitted: Params, alpha: float | None = None
) -> list[Candidate]:
    """`candidates` best first, each with its `fused` score. `alpha` (the caller's) is a
    fixed weight of the vector side; None uses the fitted method."""
    if alpha is None and fitted.fusion == "cosine":
        keyword = _min_max([c.keyword for c in candidates])
        for candidate, kw in zip(candidates, keyword, strict=True):
            near = _nearness(candidate) if candidate.by_meaning else None
            candidate.fused = fitted.alpha * (near or 0.0) + (1.0 - fitted.alpha) * kw
    elif alpha is None and fitted.fusion == "rrf":
        for candidate in candidates:
            candidate.fused = sum(
                1.0 / (fitted.rrf_k + rank + 1)
                for rank in (candidate.keyword_rank, candidate.vector_rank)
                if rank is not None
            )
    else:
        weight = fitted.alpha if alpha is None else alpha
        keyword = _min_max([c.keyword for c in candidates])
        vector = _min_max([_nearness(c) if c.vector_rank is not None else None for c in candidates])
        for candidate, kw, vec in zip(candidates, keyword, vector, strict=True):
            candidate.fused = (1.0 - weight) * kw + weight * vec
    return sorted(candidates, key=_order)


def _nearness(candidate: Candidate) -> float | None:
    """What the vector side ranks by: the object's cosine, or its nearest part's."""
    if candidate.nearest is None or candidate.cosine is None:
        return candidate.cosine
    return max(candidate.cosine, candidate.nearest)


def _order(candidate: Candidate) -> tuple[float, int, str]:
    """Best fused score first; ties to the better rank on either side, then the key, so
    the order never depends on the order the backend returned them in."""
    ranks = [r for r in (candidate.vector_rank, candidate.keyword_rank) if r is not None]
    return (-round(candidate.fused, 9), min(ranks, default=1 << 30), candidate.key)


def _min_max(scores: Sequence[float | None]) -> list[float]:
    """Each side's scores on 0..1 over the candidates it returned (Weaviate's
    relativeScoreFusion); 0 for one it did not return; 1 for all when they are equal."""
    present = [s for s in scores if s is not None]
    if not present:
        return [0.0] * len(scores)
    low, high = min(present), max(present)
    span = high - low
    return [0.0 if s is None else (1.0 if span == 0 else (s - low) / span) for s in scores]


# ---------------------------------------------------------------- relevance


@dataclass(frozen=True)
class QueryWords:
    """What relevance reads of the query, computed once per search."""

    terms: tuple[str, ...]
    """Distinct content tokens (stopwords left out unless nothing else is left)."""
    run: tuple[str, ...]
    """The query's content tokens in order, for `exact_run`."""

    @classmethod
    def of(cls, query: str) -> QueryWords:
        terms = tuple(content_terms(query_tokens(query)))
        run = tuple(t for t in token_list(query) if t not in STOPWORDS)
        return cls(terms, run)


def share(words: QueryWords, text: str) -> float:
    """The share of the query's content words that `text` holds."""
    if not words.terms:
        return 0.0
    held = set(token_list(text))
    return sum(1 for term in words.terms if term in held) / len(words.terms)


def exact_run(words: QueryWords, text: str) -> int:
    """The most consecutive content words of the query that `text` holds in the same
    order, one after another (stopwords skipped on both sides)."""
    run = words.run
    if not run:
        return 0
    at: dict[str, list[int]] = {}
    for index, token in enumerate(run):
        at.setdefault(token, []).append(index)
    best = 0
    previous: dict[int, int] = {}
    for token in token_list(text):
        if token in STOPWORDS:
            continue
        current = {index: previous.get(index - 1, 0) + 1 for index in at.get(token, ())}
        if current:
            best = max(best, *current.values())
        previous = current
    return best


def relevance(fitted: Params, words: QueryWords, cosine: float | None, text: str) -> float:
    """How likely a hit with this cosine and searchable `text` answers the query, 0..1
    (see the module docstring); at least WEAK when it holds EXACT_RUN of the query's
    content words word for word."""
    fit = fitted.relevance
    held = share(words, text)
    if cosine is None or fit.cosine_weight == 0.0:
        fit = Params.relevance
        cosine = 0.0
    value = _logistic(fit.cosine_weight * cosine + fit.share_weight * held + fit.intercept)
    if value < WEAK and exact_run(words, text) >= min(EXACT_RUN, len(set(words.run)) or 1):
        value = WEAK
    return round(value, 4)


def _logistic(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)

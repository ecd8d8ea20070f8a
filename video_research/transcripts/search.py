"""Transcript search: `knowledge.ranking`'s pipeline over the transcript chunks (each a
few whole sentences, at most 30 s), with moments.

1. Candidates: the store's keyword and vector sides over `TranscriptChunks`, a fixed
   number each (`ranking.CANDIDATES`), under the caller's filter.
2. Fusion: `ranking.fuse`, the fitted method (or the caller's fixed `alpha`).
3. Moments: each fused hit is a moment; one that says word for word what a better one
   says is folded into it (`moments.fold_repeats`); each is linked to the sentence that
   answers (`link`): where the query's words are spoken, else, of the sentences stored
   with the transcript (`windows`), the one nearest the query by meaning.
4. Relevance: each returned hit's own (`ranking.relevance`), scored for those only.

Every stage reads only the candidates and the query, never k: the first k results are
the first k of any larger k, with the same relevance and links (a moment's link reads
only its own sentences). Cost: one query embedding, one store call for the candidates,
one filtered vector search for the sentences of the k moments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from video_research.knowledge import ranking
from video_research.knowledge.base import score_hit, to_hit
from video_research.knowledge.collections import get_collection
from video_research.knowledge.filters import FilterNode
from video_research.knowledge.store import SearchHit, get_store
from video_research.transcripts import windows
from video_research.transcripts.indexer import CHUNKS
from video_research.transcripts.moments import (
    Moment,
    TermMatcher,
    focus,
    fold_repeats,
    query_terms,
)


async def search(
    query: str,
    *,
    k: int,
    alpha: float | None,
    where: FilterNode | None,
    min_score: float | None,
    pinpoint: bool = True,
) -> list[dict[str, Any]]:
    """The k best moments for `query` (see the module docstring); with `pinpoint`, each
    linked to the sentence that answers, else to its best chunk's start."""
    store = await get_store()
    vector = None
    if alpha != 0.0:
        vector = (await store.embedder.embed([query], "query"))[0]
    moments = await ranked_moments(query, vector, alpha=alpha, where=where, k=k)
    scored(query, moments, ranking.params((await get_store()).embedder.identity))
    links: list[float | None] = [None] * len(moments)
    if pinpoint:
        links = await linked(store, vector, moments, TermMatcher(query_terms(query)))
    results = [moment.to_result(at) for moment, at in zip(moments, links, strict=True)]
    if min_score is not None:
        results = [r for r in results if r["relevance"] >= min_score]
    return results


async def ranked_moments(
    query: str, vector: Any, *, alpha: float | None, where: FilterNode | None, k: int
) -> list[Moment]:
    """Stages 1-3: the first k moments the candidates make, best first."""
    store = await get_store()
    found = await store.candidates(
        CHUNKS, query, vector=vector, where=where, keywords=alpha != 1.0, vectors=alpha != 0.0
    )
    return moments_of(query, found, ranking.params(store.embedder.identity), alpha, k)


def moments_of(
    query: str,
    found: list[ranking.Candidate],
    fitted: ranking.Params,
    alpha: float | None,
    k: int,
) -> list[Moment]:
    """Stages 2-3 over a search's candidates: fused, the first k moments with their
    repeats folded (relevance, stage 4, is scored for those only: `scored`)."""
    words = ranking.QueryWords.of(query)
    fused = ranking.fuse(found, fitted, alpha)
    return fold_repeats((to_hit(CHUNKS, c, fitted, words, scored=False) for c in fused), k)


def scored(query: str, moments: Sequence[Moment], fitted: ranking.Params) -> None:
    """Stage 4 for the moments returned: each hit's relevance, from its own text (the
    chunk's searchable text: its title, chapter and words, as the keyword side reads it)."""
    words = ranking.QueryWords.of(query)
    definition = get_collection(CHUNKS)
    for moment in moments:
        for hit in moment.hits:
            score_hit(hit, definition.keyword_text(hit.properties), fitted, words)


def spans(moments: Sequence[Moment]) -> dict[str, list[tuple[float, float]]]:
    """The stretches whose stored sentences link `moments`: each spoken moment's own."""
    found: dict[str, list[tuple[float, float]]] = {}
    for moment in moments:
        if _spoken(moment):
            found.setdefault(moment.props["video_id"], []).append(
                (moment.start - SENTENCE_SLACK, moment.end)
            )
    return found


SENTENCE_SLACK = 0.5
"""Seconds before a moment a sentence may start and still be its own (the chunk and the
sentence round the same cue times differently)."""


async def linked(
    store: Any, vector: Any, moments: Sequence[Moment], matcher: TermMatcher
) -> list[float | None]:
    """Each moment's link (`link`); the stored sentences are read, in one filtered vector
    search, only for the spoken moments the query's words do not place."""
    lexical = [focus(moment, matcher) for moment in moments]
    unplaced = [m for m, at in zip(moments, lexical, strict=True) if at is None and _spoken(m)]
    sentences = (
        await windows.in_spans(store, vector, spans(unplaced))
        if unplaced and vector is not None
        else {}
    )
    return [
        at if at is not None else link(m, sentences.get(m.props["video_id"], ()), matcher)
        for m, at in zip(moments, lexical, strict=True)
    ]


def link(moment: Moment, sentences: Sequence[windows.Scored], matcher: TermMatcher) -> float | None:
    """Where `moment` links: the sentence where the query's words are spoken
    (`moments.focus`: the line holding most of them, weighed by rarity, back to its
    sentence's start; inside a minute-long line, where they are said); a spoken moment
    without any of them, the start of its stored sentence nearest the query by meaning
    (a paraphrase, another language); else None, the chunk's start."""
    lexical = focus(moment, matcher)
    if lexical is not None or not _spoken(moment):
        return lexical
    inside = [s for s in sentences if moment.start - SENTENCE_SLACK <= s.start <= moment.end]
    if not inside:
        return None
    return max(inside, key=lambda s: (s.cosine, -s.start)).start


def _spoken(moment: Moment) -> bool:
    return (moment.props.get("evidence") or "speech") == "speech"


async def pinpoint_hits(question: str, hits: list[SearchHit], vector: Any = None) -> None:
    """Point each transcript chunk at the sentence that answers `question`, as `search`
    links its moments: the chunk's `start_time` and `timestamp_url` move there; a chunk
    placed by neither its sentences nor the question's words keeps its own start.
    knowledge_search, knowledge_ask and research_document cite chunks this way
    (registered with the knowledge layer's passages by
    `transcripts.register_with_knowledge`); `vector` is the query's, when the caller has it."""
    if not hits:
        return
    moments = [Moment([hit]) for hit in hits]
    links = await linked(await get_store(), vector, moments, TermMatcher(query_terms(question)))
    for moment, start in zip(moments, links, strict=True):
        if start is None:
            continue
        moment.props["start_time"] = start
        moment.props["timestamp_url"] = moment.to_result(start)["timestamp_url"]

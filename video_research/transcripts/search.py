"""Transcript search: hybrid search over the chunks, neighbouring hits merged into
moments (`moments`), each moment linked to the sentence where the query's words are
spoken (`moments.focus`) or, with none of them in it, to the passage closest in meaning
(`meaning`); the others link to the start of their best chunk.

Cost is one query embedding and one store search, whatever the query's length: the
store bounds its keyword terms, and pinpointing works on the words of the chunks the
search returned (with the start time of each of their lines, stored at index time), so
it embeds nothing and reads nothing more from the store; linking by meaning reads the
few stored windows inside the results' moments in one filtered vector search.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from video_research.knowledge import relevance
from video_research.knowledge.filters import FilterNode
from video_research.knowledge.store import SearchHit, get_store
from video_research.transcripts import meaning, windows
from video_research.transcripts.indexer import CHUNKS
from video_research.transcripts.moments import (
    Moment,
    TermMatcher,
    focus,
    fold_repeats,
    merge_hits,
    query_terms,
    rank_down_low_content,
)

CANDIDATES_PER_RESULT = 3
"""Chunks asked of the store per moment returned (neighbours merge into one moment)."""


async def search(
    query: str,
    *,
    k: int,
    alpha: float | None,
    where: FilterNode | None,
    min_score: float | None,
    pinpoint: bool = True,
) -> list[dict[str, Any]]:
    """The k best moments for `query`: hybrid search over the chunks, merged; with
    `pinpoint`, each linked to the sentence where the query's words are spoken (or, with
    none of them, to the passage closest in meaning)."""
    store = await get_store()
    vector = None
    if alpha != 0.0:
        vector = (await store.embedder.embed([query], "query"))[0]
    hits = await store.hybrid(
        CHUNKS,
        query,
        alpha=alpha,
        where=where,
        limit=min(k * CANDIDATES_PER_RESULT, 1000),
        min_score=min_score,
        vector=vector,
    )
    moments = fold_repeats(merge_hits(rank_down_low_content(hits)))[:k]
    links = await link_moments(query, moments, vector, store) if pinpoint else [None] * len(moments)
    results = [moment.to_result(link) for moment, link in zip(moments, links, strict=True)]
    if min_score is not None:  # a moment's relevance in context may fall below it
        results = [r for r in results if r["relevance"] >= min_score]
    return results


async def link_moments(
    query: str, moments: Sequence[Moment], vector: Any, store: Any
) -> list[float | None]:
    """Where each moment should link (None: its best chunk's start). The one linking path
    of both semantic_search_transcripts and the knowledge tools (`pinpoint_hits`): by the
    query's words where the moment holds enough of them (`focus`), else by meaning
    (`focus_by_meaning`, given the query `vector`)."""
    matcher = TermMatcher(query_terms(query))
    if vector is None:
        return [focus(moment, matcher) for moment in moments]
    # The stored windows are read in the store's thread while the query's words place the
    # links here: neither waits for the other (at 100k chunks the read is a third of
    # linking, the words another third).
    reading = asyncio.ensure_future(windows.in_spans(store, vector, meaning.window_spans(moments)))
    await asyncio.sleep(0)  # let the read reach the store's thread before this work
    try:
        links = [focus(moment, matcher) for moment in moments]
        weak = [
            link is None or not meaning.telling_match(m, matcher)
            for m, link in zip(moments, links, strict=True)
        ]
        stored = await reading
    finally:
        reading.cancel()  # nothing once it has answered; the read if placing failed
    await meaning.focus_by_meaning(moments, links, weak, stored, vector, store, matcher)
    rescore_in_context(moments, store.embedder.identity)
    return links


def rescore_in_context(moments: Sequence[Moment], model: str) -> None:
    """Each hit of a moment with a window cosine gets the relevance that reads it too
    (`relevance.relevance_in_context`); the rest keep their two-signal relevance. Then no
    hit scores above the search's `relevance.ceiling`, from the best window, cosine and
    share among these moments."""
    for moment in moments:
        if moment.window_cosine is None:
            continue
        for hit in moment.hits:
            cosine = None if hit.distance is None else 1.0 - hit.distance
            hit.relevance = relevance.relevance_in_context(
                cosine, moment.window_cosine, hit.keyword_share, model
            )
    bound = relevance.ceiling(*_best_evidence(moments), model)
    if bound is None:
        return
    for moment in moments:
        for hit in moment.hits:
            if hit.relevance is not None and hit.relevance > bound:
                hit.relevance = bound


def _best_evidence(moments: Sequence[Moment]) -> tuple[float | None, float | None, float]:
    """The best window cosine, best chunk cosine and best share among `moments` (each
    moment's best chunk, as its result's `scores` show them)."""
    window_cosines = [m.window_cosine for m in moments if m.window_cosine is not None]
    best = [m.hits[0] for m in moments]
    cosines = [1.0 - hit.distance for hit in best if hit.distance is not None]
    return (
        max(window_cosines, default=None),
        max(cosines, default=None),
        max((hit.keyword_share or 0.0 for hit in best), default=0.0),
    )


async def pinpoint_hits(question: str, hits: list[SearchHit], vector: Any = None) -> None:
    """Point each transcript chunk at the moment `question` is about, exactly as `search`
    links its moments (`link_moments`: the sentence where the question's words are spoken,
    else, given the query `vector`, the passage closest in meaning): the chunk's
    `start_time` and `timestamp_url` move there; a chunk placed by neither keeps its own
    start. knowledge_search, knowledge_ask and research_document cite chunks this way
    (registered with the knowledge layer's passages by
    `transcripts.register_with_knowledge`)."""
    if not hits:
        return
    moments = [Moment([hit]) for hit in hits]
    links = await link_moments(question, moments, vector, await get_store())
    for moment, start in zip(moments, links, strict=True):
        if start is None:
            continue
        moment.props["start_time"] = start
        moment.props["timestamp_url"] = moment.to_result(start)["timestamp_url"]

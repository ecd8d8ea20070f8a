"""Transcript search: `knowledge.ranking`'s pipeline over the transcript chunks (each a
few whole sentences), with moments.

1. Candidates: the store's keyword and vector sides over `TranscriptChunks`, a fixed
   number each (`ranking.CANDIDATES`), under the caller's filter.
2. Fusion: `ranking.fuse`, the fitted method (or the caller's fixed `alpha`).
3. Moments: the fused hits of one video that neighbour each other merged into one
   result (`moments.merge_hits`), a sentence said word for word again folded into the
   first (`moments.fold_repeats`); each linked to the sentence that matched: where the
   query's words are spoken (`moments.focus`), else the moment's best sentence.
4. Relevance: each hit's own (`ranking.relevance`); a moment's is its best hit's.

Every stage reads only the candidates and the query, never k: the first k results are
the first k of any larger k, with the same relevance and links. Cost: one query
embedding, one store call, nothing read afterwards.
"""

from __future__ import annotations

from typing import Any

from video_research.knowledge import ranking
from video_research.knowledge.base import to_hit
from video_research.knowledge.filters import FilterNode
from video_research.knowledge.store import SearchHit, get_store
from video_research.transcripts.indexer import CHUNKS
from video_research.transcripts.moments import (
    Moment,
    TermMatcher,
    focus,
    fold_repeats,
    merge_hits,
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
    linked to the sentence that matched, else to its best chunk's start."""
    moments = await ranked_moments(query, alpha=alpha, where=where)
    matcher = TermMatcher(query_terms(query))
    results = []
    for moment in moments[:k]:
        results.append(moment.to_result(link(moment, matcher) if pinpoint else None))
    if min_score is not None:
        results = [r for r in results if r["relevance"] >= min_score]
    return results


async def ranked_moments(
    query: str, *, alpha: float | None, where: FilterNode | None
) -> list[Moment]:
    """Stages 1-3 and 4's scores: every moment the candidates make, best first."""
    store = await get_store()
    fitted = ranking.params(store.embedder.identity)
    found = await store.candidates(
        CHUNKS,
        query,
        where=where,
        keywords=alpha != 1.0,
        vectors=alpha != 0.0,
    )
    words = ranking.QueryWords.of(query)
    hits = [to_hit(CHUNKS, c, fitted, words) for c in ranking.fuse(found, fitted, alpha)]
    return fold_repeats(merge_hits(hits))


def link(moment: Moment, matcher: TermMatcher) -> float | None:
    """Where `moment` links: the sentence where the query's words are spoken, else (None)
    the start of its best sentence, the one that matched by meaning."""
    return focus(moment, matcher)


async def pinpoint_hits(question: str, hits: list[SearchHit], vector: Any = None) -> None:
    """Point each transcript chunk at the sentence `question`'s words are spoken in, as
    `search` links its moments: the chunk's `start_time` and `timestamp_url` move there;
    a chunk without those words keeps its own start. knowledge_search, knowledge_ask and
    research_document cite chunks this way (registered with the knowledge layer's
    passages by `transcripts.register_with_knowledge`). `vector` is accepted for the
    registry's signature; linking reads words only."""
    del vector
    matcher = TermMatcher(query_terms(question))
    for hit in hits:
        moment = Moment([hit])
        start = link(moment, matcher)
        if start is None:
            continue
        moment.props["start_time"] = start
        moment.props["timestamp_url"] = moment.to_result(start)["timestamp_url"]

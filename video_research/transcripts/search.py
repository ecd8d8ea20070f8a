"""Transcript search: `knowledge.ranking`'s pipeline over the transcript chunks (each a
few whole sentences, at most 30 s), with moments.

1. Candidates: the store's keyword and vector sides over `TranscriptChunks`, a fixed
   number each (`ranking.CANDIDATES`), under the caller's filter. A spoken chunk ranks
   as near the query as its nearest part (`by_sentences`): its own vector or that of one
   of its sentences (stored with the transcript, `windows`), whichever is nearer; a
   question about one sentence of a 30 s chunk is nearer that sentence than the chunk's
   average. A chapter is found by its words only (`by_words`): its title is a few
   words, and a few words' vector sits near every question on the topic of that part of
   the talk, above the sentence that answers it. docs/ranking.md has the figures.
2. Fusion: `ranking.fuse`, the fitted method (or the caller's fixed `alpha`).
3. Moments: each fused hit is a moment; one that says word for word what a better one
   says is folded into it (`moments.fold_repeats`); each is linked to the sentence that
   answers (`link`): where the query's words are spoken, else, of the sentences stored
   with the transcript, the one nearest the query by meaning.
4. Relevance: each returned hit's own (`ranking.relevance`), scored for those only.

Every stage reads only the candidates and the query, never k: the first k results are
the first k of any larger k, with the same relevance and links (a moment's link reads
only its own sentences). Cost: one query embedding, one store call for the candidates,
one filtered vector search for the nearest sentences of the spoken candidates.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from video_research.knowledge import ranking
from video_research.knowledge.base import score_hit, to_hit
from video_research.knowledge.collections import get_collection
from video_research.knowledge.filters import FilterNode
from video_research.knowledge.store import SearchHit, get_store
from video_research.transcripts import windows
from video_research.transcripts.moments import (
    Moment,
    TermMatcher,
    focus,
    fold_repeats,
    query_terms,
)
from video_research.transcripts.records import CHUNKS

if TYPE_CHECKING:
    from video_research.support.schema_types.common.transcripts import Moment as Result


async def search(
    query: str,
    *,
    k: int,
    alpha: float | None,
    where: FilterNode | None,
    min_score: float | None,
    pinpoint: bool = True,
) -> list[Result]:
    """The k best moments for `query` (see the module docstring); with `pinpoint`, each
    linked to the sentence that answers, else to its best chunk's start."""
    store = await get_store()
    vector = None
    if alpha != 0.0:
        vector = (await store.embedder.embed([query], "query"))[0]
    moments, sentences = await ranked_moments(query, vector, alpha=alpha, where=where, k=k)
    fitted = ranking.params(store.embedder.identity)
    scored(query, moments, fitted)
    links: list[float | None] = [None] * len(moments)
    if pinpoint:
        links = linked(moments, sentences, query)
    results = [moment.to_result(at) for moment, at in zip(moments, links, strict=True)]
    if min_score is not None:
        results = [r for r in results if r["relevance"] >= min_score]
    return results


Sentences = dict[str, list[windows.Scored]]
"""video id -> its stored sentences inside the spoken candidates, in time order."""

SENTENCES = 100
"""Stored sentences read for one search: the nearest the query inside the spoken
candidates, a fixed number like the candidates (never derived from k). A chunk with none
of them keeps its own cosine; the nearest are the ones that could lift a chunk, and
reading them all cost more than the rest of the search (docs/ranking.md)."""


async def ranked_moments(
    query: str, vector: Any, *, alpha: float | None, where: FilterNode | None, k: int
) -> tuple[list[Moment], Sentences]:
    """Stages 1-3: the first k moments the candidates make, best first, and the stored
    sentences read for them (their links are chosen among those)."""
    store = await get_store()
    found = await store.candidates(
        CHUNKS, query, vector=vector, where=where, keywords=alpha != 1.0, vectors=alpha != 0.0
    )
    sentences: Sentences = {}
    if vector is not None:
        sentences = await windows.in_spans(store, vector, spans(found), limit=SENTENCES)
    fitted = ranking.params(store.embedder.identity)
    return moments_of(query, found, sentences, fitted, alpha, k), sentences


def spans(
    found: Sequence[ranking.Candidate] | Sequence[Moment],
) -> dict[str, list[tuple[float, float]]]:
    """The stretches whose stored sentences belong to `found`: each spoken one's own."""
    stretches: dict[str, list[tuple[float, float]]] = {}
    for item in found:
        props = item.properties if isinstance(item, ranking.Candidate) else item.props
        if (props.get("evidence") or "speech") == "speech":
            stretches.setdefault(props["video_id"], []).append(
                (float(props["start_time"]) - SENTENCE_SLACK, float(props["end_time"]))
            )
    return stretches


def moments_of(
    query: str,
    found: list[ranking.Candidate],
    sentences: Sentences,
    fitted: ranking.Params,
    alpha: float | None,
    k: int,
) -> list[Moment]:
    """Stages 2-3 over a search's candidates: fused, the first k moments with their
    repeats folded (relevance, stage 4, is scored for those only: `scored`)."""
    words = ranking.QueryWords.of(query)
    fused = ranking.fuse(by_words(by_sentences(found, sentences)), fitted, alpha)
    return fold_repeats((to_hit(CHUNKS, c, fitted, words, scored=False) for c in fused), k)


def by_sentences(found: list[ranking.Candidate], sentences: Sentences) -> list[ranking.Candidate]:
    """`found` with each spoken candidate's nearest sentence's cosine (`nearest`, see the
    module docstring), which fusion reads; relevance reads the chunk's own cosine, since
    which sentences are read depends on the other candidates."""
    starts = {video: [s.start for s in own] for video, own in sentences.items()}
    for candidate in found:
        props = candidate.properties
        own = sentences.get(props["video_id"]) if candidate.cosine is not None else None
        if not own or (props.get("evidence") or "speech") != "speech":
            continue
        first, last = float(props["start_time"]) - SENTENCE_SLACK, float(props["end_time"])
        # a video's sentences come in time order: its candidates' own are a slice
        timed = starts[props["video_id"]]
        inside = own[bisect_left(timed, first) : bisect_right(timed, last)]
        candidate.nearest = max((s.cosine for s in inside), default=None)
    return found


def by_words(found: list[ranking.Candidate]) -> list[ranking.Candidate]:
    """`found` with each chapter taken as found by its words only: one the keyword side
    did not return is dropped, and fusion forgets the vector side's rank and cosine of
    one it did (the cosine stays for relevance). See the module docstring for why."""
    kept = []
    for candidate in found:
        if candidate.properties.get("evidence") == "chapter":
            if candidate.keyword_rank is None:
                continue
            candidate.vector_rank = None
            candidate.by_meaning = False
        kept.append(candidate)
    return kept


def scored(query: str, moments: Sequence[Moment], fitted: ranking.Params) -> None:
    """Stage 4 for the moments returned: each hit's relevance, from its own text (the
    chunk's searchable text: its title, chapter and words, as the keyword side reads it)."""
    words = ranking.QueryWords.of(query)
    definition = get_collection(CHUNKS)
    for moment in moments:
        for hit in moment.hits:
            score_hit(hit, definition.keyword_text(hit.properties), fitted, words)


SENTENCE_SLACK = 0.5
"""Seconds before a moment a sentence may start and still be its own (the chunk and the
sentence round the same cue times differently)."""


def linked(moments: Sequence[Moment], sentences: Sentences, query: str) -> list[float | None]:
    """Each moment's link (`link`) among its stored `sentences`."""
    matcher = TermMatcher(query_terms(query))
    return [link(m, sentences.get(m.props["video_id"], ()), matcher) for m in moments]


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
    store = await get_store()
    sentences: Sentences = {}
    if vector is not None:
        sentences = await windows.in_spans(store, vector, spans(moments))
    links = linked(moments, sentences, question)
    for moment, start in zip(moments, links, strict=True):
        if start is None:
            continue
        moment.props["start_time"] = start
        moment.props["timestamp_url"] = moment.to_result(start)["timestamp_url"]

"""Retrieval for the answering tools: the best passages for a question across collections.

One hybrid search (KnowledgeStore.hybrid, one query embedding shared by every
collection) over the knowledge collections plus the transcript and document ones, so an
answer can draw on a video moment, a document page and a paper at once. Each result
carries its citation (`knowledge.citations.cite`) and the text the model reads.

A collection whose vectors were made by another embedding model (waiting for
knowledge_reembed) is searched by keywords only, with a note, instead of failing the
whole question.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict

from video_research.knowledge import citations, relevance
from video_research.knowledge.collections import SEARCHED_COLLECTIONS, any_collection
from video_research.knowledge.filters import FilterNode
from video_research.knowledge.store import KnowledgeStore, SearchHit, get_store
from video_research.support.errors import ErrorCategory, ToolFailure

if TYPE_CHECKING:
    from video_research.support.schema_types.tools.knowledge_ask_output import Source

    class AnswerSource(Source):
        """A source of knowledge_ask's answer, with the locators its contract leaves it
        open to."""

        video_id: NotRequired[str]
        start_time: NotRequired[float]
        source_path: NotRequired[str]
        page: NotRequired[int]
        paper_id: NotRequired[str]


class Cited(TypedDict):
    """A passage as an answer's sources list it, before its number."""

    collection: str
    object_id: str
    kind: str
    label: str
    url: str | None
    score: float
    relevance: NotRequired[float]
    weak: NotRequired[bool]
    video_id: NotRequired[str]
    start_time: NotRequired[float]
    source_path: NotRequired[str]
    page: NotRequired[int]
    paper_id: NotRequired[str]


SOURCE_LOCATORS: tuple[
    Literal["video_id", "start_time", "source_path", "page", "paper_id"], ...
] = ("video_id", "start_time", "source_path", "page", "paper_id")
"""The locators a source repeats beside its citation (knowledge_ask's contract leaves
its sources open to them)."""

logger = logging.getLogger(__name__)

ANSWER_COLLECTIONS: tuple[str, ...] = SEARCHED_COLLECTIONS
"""What knowledge_ask searches by default: stored results, transcript moments, document
passages (the same collections as knowledge_search)."""


@dataclass
class Passage:
    collection: str
    object_id: str
    score: float
    properties: dict[str, Any]
    text: str
    citation: dict[str, Any]
    relevance: float | None = None
    """Calibrated relevance (knowledge.relevance), comparable across queries."""

    def to_source(self) -> Cited:
        """The citation as the tools list it (no full properties: they can be fetched)."""
        out: Cited = {
            "collection": self.collection,
            "object_id": self.object_id,
            "kind": self.citation["kind"],
            "label": self.citation["label"],
            "url": self.citation["url"],
            "score": round(self.score, 6),
        }
        if self.relevance is not None:
            out["relevance"] = self.relevance
            out["weak"] = relevance.is_weak(self.relevance)
        for key in SOURCE_LOCATORS:
            if self.properties.get(key) is not None:
                out[key] = self.properties[key]
        return out


@dataclass
class Retrieval:
    passages: list[Passage]
    searched: list[str]
    notes: list[str] = field(default_factory=list)


def _passage(hit: SearchHit) -> Passage:
    definition = any_collection(hit.collection)
    props = hit.properties
    return Passage(
        collection=hit.collection,
        object_id=hit.uuid,
        score=hit.score,
        properties=props,
        text=citations.passage(hit.collection, props, definition.vector_text(props)),
        citation=citations.cite(hit.collection, props),
        relevance=hit.relevance,
    )


async def search_each(
    store: KnowledgeStore,
    names: list[str],
    query: str,
    *,
    alpha: float,
    limit: int,
    where: FilterNode | None = None,
    min_score: float | None = None,
) -> tuple[list[SearchHit], list[str], Any]:
    """One hybrid search of each of `names` (one query embedding for all): the hits merged
    best first, notes on collections searched by keywords only, and the query vector
    (None with alpha 0), which pinpointing reuses.

    A collection whose vectors another embedding model made (waiting for
    knowledge_reembed) is searched by keywords instead of failing the whole search.
    """
    notes: list[str] = []
    vector = None
    if alpha > 0:
        vector = (await store.embedder.embed([query], "query"))[0]
    hits: list[SearchHit] = []
    for name in names:
        try:
            hits += await store.hybrid(
                name,
                query,
                alpha=alpha,
                where=where,
                limit=limit,
                min_score=min_score,
                vector=vector,
            )
        except ToolFailure as failure:
            if failure.category is not ErrorCategory.CONFIG_ERROR or alpha == 0:
                raise
            notes.append(f"{name} was searched by keywords only: {failure.message}")
            hits += await store.hybrid(
                name, query, alpha=0, where=where, limit=limit, min_score=min_score
            )
    hits.sort(key=lambda hit: (-hit.score, hit.distance if hit.distance is not None else 2.0))
    return hits, notes, vector


async def retrieve(
    question: str, *, collections: Sequence[str] | None, limit: int, alpha: float
) -> Retrieval:
    """The `limit` best passages for `question` over `collections` (default ANSWER_COLLECTIONS)."""
    names = list(dict.fromkeys(collections or ANSWER_COLLECTIONS))
    for name in names:
        any_collection(name)
    store = await get_store()
    hits, notes, vector = await search_each(store, names, question, alpha=alpha, limit=limit)
    top = hits[:limit]
    await pinpoint(question, top, vector)
    found = [_passage(hit) for hit in top]
    weak = relevance.note_if_all_weak([(repr(p.citation["label"]), p.relevance) for p in found])
    if weak:
        notes.append(weak)
    return Retrieval(found, names, notes)


Pinpointer = Callable[[str, list[SearchHit], Any], Awaitable[None]]
_PINPOINTERS: dict[str, Pinpointer] = {}


def register_pinpointer(collection: str, pinpoint: Pinpointer) -> None:
    """Have `await pinpoint(question, hits, vector)` adjust the hits of `collection` before
    they are cited.

    The transcripts package registers one for TranscriptChunks: a chunk can span minutes,
    so it points each chunk at the moment the question is about, by its words or, given
    the query vector, by meaning, exactly as semantic_search_transcripts links its
    moments (one path for both). This package may not import it.
    """
    _PINPOINTERS[collection] = pinpoint


async def pinpoint(question: str, hits: list[SearchHit], vector: Any = None) -> None:
    """Have each collection's pinpointer point its hits at the moment `question` is about
    (a transcript chunk's start_time and timestamp_url move to the sentence spoken, or the
    passage closest in meaning to the query `vector` when the question's words are not
    spoken there; without a vector, by words only)."""
    for collection, pinpointer in _PINPOINTERS.items():
        own = [hit for hit in hits if hit.collection == collection]
        if own:
            await pinpointer(question, own, vector)


_MARKER = re.compile(r"\[(\d{1,3})\]")


def numbered(passages: list[Passage]) -> str:
    """The passages as the prompt lists them: [n] label (kind), then the text."""
    return "\n\n".join(
        f"[{n}] {p.citation['label']} ({p.citation['kind']})\n{p.text}"
        for n, p in enumerate(passages, start=1)
    )


def numbered_source(n: int, cited: Cited) -> AnswerSource:
    """`cited` as the `n`th source of an answer."""
    return {"n": n, **cited}


def renumber(answer: str, cited: list[int], passages: list[Passage]) -> tuple[str, list[Source]]:
    """The answer with its markers renumbered 1..k in order of first use, and the k sources.

    A marker naming no passage is removed; a passage listed in `cited` but never marked
    in the text is still a source (numbered after the marked ones).
    """
    order: list[int] = []
    for match in _MARKER.finditer(answer):
        n = int(match.group(1))
        if 1 <= n <= len(passages) and n not in order:
            order.append(n)
    order += [n for n in dict.fromkeys(cited) if 1 <= n <= len(passages) and n not in order]
    new_number = {old: new for new, old in enumerate(order, start=1)}

    def replace(match: re.Match[str]) -> str:
        n = int(match.group(1))
        return f"[{new_number[n]}]" if n in new_number else ""

    text = _MARKER.sub(replace, answer)
    sources: list[Source] = [
        numbered_source(new_number[old], passages[old - 1].to_source()) for old in order
    ]
    return text, sources

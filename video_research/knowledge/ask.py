"""Answering a question from the knowledge base, with citations (the knowledge_ask engine).

The passages come from one hybrid search over the knowledge collections and the
transcript and document ones (`knowledge.passages`); the answer is Gemini's, structured
by schemas/common/knowledge_answer.json and grounded in the numbered passages only. The
answer's [n] markers are renumbered 1..k in order of use and `sources` lists exactly those
k objects, so "a talk at 12:34", "report.pdf, p. 3" and a paper can be cited side by side.
Without a Gemini key the answer is the ranked passages, saying that none was generated.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Literal, TypedDict

from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import templates as prompts
from video_research.knowledge import passages
from video_research.support import contracts

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import KnowledgeAskOutput
    from video_research.support.schema_types.tools.knowledge_ask_output import Source


class _Searched(TypedDict):
    """What every answer says of the search behind it."""

    question: str
    collections_searched: list[str]
    passages_considered: int
    notes: list[str]


class _Ranked(TypedDict):
    answer: None
    answered_by: Literal["retrieval"]
    sources: list[Source]
    notes: list[str]


ANSWER_SCHEMA = "common/knowledge_answer.json"

Progress = Callable[[float, float | None, str | None], Awaitable[None]]
"""How the answer reports its two steps (searching, answering): the call's progress."""


async def answer(
    question: str,
    *,
    collections: Sequence[str] | None,
    limit: int,
    alpha: float,
    gemini_api_key: str,
    progress: Progress,
) -> KnowledgeAskOutput:
    """knowledge_ask's result for a non-empty `question`: Gemini's cited answer, the
    ranked passages when `gemini_api_key` is empty, or no answer when nothing matches."""
    await progress(0, 2, "searching the knowledge base")
    found = await passages.retrieve(question, collections=collections, limit=limit, alpha=alpha)
    result: _Searched = {
        "question": question,
        "collections_searched": found.searched,
        "passages_considered": len(found.passages),
        "notes": list(found.notes),
    }
    if not found.passages:
        await progress(2, 2, "nothing found")
        return {
            **result,
            "answer": None,
            "answered_by": "none",
            "sources": [],
            "notes": [
                *result["notes"],
                "Nothing in the searched collections matches the question.",
            ],
        }
    if not gemini_api_key:
        await progress(2, 2, "ranked passages (no Gemini key)")
        return {**result, **_ranked(found.passages, result["notes"])}
    await progress(1, 2, f"answering from {len(found.passages)} passages")
    data, generation = await gemini.generate_json(
        prompts.render(
            "knowledge_ask", question=question, passages=passages.numbered(found.passages)
        ),
        schema=contracts.gemini_definition(ANSWER_SCHEMA, "answer"),
        thinking_level="low",
    )
    text, sources = passages.renumber(data["answer"], data.get("cited") or [], found.passages)
    await progress(2, 2, "done")
    notes = result["notes"]
    if not data.get("answerable", True):
        notes = [*notes, "The passages found do not fully answer the question."]
    return {
        **result,
        "answer": text.strip(),
        "answered_by": "gemini",
        "model": generation.model,
        "sources": sources,
        "notes": notes,
    }


def _with_text(n: int, passage: passages.Passage) -> Source:
    source = passages.numbered_source(n, passage.to_source())
    source["passage"] = passage.text
    return source


def _ranked(found: list[passages.Passage], notes: list[str]) -> _Ranked:
    """The retrieval-only answer: every passage, numbered best first, with its text."""
    return {
        "answer": None,
        "answered_by": "retrieval",
        "sources": [_with_text(n, p) for n, p in enumerate(found, start=1)],
        "notes": [
            *notes,
            "GEMINI_API_KEY is not set, so no answer was generated: these are the "
            "passages ranked for the question, best first.",
        ],
    }

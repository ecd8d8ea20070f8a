"""knowledge_ask: a question answered from the knowledge base, every statement cited.

Retrieval is the store's hybrid search over the knowledge collections and the transcript
and document ones (`knowledge.passages`); the answer is Gemini's, structured by
schemas/common/knowledge_answer.json and grounded in the numbered passages only. The
answer's [n] markers are renumbered 1..k in order of use and `sources` lists exactly
those k objects, so "a talk at 12:34", "report.pdf, p. 3" and a paper can be cited side
by side. Without GEMINI_API_KEY the tool still answers with the ranked passages, and
says that no answer was generated.
"""

from __future__ import annotations

from typing import Any

from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import templates as prompts
from video_research.config import get_config
from video_research.knowledge import passages
from video_research.support import contracts
from video_research.support.errors import invalid_input
from video_research.tools.context import CallContext

ANSWER_SCHEMA = "common/knowledge_answer.json"


async def knowledge_ask(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    question = args["question"].strip()
    if not question:
        raise invalid_input("question is empty.", hint="Ask a question in a sentence.")
    await ctx.report_progress(0, 2, "searching the knowledge base")
    found = await passages.retrieve(
        question, collections=args.get("collections"), limit=args["limit"], alpha=args["alpha"]
    )
    result: dict[str, Any] = {
        "question": question,
        "collections_searched": found.searched,
        "passages_considered": len(found.passages),
        "notes": list(found.notes),
    }
    ranked = [{"n": n, **p.to_source()} for n, p in enumerate(found.passages, start=1)]
    if not found.passages:
        await ctx.report_progress(2, 2, "nothing found")
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
    if not get_config().gemini_api_key.get_secret_value():
        await ctx.report_progress(2, 2, "ranked passages (no Gemini key)")
        return {
            **result,
            "answer": None,
            "answered_by": "retrieval",
            "sources": [
                {**s, "passage": p.text} for s, p in zip(ranked, found.passages, strict=True)
            ],
            "notes": [
                *result["notes"],
                "GEMINI_API_KEY is not set, so no answer was generated: these are the "
                "passages ranked for the question, best first.",
            ],
        }
    await ctx.report_progress(1, 2, f"answering from {len(found.passages)} passages")
    data, generation = await gemini.generate_json(
        prompts.render(
            "knowledge_ask", question=question, passages=passages.numbered(found.passages)
        ),
        schema=contracts.gemini_definition(ANSWER_SCHEMA, "answer"),
        thinking_level="low",
    )
    text, sources = passages.renumber(data["answer"], data.get("cited") or [], found.passages)
    await ctx.report_progress(2, 2, "done")
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

"""The research toolset: research_deep, research_plan, research_assess_evidence and
research_document.

The phases, prompts and write-through are in `video_research.research.reports`; these
handlers check the arguments, the Gemini key and the URL policy. research_document reads
its URLs through content_analyze's own fetch (`content.analysis.ask_about_url`), handed
to the research as `read_url` so the research package needs no content analysis of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import templates as prompts
from video_research.content import analysis as content_analysis
from video_research.handlers.context import CallContext
from video_research.research import documents as document_research
from video_research.research import reports
from video_research.support import url_policy
from video_research.support.errors import invalid_input

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        ResearchAssessEvidenceInput,
        ResearchAssessEvidenceOutput,
        ResearchDeepInput,
        ResearchDeepOutput,
        ResearchDocumentInput,
        ResearchDocumentOutput,
        ResearchPlanInput,
        ResearchPlanOutput,
    )


async def research_deep(args: ResearchDeepInput, ctx: CallContext) -> ResearchDeepOutput:
    gemini.require_api_key(ctx.settings)
    return await reports.research_topic(
        args["topic"], args["scope"], args["thinking_level"], ctx.report_progress
    )


async def research_plan(args: ResearchPlanInput, ctx: CallContext) -> ResearchPlanOutput:
    gemini.require_api_key(ctx.settings)
    return await reports.plan(args["topic"], args["scope"], args["available_agents"])


async def research_assess_evidence(
    args: ResearchAssessEvidenceInput, ctx: CallContext
) -> ResearchAssessEvidenceOutput:
    gemini.require_api_key(ctx.settings)
    return await reports.assess_evidence(args["claim"], args["sources"], args["context"])


async def _read_url(url: str, question: str) -> tuple[str, list[str]]:
    """(page title, verbatim passages relevant to the question) of a web page."""
    instruction = prompts.render("research_document_url", question=question)
    data, _ = await content_analysis.ask_about_url(
        url, instruction, document_research.URL_SCHEMA, True, "low"
    )
    quotes = [q.strip() for q in data.get("passages") or [] if isinstance(q, str) and q.strip()]
    return str(data.get("title") or "").strip(), quotes


async def research_document(
    args: ResearchDocumentInput, ctx: CallContext
) -> ResearchDocumentOutput:
    question = args["question"].strip()
    files, urls = args.get("file_paths") or [], args.get("urls") or []
    if not question:
        raise invalid_input("question is empty.", hint="Say what the research should answer.")
    if not files and not urls:
        raise invalid_input(
            "Pass file_paths or urls (or both): the research is grounded in them.",
            hint="To ask the knowledge base alone, use knowledge_ask.",
        )
    gemini.require_api_key(ctx.settings)
    # URLs pass the URL policy before anything is billed.
    urls = [await url_policy.check_url(url, ctx.settings) for url in urls]
    return await reports.research_sources(
        question,
        file_paths=files,
        urls=urls,
        scope=args["scope"],
        thinking=args["thinking_level"],
        knowledge_passages=args["knowledge_passages"],
        ctx=ctx,
        read_url=_read_url,
    )

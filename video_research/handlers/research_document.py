"""research_document: evidence-tiered research grounded in given files and URLs, every claim cited.

The phases of research_deep (scope, evidence, synthesis, same evidence tiers and system
prompt), but the evidence is the numbered passages of the sources the caller names, plus
the best transcript moments, document passages and papers of the knowledge base
(`document_research.gather`). Each finding and key insight cites passage IDs; citations
of passages that do not exist are removed and a claim left citing nothing is dropped
(`uncited_dropped` counts them), so every claim in the report says where it comes from:
"report.pdf, p. 3", a URL, "Talk at 12:34".

URLs pass the URL policy (`url_policy.check_url`) before anything is billed, then are read
through `_read_url`, the same fetch content_analyze uses (Gemini's URL context via
handlers.content._analyze_url).
"""

from __future__ import annotations

import logging
from typing import Any

from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import templates as prompts
from video_research.knowledge import writethrough
from video_research.research import documents as document_research
from video_research.support import contracts, url_policy
from video_research.support.errors import ErrorCategory, ToolFailure, invalid_input
from video_research.tools.context import CallContext

logger = logging.getLogger(__name__)

SHAPES = "common/research_document.json"
PHASES = 4


async def _read_url(url: str, question: str) -> tuple[str, list[str]]:
    """(page title, verbatim passages relevant to the question) of a web page."""
    from video_research.handlers.content import _analyze_url

    instruction = prompts.render("research_document_url", question=question)
    data, _ = await _analyze_url(url, instruction, document_research.URL_SCHEMA, True, "low")
    quotes = [q.strip() for q in data.get("passages") or [] if isinstance(q, str) and q.strip()]
    return str(data.get("title") or "").strip(), quotes


def _findings_text(findings: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"- [{f['evidence_tier']}] {f['claim']} (cites {', '.join(f['citations'])}) — {f.get('reasoning', '')}"
        for f in findings
    )


async def research_document(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    question = args["question"].strip()
    files, urls = args.get("file_paths") or [], args.get("urls") or []
    if not question:
        raise invalid_input("question is empty.", hint="Say what the research should answer.")
    if not files and not urls:
        raise invalid_input(
            "Pass file_paths or urls (or both): the research is grounded in them.",
            hint="To ask the knowledge base alone, use knowledge_ask.",
        )
    gemini.require_api_key()
    urls = [await url_policy.check_url(url) for url in urls]
    scope, thinking = args["scope"], args["thinking_level"]
    system = prompts.render("research_system")

    await ctx.report_progress(0, PHASES, "Phase 1/4: reading the sources")
    evidence = await document_research.gather(
        question,
        file_paths=files,
        urls=urls,
        knowledge_passages=args["knowledge_passages"],
        ctx=ctx,
        read_url=_read_url,
    )
    if not any(s.kind in ("file", "url") for s in evidence.sources):
        raise ToolFailure(
            ErrorCategory.INVALID_INPUT,
            "None of the given files or URLs could be read.",
            hint="details.consulted says why each failed.",
            details={"consulted": evidence.consulted},
        )

    await ctx.report_progress(
        1, PHASES, f"Phase 2/4: defining scope ({len(evidence.sources)} passages)"
    )
    scoping = await gemini.generate(
        prompts.render(
            "research_document_scope",
            question=question,
            scope=scope,
            inventory=evidence.inventory(),
        ),
        system_instruction=system,
        thinking_level=thinking,
    )

    await ctx.report_progress(2, PHASES, "Phase 3/4: collecting cited evidence")
    found, _ = await gemini.generate_json(
        prompts.render(
            "research_document_evidence",
            question=question,
            scope_definition=scoping.text,
            passages=evidence.numbered(),
        ),
        schema=contracts.gemini_definition(SHAPES, "findings"),
        system_instruction=system,
        thinking_level=thinking,
    )
    findings, dropped = document_research.cited(found["findings"], evidence)

    await ctx.report_progress(3, PHASES, "Phase 4/4: synthesizing")
    synthesis, generation = await gemini.generate_json(
        prompts.render(
            "research_document_synthesis",
            question=question,
            findings_text=_findings_text(findings) or "(no cited findings)",
        ),
        schema=contracts.gemini_definition(SHAPES, "synthesis"),
        system_instruction=system,
        thinking_level=thinking,
    )
    insights, dropped_insights = document_research.cited(
        synthesis.get("key_insights") or [], evidence
    )
    for finding in findings:
        if finding.get("contradicted_by"):
            known = evidence.by_id
            finding["contradicted_by"] = [i for i in finding["contradicted_by"] if i in known]
    report = {
        "question": question,
        "scope": scope,
        "scope_definition": scoping.text,
        "executive_summary": document_research.strip_unknown_markers(
            synthesis["executive_summary"], evidence
        ),
        "findings": findings,
        "key_insights": insights,
        "open_questions": synthesis.get("open_questions", []),
        "methodology_critique": synthesis.get("methodology_critique", ""),
        "recommendations": synthesis.get("recommendations", []),
        "uncited_dropped": dropped + dropped_insights,
        "passages_trimmed": evidence.trimmed,
        "consulted": evidence.consulted,
        "model": generation.model,
    }
    report["sources"] = document_research.used_sources(report, evidence)
    await ctx.report_progress(PHASES, PHASES, "done")
    await writethrough.store_document_research(report)
    return report

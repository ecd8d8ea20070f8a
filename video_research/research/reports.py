"""Evidence-tiered research with Gemini, phase by phase, each result written through to
the knowledge base.

- `research_topic` (research_deep): scope, evidence, synthesis from the model's knowledge;
  every finding carries an evidence tier.
- `plan` (research_plan): phases, tasks and model assignments, as text when the model
  will not give the structure.
- `assess_evidence` (research_assess_evidence): a claim weighed against given sources.
- `research_sources` (research_document): the phases of research_topic, but the evidence
  is the numbered passages of the files and URLs the caller names, plus the best
  transcript moments, document passages and papers of the knowledge base
  (`documents.gather`). Each finding and key insight cites passage IDs; citations of
  passages that do not exist are removed and a claim left citing nothing is dropped
  (`uncited_dropped` counts them), so every claim in the report says where it comes
  from: "report.pdf, p. 3", a URL, "Talk at 12:34".
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import templates as prompts
from video_research.knowledge import writethrough
from video_research.research import documents as document_research
from video_research.support import contracts
from video_research.support.errors import ErrorCategory, ToolFailure

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        ResearchAssessEvidenceOutput,
        ResearchDeepOutput,
        ResearchDocumentOutput,
        ResearchPlanOutput,
    )
    from video_research.support.schema_types.tools.research_document_output import (
        Finding,
        KeyInsight,
    )

logger = logging.getLogger(__name__)

RESEARCH = "common/research.json"
DOCUMENT_SHAPES = "common/research_document.json"
DOCUMENT_PHASES = 4

Progress = Callable[[float, float | None, str | None], Awaitable[None]]
ReadURL = Callable[[str, str], Awaitable[tuple[str, list[str]]]]
"""(url, question) -> (page title, verbatim passages relevant to the question)."""


async def research_topic(
    topic: str, scope: str, thinking: str, progress: Progress
) -> ResearchDeepOutput:
    """A topic researched in three phases: scope, tiered evidence, synthesis."""
    system = prompts.render("research_system")

    await progress(0, 3, "Phase 1/3: defining scope")
    scoping = await gemini.generate(
        prompts.render("research_scope", topic=topic, scope=scope),
        system_instruction=system,
        thinking_level=thinking,
    )

    await progress(1, 3, "Phase 2/3: collecting evidence")
    findings, _ = await gemini.generate_json(
        prompts.render("research_evidence", topic=topic, context=scoping.text),
        schema=contracts.gemini_definition(RESEARCH, "findings"),
        system_instruction=system,
        thinking_level=thinking,
    )
    findings_text = "\n".join(
        f"- [{f['evidence_tier']}] {f['claim']} — {f.get('reasoning', '')}"
        for f in findings["findings"]
    )

    await progress(2, 3, "Phase 3/3: synthesizing")
    synthesis, generation = await gemini.generate_json(
        prompts.render(
            "research_synthesis", topic=topic, findings_text=findings_text or "(no findings)"
        ),
        schema=contracts.gemini_definition(RESEARCH, "synthesis"),
        system_instruction=system,
        thinking_level=thinking,
    )
    await progress(3, 3, "done")
    report: ResearchDeepOutput = {
        "topic": topic,
        "scope": scope,
        "scope_definition": scoping.text,
        "executive_summary": synthesis["executive_summary"],
        "findings": findings["findings"],
        "key_insights": synthesis.get("key_insights", []),
        "open_questions": synthesis.get("open_questions", []),
        "methodology_critique": synthesis.get("methodology_critique", ""),
        "recommendations": synthesis.get("recommendations", []),
        "model": generation.model,
    }
    await writethrough.store_research_finding(report)
    return report


async def plan(topic: str, scope: str, agents: int) -> ResearchPlanOutput:
    """A research plan; when structured output fails, the plan as text (`structured` false)."""
    prompt = prompts.render("research_plan", topic=topic, scope=scope, available_agents=agents)
    base = {"topic": topic, "scope": scope, "available_agents": agents}
    result: ResearchPlanOutput
    try:
        planned, _ = await gemini.generate_json(
            prompt, schema=contracts.gemini_definition(RESEARCH, "plan")
        )
        # `planned` passed research.json's plan in gemini.generate_json
        result = cast("ResearchPlanOutput", {**base, **planned, "structured": True})
    except ToolFailure as failure:
        if failure.category is ErrorCategory.CONFIG_ERROR:
            raise
        logger.warning(
            "research_plan: structured output failed (%s); falling back to text", failure.message
        )
        generation = await gemini.generate(prompt)
        result = {
            "topic": topic,
            "scope": scope,
            "available_agents": agents,
            "phases": [],
            "task_decomposition": [],
            "model_assignments": [],
            "structured": False,
            "plan_text": generation.text,
        }
    await writethrough.store_research_plan(result)
    return result


async def assess_evidence(
    claim: str, sources: list[str], context: str
) -> ResearchAssessEvidenceOutput:
    """How well `sources` support `claim`, tier by tier."""
    sources_text = "\n".join(f"[{i}] {source}" for i, source in enumerate(sources, 1))
    assessment, _ = await gemini.generate_json(
        prompts.render(
            "research_assess",
            claim=claim,
            sources_text=sources_text,
            context=context or "(none)",
        ),
        schema=contracts.gemini_definition(RESEARCH, "assessment"),
        system_instruction=prompts.render("research_system"),
    )
    # `assessment` passed research.json's assessment in gemini.generate_json
    result = cast(
        "ResearchAssessEvidenceOutput",
        {"claim": claim, **assessment, "sources_assessed": len(sources)},
    )
    await writethrough.store_evidence_assessment(result, claim, sources)
    return result


def _findings_text(findings: list[Finding]) -> str:
    return "\n".join(
        f"- [{f['evidence_tier']}] {f['claim']} (cites {', '.join(f['citations'])}) — {f.get('reasoning', '')}"
        for f in findings
    )


async def research_sources(
    question: str,
    *,
    file_paths: list[str],
    urls: list[str],
    scope: str,
    thinking: str,
    knowledge_passages: int,
    ctx: Any,
    read_url: ReadURL,
) -> ResearchDocumentOutput:
    """A question researched from given files and URLs (URLs already checked against the
    URL policy), every claim citing its passage. `ctx` is the call context: whose roots
    the files are confined to, and where progress goes."""
    system = prompts.render("research_system")

    await ctx.report_progress(0, DOCUMENT_PHASES, "Phase 1/4: reading the sources")
    evidence = await document_research.gather(
        question,
        file_paths=file_paths,
        urls=urls,
        knowledge_passages=knowledge_passages,
        ctx=ctx,
        read_url=read_url,
    )
    if not any(s.kind in ("file", "url") for s in evidence.sources):
        raise ToolFailure(
            ErrorCategory.INVALID_INPUT,
            "None of the given files or URLs could be read.",
            hint="details.consulted says why each failed.",
            details={"consulted": evidence.consulted},
        )

    await ctx.report_progress(
        1, DOCUMENT_PHASES, f"Phase 2/4: defining scope ({len(evidence.sources)} passages)"
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

    await ctx.report_progress(2, DOCUMENT_PHASES, "Phase 3/4: collecting cited evidence")
    found, _ = await gemini.generate_json(
        prompts.render(
            "research_document_evidence",
            question=question,
            scope_definition=scoping.text,
            passages=evidence.numbered(),
        ),
        schema=contracts.gemini_definition(DOCUMENT_SHAPES, "findings"),
        system_instruction=system,
        thinking_level=thinking,
    )
    # Gemini's answers passed research_document.json's findings and synthesis in
    # gemini.generate_json: their items are the contract's findings and key insights
    drafted: list[Finding] = found["findings"]
    findings, dropped = document_research.cited(drafted, evidence)

    await ctx.report_progress(3, DOCUMENT_PHASES, "Phase 4/4: synthesizing")
    synthesis, generation = await gemini.generate_json(
        prompts.render(
            "research_document_synthesis",
            question=question,
            findings_text=_findings_text(findings) or "(no cited findings)",
        ),
        schema=contracts.gemini_definition(DOCUMENT_SHAPES, "synthesis"),
        system_instruction=system,
        thinking_level=thinking,
    )
    drafted_insights: list[KeyInsight] = synthesis.get("key_insights") or []
    insights, dropped_insights = document_research.cited(drafted_insights, evidence)
    for finding in findings:
        if finding.get("contradicted_by"):
            known = evidence.by_id
            finding["contradicted_by"] = [i for i in finding["contradicted_by"] if i in known]
    summary = document_research.strip_unknown_markers(synthesis["executive_summary"], evidence)
    cited_in = {"findings": findings, "key_insights": insights, "executive_summary": summary}
    report: ResearchDocumentOutput = {
        "question": question,
        "scope": scope,
        "scope_definition": scoping.text,
        "executive_summary": summary,
        "findings": findings,
        "key_insights": insights,
        "open_questions": synthesis.get("open_questions", []),
        "methodology_critique": synthesis.get("methodology_critique", ""),
        "recommendations": synthesis.get("recommendations", []),
        "uncited_dropped": dropped + dropped_insights,
        "passages_trimmed": evidence.trimmed,
        "consulted": evidence.consulted,
        "model": generation.model,
        "sources": document_research.used_sources(cited_in, evidence),
    }
    await ctx.report_progress(DOCUMENT_PHASES, DOCUMENT_PHASES, "done")
    await writethrough.store_document_research(report)
    return report

"""research_deep, research_plan, research_assess_evidence: evidence-tiered research."""

from __future__ import annotations

import logging
from typing import Any

from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import templates as prompts
from video_research.config import get_config
from video_research.knowledge import writethrough
from video_research.support import contracts
from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.tools.context import CallContext

logger = logging.getLogger(__name__)

RESEARCH = "common/research.json"


async def research_deep(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    settings = get_config()
    gemini.require_api_key(settings)
    topic, scope, thinking = args["topic"], args["scope"], args["thinking_level"]
    system = prompts.render("research_system")

    await ctx.report_progress(0, 3, "Phase 1/3: defining scope")
    scoping = await gemini.generate(
        prompts.render("research_scope", topic=topic, scope=scope),
        system_instruction=system,
        thinking_level=thinking,
    )

    await ctx.report_progress(1, 3, "Phase 2/3: collecting evidence")
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

    await ctx.report_progress(2, 3, "Phase 3/3: synthesizing")
    synthesis, generation = await gemini.generate_json(
        prompts.render(
            "research_synthesis", topic=topic, findings_text=findings_text or "(no findings)"
        ),
        schema=contracts.gemini_definition(RESEARCH, "synthesis"),
        system_instruction=system,
        thinking_level=thinking,
    )
    await ctx.report_progress(3, 3, "done")
    report = {
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


async def research_plan(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    gemini.require_api_key()
    topic, scope, agents = args["topic"], args["scope"], args["available_agents"]
    prompt = prompts.render("research_plan", topic=topic, scope=scope, available_agents=agents)
    base = {"topic": topic, "scope": scope, "available_agents": agents}
    try:
        plan, _ = await gemini.generate_json(
            prompt, schema=contracts.gemini_definition(RESEARCH, "plan")
        )
        result = {**base, **plan, "structured": True}
    except ToolFailure as failure:
        if failure.category is ErrorCategory.CONFIG_ERROR:
            raise
        logger.warning(
            "research_plan: structured output failed (%s); falling back to text", failure.message
        )
        generation = await gemini.generate(prompt)
        result = {
            **base,
            "phases": [],
            "task_decomposition": [],
            "model_assignments": [],
            "structured": False,
            "plan_text": generation.text,
        }
    await writethrough.store_research_plan(result)
    return result


async def research_assess_evidence(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    gemini.require_api_key()
    sources = args["sources"]
    sources_text = "\n".join(f"[{i}] {source}" for i, source in enumerate(sources, 1))
    assessment, _ = await gemini.generate_json(
        prompts.render(
            "research_assess",
            claim=args["claim"],
            sources_text=sources_text,
            context=args["context"] or "(none)",
        ),
        schema=contracts.gemini_definition(RESEARCH, "assessment"),
        system_instruction=prompts.render("research_system"),
    )
    result = {"claim": args["claim"], **assessment, "sources_assessed": len(sources)}
    await writethrough.store_evidence_assessment(result, args["claim"], sources)
    return result

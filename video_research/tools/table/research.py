"""The research toolset: evidence-tiered research, plans, claim assessment, and research
grounded in given files and URLs."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

TOPIC_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="research_deep",
        handler="research:research_deep",
        toolset="research",
        title="Deep research",
        description=(
            "Research a question in three phases (scope, evidence, synthesis), every claim "
            "labelled CONFIRMED, STRONG INDICATOR, INFERENCE, SPECULATION or UNKNOWN.\n"
            "Progress per phase; findings are written to the knowledge base."
        ),
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        name="research_plan",
        handler="research:research_plan",
        toolset="research",
        title="Plan multi-agent research",
        description=(
            "Draft a phased multi-agent research plan (tasks, agent counts, model assignments) for "
            "a topic.\n"
            "A blueprint only: it runs nothing."
        ),
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        name="research_assess_evidence",
        handler="research:research_assess_evidence",
        toolset="research",
        title="Assess a claim against sources",
        description=(
            "Judge how well sources support a claim: evidence tier, confidence (0-1) and "
            "reasoning.\n"
            "Written to the knowledge base."
        ),
        idempotent=False,
        open_world=True,
    ),
)
"""Research from the model's own knowledge: a topic, a plan, a claim."""

DOCUMENT_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="research_document",
        handler="research:research_document",
        toolset="research",
        title="Research grounded in documents",
        description=(
            "Research a question from given files and URLs in research_deep's phases and evidence "
            "tiers, every claim citing its source (file + page, or URL)."
        ),
        idempotent=False,
        open_world=True,
    ),
)
"""Research grounded in the files and URLs the caller gives. `tools/list` has always shown
it after the deepresearch tools, and clients may rely on that order, so the table joins
these apart from TOPIC_SPECS."""

SPECS: tuple[ToolSpec, ...] = TOPIC_SPECS + DOCUMENT_SPECS

"""The deepresearch toolset: Gemini's Deep Research agent, run in the background."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="research_web",
        handler="deepresearch:research_web",
        toolset="deepresearch",
        title="Start web deep research",
        description=(
            "Start the Gemini Deep Research agent on a brief in the background; returns a task_id "
            "at once.\n"
            "The cited report, from dozens of web searches, takes 5-20 minutes and costs dollars. "
            "Poll with research_web_status. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=False,
        open_world=True,
        audited=True,
    ),
    ToolSpec(
        name="research_web_status",
        handler="deepresearch:research_web_status",
        toolset="deepresearch",
        title="Deep research status and report",
        description=(
            "Status of a research_web task; once completed, its report (Markdown) and sources.\n"
            "Tasks survive server restarts."
        ),
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        name="research_web_followup",
        handler="deepresearch:research_web_followup",
        toolset="deepresearch",
        title="Ask about a deep research report",
        description=(
            "Ask a follow-up question about a completed research_web report; the model sees the "
            "report and earlier follow-ups. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=False,
        open_world=True,
        audited=True,
    ),
    ToolSpec(
        name="research_web_cancel",
        handler="deepresearch:research_web_cancel",
        toolset="deepresearch",
        title="Cancel deep research",
        description="Stop a running research_web task. Requires blessed.",
        role="blessed",
        read_only=False,
        destructive=True,
        open_world=True,
        audited=True,
    ),
)

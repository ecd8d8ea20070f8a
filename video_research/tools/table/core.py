"""The server's first tools: Gemini video analysis, YouTube, research, content analysis and
web search, and the admin settings of the analysis cache and models."""

from __future__ import annotations

from typing import Any

from video_research.tools.table.spec import ToolSpec


def _infra_cache_writes(arguments: dict[str, Any]) -> bool:
    return arguments.get("action", "stats") in ("clear", "context_clear")


def _infra_configure_writes(arguments: dict[str, Any]) -> bool:
    return any(
        arguments.get(name) is not None
        for name in ("preset", "model", "thinking_level", "temperature")
    )


SPECS: tuple[ToolSpec, ...] = (
    # ---------------------------------------------------------------- infra
    ToolSpec(
        name="infra_cache",
        handler="infra:infra_cache",
        toolset="infra",
        title="Analysis cache",
        description=(
            "Inspect or clear the analysis cache (Gemini results per content, tool, instruction "
            "and model) and the Gemini context caches (session videos, billed per hour).\n"
            "Requires admin. Clears are audited."
        ),
        role="admin",
        read_only=False,
        audited=True,
        audit_if=_infra_cache_writes,
        destructive=True,
        idempotent=True,
    ),
    ToolSpec(
        name="infra_configure",
        handler="infra:infra_configure",
        toolset="infra",
        title="Runtime configuration",
        description=(
            "Show or change the model preset, model, thinking level and temperature for later "
            "calls of this server process; with no arguments it only shows them. Requires admin."
        ),
        role="admin",
        read_only=False,
        audited=True,
        audit_if=_infra_configure_writes,
        destructive=False,
        idempotent=True,
    ),
    # ---------------------------------------------------------------- video
    ToolSpec(
        name="video_analyze",
        handler="video:video_analyze",
        toolset="video",
        title="Analyze a video",
        description=(
            "Analyze a YouTube video (url) or local video file (file_path) with Gemini, following "
            "any instruction.\n"
            "Returns title, summary, key points, timestamps and topics, or your output_schema's "
            "shape. Cached per video, instruction and model; written to the knowledge base."
        ),
        open_world=True,
    ),
    ToolSpec(
        name="video_create_session",
        handler="video:video_create_session",
        toolset="video",
        title="Start a video session",
        description=(
            "Start a multi-turn conversation about one video; returns a session_id for "
            "video_continue_session.\n"
            "Sessions survive restarts and expire after GEMINI_SESSION_TIMEOUT_HOURS idle."
        ),
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        name="video_continue_session",
        handler="video:video_continue_session",
        toolset="video",
        title="Ask about a session's video",
        description=(
            "Ask a follow-up question in a video session; the model sees the video and the last "
            "GEMINI_SESSION_MAX_TURNS turns.\n"
            "Each turn is written to the knowledge base."
        ),
        idempotent=False,
        open_world=True,
    ),
    ToolSpec(
        name="video_batch_analyze",
        handler="video:video_batch_analyze",
        toolset="video",
        title="Analyze a directory of videos",
        description=(
            "Analyze the video files of a directory (glob_pattern, at most max_files) with one "
            "instruction.\n"
            "Progress per file; a file that fails is reported in its item, never failing the "
            "batch."
        ),
        open_world=True,
    ),
    # ---------------------------------------------------------------- youtube
    ToolSpec(
        name="video_metadata",
        handler="youtube:video_metadata",
        toolset="youtube",
        title="YouTube video metadata",
        description=(
            "A YouTube video's metadata from the Data API, without Gemini.\n"
            "Costs 1 YouTube quota unit. Written to the knowledge base and the video catalog."
        ),
        open_world=True,
    ),
    ToolSpec(
        name="video_playlist",
        handler="youtube:video_playlist",
        toolset="youtube",
        title="YouTube playlist",
        description=(
            "A YouTube playlist's videos with titles, positions and durations; deleted or private "
            "ones have available: false.\n"
            "Costs about 3 quota units; the videos join the video catalog."
        ),
        open_world=True,
    ),
    # ---------------------------------------------------------------- YouTube comments
    ToolSpec(
        name="video_comments",
        handler="youtube:video_comments",
        toolset="youtube",
        title="YouTube comments",
        description=(
            "A YouTube video's top comment threads, paged.\n"
            "Costs 1 quota unit per page. Comments turned off answer COMMENTS_DISABLED."
        ),
        open_world=True,
    ),
    # ---------------------------------------------------------------- research
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
    # ---------------------------------------------------------------- content
    ToolSpec(
        name="content_analyze",
        handler="content:content_analyze",
        toolset="content",
        title="Analyze a document, page or text",
        description=(
            "Analyze a local PDF or text file, a web page (Gemini fetches it) or raw text with any "
            "instruction.\n"
            "Returns title, summary, key points and entities, or your output_schema's shape. "
            "Written to the knowledge base."
        ),
        open_world=True,
    ),
    ToolSpec(
        name="content_extract",
        handler="content:content_extract",
        toolset="content",
        title="Extract structured data",
        description=(
            "Extract an object of your JSON Schema's shape from text; the answer is checked "
            "against the schema."
        ),
        open_world=True,
    ),
    # ---------------------------------------------------------------- content and documents
    ToolSpec(
        name="content_batch_analyze",
        handler="content_batch:content_batch_analyze",
        toolset="content",
        title="Analyze many documents",
        description=(
            "Analyze many local PDF or text files with one instruction, each on its own or "
            "compared.\n"
            "Progress per file; a file that fails is reported in its item, never failing the "
            "batch."
        ),
        open_world=True,
    ),
    # ---------------------------------------------------------------- search
    ToolSpec(
        name="web_search",
        handler="search:web_search",
        toolset="search",
        title="Web search",
        description=(
            "Search the web through Gemini's Google Search grounding: an answer, its sources and "
            "the queries Gemini ran.\n"
            "Uses the flash model."
        ),
        idempotent=False,
        open_world=True,
    ),
)

"""The video toolset: Gemini video analysis, one-shot, in sessions, and over folders."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
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
)

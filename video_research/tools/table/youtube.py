"""The youtube toolset: YouTube Data API reads (metadata, playlists, comments), no Gemini."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
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
    ToolSpec(
        name="video_comments",
        handler="youtube:video_comments",
        toolset="youtube",
        title="YouTube comments",
        description=(
            "A YouTube video's top comment threads, paged.\n"
            "Costs 1 quota unit per page. Comments turned off answer a `forbidden` error."
        ),
        open_world=True,
    ),
)

"""Local media seen by the server itself, offline: frames, contact sheets, scene cuts and
on-screen text, decoded with PyAV (no Gemini, no network)."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

_FILES = (
    "Local video files (mp4, m4v, mkv, webm, mov, avi) under VIDEO_RESEARCH_FILE_ROOTS; audio files "
    "are refused. Reading local files needs the blessed role."
)

SPECS: tuple[ToolSpec, ...] = (
    # ---------------------------------------------------------------- media
    ToolSpec(
        name="media_frames",
        handler="media:media_frames",
        toolset="media",
        title="Frames of a video",
        description=(
            "Frames of a local video as images you can look at: at given times, count evenly "
            "spaced in start-end, or one per scene.\n"
            "Each frame is an image content item, described in `frames` (time, size, link); "
            "frames past the MEDIA_MAX_* limits are listed in `omitted`. " + _FILES
        ),
    ),
    ToolSpec(
        name="media_contact_sheet",
        handler="media:media_contact_sheet",
        toolset="media",
        title="Contact sheet of a video",
        description=(
            "One image: a grid of frames of a local video, each with its time burned in, evenly "
            "spaced over start-end or one per scene. The cheapest way to see a whole video.\n"
            + _FILES
        ),
    ),
    ToolSpec(
        name="media_scenes",
        handler="media:media_scenes",
        toolset="media",
        title="Scene cuts of a video",
        description=(
            "Scene cuts of a local video: each scene's start, end and middle (its keyframe), "
            "with a link. Hard cuts (slides, edits) are found to the frame; slow fades may be "
            "missed. Lower threshold finds more cuts.\n" + _FILES
        ),
    ),
    ToolSpec(
        name="media_screen_text",
        handler="media:media_screen_text",
        toolset="media",
        title="On-screen text of a video",
        description=(
            "Text shown on screen in a local video (slides, burned-in captions), read by OCR into "
            "a timeline of when each text appeared and disappeared; logos and watermarks left out.\n"
            "index: true writes it to the transcript index, so semantic_search_transcripts finds "
            "what was shown beside what was said. " + _FILES
        ),
        read_only=False,
        idempotent=True,
        audited=True,
        audit_if=lambda arguments: bool(arguments.get("index")),
    ),
)

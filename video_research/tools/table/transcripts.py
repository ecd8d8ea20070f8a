"""Transcripts of YouTube videos and local caption files: index, search, read."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec
from video_research.transcripts import formats

SPECS: tuple[ToolSpec, ...] = (
    # ---------------------------------------------------------------- transcripts
    ToolSpec(
        name="index_channel_transcripts",
        handler="transcripts:index_channel_transcripts",
        toolset="transcripts",
        title="Index a channel's transcripts",
        description=(
            "Fetch the transcripts of a YouTube channel's latest uploads (max_videos) and index them "
            "for semantic_search_transcripts.\n"
            "Incremental: videos indexed before are skipped unless force_reindex. Progress is reported "
            "per video; a video without a transcript, with subtitles disabled or blocked by YouTube is "
            "listed in batch.failed with a hint and never stops the rest. Needs YOUTUBE_API_KEY for the "
            "channel's upload list; set TRANSCRIPT_PROXY_URL or WEBSHARE_PROXY_* when YouTube blocks "
            "this server's IP. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=True,
        open_world=True,
        audited=True,
    ),
    ToolSpec(
        name="index_transcript_files",
        handler="transcripts:index_transcript_files",
        toolset="transcripts",
        title="Index transcript files",
        description=(
            f"Index local transcript files for semantic_search_transcripts, one file or a "
            f"directory (glob_pattern): {formats.described()}.\n"
            "The video ID comes from the file name: yt-dlp's 'Title [VIDEO_ID].en.vtt' or "
            "'VIDEO_ID.vtt', else the name itself; `videos` gives a file its metadata. Unchanged "
            "files are skipped. Paths must lie under VIDEO_RESEARCH_FILE_ROOTS. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=True,
        audited=True,
    ),
    ToolSpec(
        name="index_media_files",
        handler="transcripts:index_media_files",
        toolset="transcripts",
        title="Transcribe and index media",
        description=(
            "Transcribe speech in local audio/video files (paths: files or folders under "
            "VIDEO_RESEARCH_FILE_ROOTS) and YouTube or direct media URLs, offline with Whisper, and "
            "index it for semantic_search_transcripts like captions (source: speech).\n"
            "YouTube captions are used when they exist (speech: always transcribes anyway). One bad "
            "file fails alone; unchanged files are skipped. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=True,
        open_world=True,
        audited=True,
    ),
    ToolSpec(
        name="semantic_search_transcripts",
        handler="transcripts:semantic_search_transcripts",
        toolset="transcripts",
        title="Search what was said in videos",
        description=(
            "Find the video and the moment where something is said: hybrid (meaning + keyword) search "
            "over indexed transcripts, with a timestamp link to the sentence that answers.\n"
            "Each result video's chapters come along (chapters). With auto_index, listed videos "
            "not indexed yet are fetched first."
        ),
        read_only=False,
        idempotent=True,
        open_world=True,
    ),
    ToolSpec(
        name="get_all_channel_transcripts",
        handler="transcripts:get_all_channel_transcripts",
        toolset="transcripts",
        title="A channel's transcripts, paged",
        description=(
            "Fetch and index a channel's transcripts (first page), then page through them: each video "
            "with a preview of its transcript and a next_cursor.\n"
            "Read a whole transcript with transcript_get; the result stays small whatever the channel."
        ),
        read_only=False,
        idempotent=True,
        open_world=True,
    ),
    ToolSpec(
        name="get_indexed_videos",
        handler="transcripts:get_indexed_videos",
        toolset="transcripts",
        title="Indexed videos",
        description=(
            "List the videos whose transcripts are indexed, newest first, optionally by channel, "
            "language or source (youtube, file, speech); paged with next_cursor."
        ),
    ),
    ToolSpec(
        name="delete_indexed_video",
        handler="transcripts:delete_indexed_video",
        toolset="transcripts",
        title="Remove a video from the transcript index",
        description=(
            "Delete a video's indexed transcript (all its chunks and its record) so searches no longer "
            "find it; index it again any time. Requires admin."
        ),
        role="admin",
        read_only=False,
        destructive=True,
        idempotent=True,
        audited=True,
    ),
    ToolSpec(
        name="name_speaker",
        handler="transcripts:name_speaker",
        toolset="transcripts",
        title="Name a speaker",
        description=(
            'Name a video\'s speaker (S2 -> "Guest") for transcript_get, search results and the '
            "speaker filter; an empty name removes it. Requires blessed."
        ),
        role="blessed",
        read_only=False,
        idempotent=True,
        audited=True,
    ),
    ToolSpec(
        name="transcript_get",
        handler="transcripts:transcript_get",
        toolset="transcripts",
        title="Read a transcript",
        description=(
            "One video's transcript with a timestamp and link per caption, paged by cursor "
            "(max_segments per page) or starting at start_time seconds.\n"
            "A YouTube video that is not indexed yet is fetched and indexed first (auto_index)."
        ),
        read_only=False,
        idempotent=True,
        open_world=True,
    ),
    ToolSpec(
        name="verify_citation",
        handler="transcripts:verify_citation",
        toolset="transcripts",
        title="Check a quote against the cited moment",
        description=(
            "Is a quote said at the cited moment (link with t=, or video_id and time)? exact, "
            "close (the differences) or not_there, and where else it is said."
        ),
    ),
    ToolSpec(
        name="video_chapters",
        handler="transcripts:video_chapters",
        toolset="transcripts",
        title="Chapters",
        description=(
            "An indexed video's chapters (title, start, end, link): the author's, the "
            "container's, a chapter file's, or computed from topic shifts, pauses and slides."
        ),
    ),
)

"""Transcript tools: index a channel or a directory of transcript files, search what was
said with timestamp links, page through channels, videos and transcripts.

index_channel_transcripts, index_transcript_files, index_media_files (speech),
semantic_search_transcripts,
get_all_channel_transcripts, get_indexed_videos, delete_indexed_video, transcript_get. The
work is in `video_research.transcripts` (youtube_index for videos and channels, files for
local transcript files, reading for pages, previews and search filters, search); these
functions read arguments and shape results.

Paged tools hand out an opaque `next_cursor`; a cursor is bound to the query that made
it, so passing it to another query is refused instead of silently skipping results.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from video_research.handlers.context import CallContext
from video_research.knowledge import guidance, relevance
from video_research.knowledge.filters import Filter, FilterNode
from video_research.knowledge.store import get_store
from video_research.support import paths
from video_research.support.errors import ToolFailure, config_error, invalid_input, not_found
from video_research.support.youtube_urls import parse_video_id
from video_research.transcripts import (
    chapters,
    citation,
    indexer,
    moment_chapters,
    reading,
    speakers,
    youtube_index,
)
from video_research.transcripts import files as transcript_files
from video_research.transcripts import search as transcript_search
from video_research.transcripts.sources import is_youtube_id, printable

if TYPE_CHECKING:
    from video_research.support.schema_types.common.transcripts import Moment, VideoChapter
    from video_research.support.schema_types.tools import (
        DeleteIndexedVideoInput,
        DeleteIndexedVideoOutput,
        GetAllChannelTranscriptsInput,
        GetAllChannelTranscriptsOutput,
        GetIndexedVideosInput,
        GetIndexedVideosOutput,
        IndexChannelTranscriptsInput,
        IndexChannelTranscriptsOutput,
        IndexMediaFilesInput,
        IndexMediaFilesOutput,
        IndexTranscriptFilesInput,
        IndexTranscriptFilesOutput,
        NameSpeakerInput,
        NameSpeakerOutput,
        SemanticSearchTranscriptsInput,
        SemanticSearchTranscriptsOutput,
        TranscriptGetInput,
        TranscriptGetOutput,
        VerifyCitationInput,
        VerifyCitationOutput,
        VideoChaptersInput,
        VideoChaptersOutput,
    )
    from video_research.support.schema_types.tools.verify_citation_output import (
        FoundElsewhereItem,
    )


# ----------------------------------------------------------------------------- helpers


def _cursor(offset: int | None, scope: Any) -> str | None:
    if offset is None:
        return None
    raw = json.dumps({"o": offset, "s": scope}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _offset(cursor: str | None, scope: Any) -> int:
    """The offset a cursor points at; invalid_input when it is garbled or for another query."""
    if not cursor:
        return 0
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
        offset = int(data["o"])
        same = json.loads(json.dumps(scope, sort_keys=True)) == data["s"]
    except (ValueError, KeyError, TypeError):
        raise invalid_input(
            "cursor is not a cursor this server handed out.",
            hint="Pass next_cursor from the previous page unchanged, or leave cursor out to start over.",
        ) from None
    if not same or offset < 0:
        raise invalid_input(
            "cursor belongs to a different query.",
            hint="Repeat the arguments of the call that returned it, or leave cursor out to start over.",
        )
    return offset


def _video_id(ref: str) -> str:
    """A video ID from an ID or a YouTube URL."""
    ref = ref.strip()
    if "/" in ref or ref.startswith(("youtube.com", "www.", "youtu.be")):
        return parse_video_id(ref)
    return ref


# ----------------------------------------------------------------------------- tools


async def index_channel_transcripts(
    args: IndexChannelTranscriptsInput, ctx: CallContext
) -> IndexChannelTranscriptsOutput:
    found, batch = await youtube_index.index_channel(
        args["channel_id"],
        args["max_videos"],
        languages=youtube_index.languages(args.get("language"), ctx.settings),
        force=args["force_reindex"],
        progress=ctx.report_progress,
    )
    return {"channel_id": args["channel_id"], "videos_found": found, "batch": batch}


async def index_transcript_files(
    args: IndexTranscriptFilesInput, ctx: CallContext
) -> IndexTranscriptFilesOutput:
    roots, client_roots = await paths.readable_roots(ctx)
    root = paths.confine_to(args["path"], roots, client_roots)
    files = await asyncio.to_thread(
        transcript_files.find, root, args["path"], args["glob_pattern"], args["max_files"]
    )
    options = transcript_files.FileOptions(
        videos=args.get("videos") or {},
        channel_id=args.get("channel_id"),
        channel_title=args.get("channel_title"),
        language=args.get("language"),
        fetch_metadata=args["fetch_metadata"],
        force_reindex=args["force_reindex"],
        budget_seconds=ctx.settings.transcript_file_budget_seconds,
    )
    run = await transcript_files.index(
        root,
        files,
        options,
        confine=lambda file: paths.confine_to(file, roots, client_roots),
        progress=ctx.report_progress,
    )
    result = {
        "indexed": run.indexed,
        "skipped": run.skipped,
        "failed": run.failed,
        "chunk_count": sum(item["chunk_count"] for item in run.indexed),
    }
    return {
        "path": printable(root),
        "files_found": len(files),
        "batch": youtube_index.batch_summary(result, list(dict.fromkeys(run.notes))),
    }


async def get_all_channel_transcripts(
    args: GetAllChannelTranscriptsInput, ctx: CallContext
) -> GetAllChannelTranscriptsOutput:
    channel_id = args["channel_id"]
    scope = ["channel", channel_id, args["page_size"]]
    offset = _offset(args.get("cursor"), scope)
    fetch = None
    if not args.get("cursor"):
        fetch = await youtube_index.refresh_channel(
            channel_id,
            args["max_videos"],
            languages=youtube_index.languages(args.get("language"), ctx.settings),
            progress=ctx.report_progress,
        )
    videos, total, next_offset = await indexer.list_videos(
        Filter.eq("channel_id", channel_id), args["page_size"], offset
    )
    for video in videos:
        video["preview"] = await reading.preview(video["video_id"], args["preview_chars"])
    return {
        "channel_id": channel_id,
        "total_videos": total,
        "videos": videos,
        "next_cursor": _cursor(next_offset, scope),
        "fetch": fetch,
    }


async def get_indexed_videos(
    args: GetIndexedVideosInput, ctx: CallContext
) -> GetIndexedVideosOutput:
    conditions: list[FilterNode] = []
    if args.get("channel_id"):
        conditions.append(Filter.eq("channel_id", args["channel_id"]))
    if args.get("language"):
        conditions.append(Filter.prefix("language", args["language"]))
    if args.get("source"):
        conditions.append(Filter.eq("source", args["source"]))
    where = Filter.all_of(*conditions) if conditions else None
    scope = [
        "videos",
        args.get("channel_id"),
        args.get("language"),
        args.get("source"),
        args["limit"],
    ]
    videos, total, next_offset = await indexer.list_videos(
        where, args["limit"], _offset(args.get("cursor"), scope)
    )
    return {"total": total, "videos": videos, "next_cursor": _cursor(next_offset, scope)}


async def delete_indexed_video(
    args: DeleteIndexedVideoInput, ctx: CallContext
) -> DeleteIndexedVideoOutput:
    video_id = _video_id(args["video_id"])
    existed, chunks = await indexer.delete_video(video_id)
    return {"video_id": video_id, "deleted": existed or chunks > 0, "chunks_deleted": chunks}


async def name_speaker(args: NameSpeakerInput, ctx: CallContext) -> NameSpeakerOutput:
    return await speakers.name_speaker(_video_id(args["video_id"]), args["speaker"], args["name"])


async def transcript_get(args: TranscriptGetInput, ctx: CallContext) -> TranscriptGetOutput:
    video_id = _video_id(args["video_id"])
    record = await indexer.get_video(video_id)
    if record is None and args["auto_index"] and is_youtube_id(video_id):
        languages = youtube_index.languages(args.get("language"), ctx.settings)
        await youtube_index.index_video(video_id, languages, ctx.settings)
        record = await indexer.get_video(video_id)
    if record is None:
        raise not_found(
            f"No transcript of {video_id} is indexed.",
            hint="Index it first (index_transcript_files for files; a YouTube ID is fetched "
            "when auto_index is true), or list what is indexed with get_indexed_videos.",
        )
    scope = ["transcript", video_id, args["max_segments"]]
    video, segments, next_offset = reading.transcript_page(
        record,
        video_id,
        start=_offset(args["cursor"], scope) if args.get("cursor") else None,
        start_time=args.get("start_time"),
        max_segments=args["max_segments"],
    )
    return {"video": video, "segments": segments, "next_cursor": _cursor(next_offset, scope)}


async def video_chapters(args: VideoChaptersInput, ctx: CallContext) -> VideoChaptersOutput:
    video_id = _video_id(args["video_id"])
    record = await indexer.get_video(video_id)
    if record is None:
        raise not_found(
            f"No transcript of {video_id} is indexed, so it has no chapters yet.",
            hint="Index it first (index_transcript_files, index_media_files, or transcript_get "
            "for a YouTube ID), or list what is indexed with get_indexed_videos.",
        )
    link = record.get("video_url") or ""
    found: list[VideoChapter] = [
        {**chapter, "timestamp_url": indexer.timestamp_url(video_id, link, chapter["start"])}
        for chapter in chapters.stored(record)
    ]
    evidence = found[0]["evidence"] if found else None
    return {
        "video_id": video_id,
        "video_title": record.get("video_title") or "",
        "video_url": link,
        "duration_seconds": record.get("duration_seconds") or 0.0,
        "evidence": evidence,
        "chapters": found,
    }


async def semantic_search_transcripts(
    args: SemanticSearchTranscriptsInput, ctx: CallContext
) -> SemanticSearchTranscriptsOutput:
    query = args["query"].strip()
    if not query:
        raise invalid_input("query is empty.", hint="Say what was said, in a few words.")
    video_ids = [_video_id(v) for v in args.get("video_ids") or []]
    channel_ids = args.get("channel_ids") or []
    # the filter first: a window that holds nothing is refused before any fetching
    where = reading.search_filter(
        channel_ids=channel_ids,
        video_ids=video_ids,
        language=args.get("language"),
        start_time=args.get("start_time"),
        end_time=args.get("end_time"),
        published_after=args.get("published_after"),
        published_before=args.get("published_before"),
        evidence=args.get("evidence"),
    )
    if args.get("speaker"):
        said_by = await speakers.speaker_filter(args["speaker"])
        where = said_by if where is None else Filter.all_of(where, said_by)
    indexing = youtube_index.empty_batch()
    if args["auto_index"]:
        indexing = await youtube_index.auto_index(
            video_ids,
            channel_ids,
            languages=youtube_index.languages(args.get("language"), ctx.settings),
            progress=ctx.report_progress,
        )
    results = await transcript_search.search(
        query,
        k=args["k"],
        alpha=args.get("alpha"),
        where=where,
        min_score=args.get("min_score"),
        pinpoint=args["pinpoint"],
    )
    records = await moment_chapters.records_of(r["video_id"] for r in results)
    await speakers.label_results(results, records)
    out: SemanticSearchTranscriptsOutput = {
        "query": query,
        "result_count": len(results),
        "results": results,
        "indexing": indexing,
    }
    if spans := moment_chapters.by_video(records):
        out["chapters"] = spans
    if args.get("thumbnails"):
        await _attach_thumbnails(results, ctx)
    if not results:
        store = await get_store(ctx.settings)
        empty = await guidance.empty_state(store, ["TranscriptChunks"], ctx.toolset_of)
        if empty:
            out["notes"] = [empty]
    else:
        weak = relevance.note_if_all_weak(
            [
                (
                    f"{r['video_title'] or r['video_id']!r} at {r['match_time']:.0f} s",
                    r["relevance"],
                )
                for r in results
            ]
        )
        if weak:
            out["notes"] = [weak]
    return out


THUMBNAILS_MAX = 5
"""Frames one search returns at most: each costs a seek and a decode in a media worker."""
THUMBNAIL_EDGE = 320


async def _attach_thumbnails(results: list[Moment], ctx: CallContext) -> None:
    """A frame of each of the first moments that are in a local video file, attached as
    image content (after the JSON text); the moment's `thumbnail` names its place. A file
    that is gone or outside the roots now, or that fails to decode, just has no thumbnail:
    the search has already answered."""
    from urllib.parse import unquote, urlparse

    from video_research.media.frames import extract_frames
    from video_research.media.limits import VIDEO_SUFFIXES, MediaLimits, worker_limits
    from video_research.support.isolation import MEDIA_POOL, parse_isolated

    attached = 0
    for moment in results:
        if attached >= THUMBNAILS_MAX:
            break
        link = moment.get("video_url") or ""
        if not link.startswith("file://"):
            continue
        path = unquote(urlparse(link).path)
        if Path(path).suffix.lower() not in VIDEO_SUFFIXES:
            continue
        at = float(moment.get("match_time") or moment.get("start_time") or 0.0)
        try:
            confined = await paths.confine(path, ctx)
            found = await parse_isolated(
                printable(Path(path).name),
                extract_frames,
                str(confined),
                MediaLimits.from_settings(ctx.settings),
                times=[at],
                max_edge=THUMBNAIL_EDGE,
                worker_limits=worker_limits(ctx.settings, "decode"),
                worker_pool=MEDIA_POOL,
            )
        except ToolFailure:
            continue
        if not found["frames"]:
            continue
        frame = found["frames"][0]
        ctx.attach_image(frame.data, frame.mime_type)
        attached += 1
        moment["thumbnail"] = {"content_index": 1 + attached, "time": round(frame.time, 3)}


async def index_media_files(args: IndexMediaFilesInput, ctx: CallContext) -> IndexMediaFilesOutput:
    from video_research.media import download as media_download
    from video_research.media import speakers as speaker_pass
    from video_research.media import speech
    from video_research.media.limits import MEDIA_SUFFIXES
    from video_research.transcripts import media_index
    from video_research.transcripts.media_progress import ItemProgress

    settings = ctx.settings
    files: list[Path] = []
    confine: Callable[[Path], Path] | None = None
    if args.get("paths"):
        roots, client_roots = await paths.readable_roots(ctx)

        def confine_to_roots(file: str | os.PathLike[str]) -> Path:
            return paths.confine_to(file, roots, client_roots)

        confine = confine_to_roots
        for given in args["paths"]:
            root = confine_to_roots(given)
            files += await asyncio.to_thread(
                media_index.find_media,
                root,
                given,
                args["glob_pattern"],
                MEDIA_SUFFIXES,
                args["max_files"] - len(files),
            )
    urls = args.get("urls") or []
    if not files and not urls:
        raise invalid_input(
            "Nothing to index: no media files found and no urls given.",
            hint="Pass paths (media files or folders; glob_pattern **/* looks in subfolders) "
            f"with names ending {', '.join(MEDIA_SUFFIXES)}, or urls.",
        )
    language = args.get("language") or settings.speech_language
    model_dir = settings.speech_model_dir or str(settings.cache_dir / "speech-models")

    from video_research.media.limits import worker_limits
    from video_research.support.isolation import MEDIA_POOL, WorkerProgress, parse_isolated

    async def transcribe(path: Path, on_progress: Any) -> dict[str, Any]:
        # In a media worker (the server decodes no untrusted media): a cancel kills the
        # worker at once; the model stays loaded in the worker for the next file.
        try:
            return await parse_isolated(
                printable(path.name),
                speech.transcribe_file,
                str(path),
                model=settings.speech_model,
                language=language or None,
                max_duration_seconds=settings.speech_max_duration_seconds,
                cpu_threads=settings.speech_cpu_threads,
                beam_size=settings.speech_beam_size,
                download_root=model_dir,
                speakers=settings.speech_speakers,
                worker_limits=worker_limits(settings, "speech"),
                worker_pool=MEDIA_POOL,
                worker_progress=WorkerProgress("on_progress", on_progress),
            )
        except speech.SpeechError as exc:
            if exc.reason == "model":
                raise config_error(exc.message, hint=exc.hint) from None
            reason = {"not_found": "unreadable", "empty": "not_media"}.get(exc.reason, exc.reason)
            raise media_index.MediaFailure(reason, exc.message, hint=exc.hint) from None

    async def download(url: str, folder: Path) -> media_index.Fetched:
        got = await media_download.download(url, folder, settings)
        return media_index.Fetched(
            got.path,
            indexer.VideoInfo(
                got.video_id,
                got.title,
                got.channel_id,
                got.channel_title,
                got.published_at,
                got.url,
            ),
        )

    async def measure(path: Path) -> dict[str, Any] | None:
        from video_research.media.probe import measure_file

        try:
            found = await parse_isolated(
                printable(path.name),
                measure_file,
                str(path),
                worker_limits=worker_limits(settings, "decode"),
                worker_pool=MEDIA_POOL,
            )
        except ToolFailure:
            return None  # the transcription reports what is wrong with the file
        return None if found is None else {**found.fields(), "note": found.note}

    probed: dict[Path, Any] = {}

    async def probe(path: Path) -> Any:
        if path not in probed:
            try:
                probed[path] = await parse_isolated(
                    printable(path.name),
                    speech.probe,
                    str(path),
                    worker_limits=worker_limits(settings, "decode"),
                    worker_pool=MEDIA_POOL,
                )
            except (speech.SpeechError, ToolFailure):
                probed[path] = None  # the transcription reports what is wrong with the file
        return probed[path]

    async def chapters_in(path: Path) -> list[tuple[float, str]]:
        found = await probe(path)
        return [] if found is None else list(found.chapters)

    async def screen_text(
        path: Path, info: Any, item: ItemProgress, media: dict[str, Any] | None
    ) -> media_index.Shown:
        from video_research.media.limits import VIDEO_SUFFIXES, MediaLimits
        from video_research.media.ocr import read_screen_text
        from video_research.media.scenes import detect_scenes
        from video_research.transcripts.screen import index_screen_text

        if path.suffix.lower() not in VIDEO_SUFFIXES:
            return media_index.Shown()
        limits = MediaLimits.from_settings(settings)

        # a file cut short is read to where it ends, not to the length it claims
        end = None if media is None or media["complete"] else max(media["seconds_read"], 0.001)

        async def in_worker(function: Any, work: str, done: str, **options: Any) -> Any:
            return await parse_isolated(
                printable(path.name),
                function,
                str(path),
                limits,
                worker_limits=worker_limits(settings, work),
                worker_pool=MEDIA_POOL,
                worker_progress=WorkerProgress("tick", lambda at: item.media(at, done)),
                **options,
            )

        # the scene cuts in a call of their own, so each stage reports its own progress
        await item.stage("scenes", "finding the scene cuts")
        threshold = settings.media_scene_threshold
        detected = await in_worker(
            detect_scenes, "decode", "searched", threshold=threshold, end=end
        )
        scenes = detected["scenes"]
        await item.stage("screen text", f"reading the text of {len(scenes)} scene(s)")
        found = await in_worker(
            read_screen_text,
            "ocr",
            "read",
            overlay_fraction=settings.media_ocr_overlay_fraction,
            scene_threshold=threshold,
            scenes=scenes,
            end=end,
        )
        cuts = tuple(found["scene_starts"])
        if not found["spans"]:
            return media_index.Shown(0, cuts)
        await item.stage("index screen text", f"indexing {len(found['spans'])} lines shown")
        written = await index_screen_text(
            info, found["spans"], source_path=str(path), coverage=media
        )
        return media_index.Shown(int(written["chunk_count"]), cuts)

    tools = media_index.MediaTools(
        transcribe,
        download,
        speech.model_label(settings.speech_model),
        measure,
        media_download.url_video_id,
        screen_text if args["screen_text"] else None,
        speaker_pass.LABEL if settings.speech_speakers and speaker_pass.available() else "",
        chapters=chapters_in,
    )
    options = media_index.MediaOptions(
        language=language,
        speech=args["speech"],
        force_reindex=args["force_reindex"],
        caption_languages=youtube_index.languages(args.get("language"), settings),
        scratch=settings.cache_dir / "media-downloads",
    )
    run = await media_index.index_media(
        files, urls, options, tools, ctx.report_progress, confine or paths.resolve
    )
    result = {
        "indexed": run.indexed,
        "skipped": run.skipped,
        "failed": run.failed,
        "chunk_count": sum(item["chunk_count"] for item in run.indexed),
    }
    return {
        "files_found": len(files),
        "urls": len(urls),
        "speech_model": tools.model,
        "transcribed_count": run.transcribed,
        "screen_chunk_count": run.screen_chunks,
        "speech_seconds": round(run.speech_seconds, 1),
        "batch": youtube_index.batch_summary(result, list(dict.fromkeys(run.notes))),
    }


# ----------------------------------------------------------------------------- citations

ELSEWHERE_RESULTS = 5


async def verify_citation(args: VerifyCitationInput, ctx: CallContext) -> VerifyCitationOutput:
    """Does the cited moment say the quoted words (transcripts.citation)?"""
    quote = args["quote"].strip()
    if not citation.words(quote):
        raise invalid_input(
            "quote has no words.", hint="Send the words the citation claims are said."
        )
    video_id, seconds = await _cited(args)
    record = await indexer.get_video(video_id)
    window = float(args["window_seconds"])
    start, end = max(0.0, seconds - window), seconds + window
    lines = await citation.window_lines(video_id, start, end)
    if record is None and not lines:
        raise not_found(
            f"Nothing of {video_id} is indexed.",
            hint="Index it first (index_transcript_files, index_media_files, media_screen_text) "
            "or check the id with get_indexed_videos.",
        )
    match = citation.compare(quote, lines)
    found: list[FoundElsewhereItem] = []
    if match.verdict != "exact":
        found = await citation.elsewhere(quote, ELSEWHERE_RESULTS, video_id, start, end)
    link = ""
    if match.start is not None:
        link = indexer.timestamp_url(video_id, (record or {}).get("video_url") or "", match.start)
    return {
        "verdict": match.verdict,
        "quote": quote,
        "video_id": video_id,
        "time": seconds,
        "window": {"start": start, "end": end},
        "checked": {
            "lines": len(lines),
            "speech": sum(line.evidence != "screen" for line in lines),
            "screen": sum(line.evidence == "screen" for line in lines),
        },
        "evidence": None
        if match.verdict == "not_there"
        else {
            "said": match.said,
            "time": round(match.start or 0.0, 1),
            "timestamp_url": link,
            "similarity": match.similarity,
            "differences": match.differences,
        },
        "found_elsewhere": found,
    }


async def _cited(args: Mapping[str, Any]) -> tuple[str, float]:
    video_id = args.get("video_id")
    seconds = args.get("time")
    if args.get("link"):
        linked_id, path, linked_time = citation.parse_link(args["link"])
        if path is not None:
            linked_id = await citation.video_of_file(path)
        video_id = video_id or linked_id
        seconds = linked_time if seconds is None else seconds
    elif video_id and ("/" in video_id or video_id.startswith(("youtube.com", "youtu.be"))):
        linked_id, _, linked_time = citation.parse_link(video_id)
        video_id, seconds = linked_id, linked_time if seconds is None else seconds
    if not video_id:
        raise invalid_input(
            "No video to check against.",
            hint="Send link (a YouTube URL with t=, or file:///path#t=SECONDS) or video_id and time.",
        )
    if seconds is None:
        raise invalid_input(
            "No time to check at.",
            hint="Give the time in the link (t=754, #t=754) or as time in seconds.",
        )
    if not is_youtube_id(video_id) and len(video_id) > 512:
        raise invalid_input(
            "video_id is too long.", hint="Send the id the video was indexed under."
        )
    return video_id, float(seconds)

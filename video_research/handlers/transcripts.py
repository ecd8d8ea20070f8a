"""Transcript tools: index a channel or a directory of transcript files, search what was
said with timestamp links, page through channels, videos and transcripts.

index_channel_transcripts, index_transcript_files, semantic_search_transcripts,
get_all_channel_transcripts, get_indexed_videos, delete_indexed_video, transcript_get. The
work is in `video_research.transcripts` (sources, parsers, chunker, indexer, search, and
files for local transcript files); these functions read arguments, report progress and
shape results.

Paged tools hand out an opaque `next_cursor`; a cursor is bound to the query that made
it, so passing it to another query is refused instead of silently skipping results.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import re
from datetime import date, timedelta
from typing import Any

from video_research.config import Settings
from video_research.handlers.context import CallContext
from video_research.knowledge.filters import Filter, FilterNode
from video_research.support import paths
from video_research.support.errors import ErrorCategory, ToolFailure, invalid_input, not_found
from video_research.support.youtube_urls import parse_video_id
from video_research.transcripts import files as transcript_files
from video_research.transcripts import indexer
from video_research.transcripts import search as transcript_search
from video_research.transcripts.sources import fetch_youtube, is_youtube_id, printable

logger = logging.getLogger(__name__)

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


_BATCH_FIELDS = ("video_id", "video_title", "language", "chunk_count")


def batch_summary(result: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    return {
        "indexed_count": len(result["indexed"]),
        "skipped_count": len(result["skipped"]),
        "failed_count": len(result["failed"]),
        "chunk_count": result["chunk_count"],
        "indexed": [{k: video[k] for k in _BATCH_FIELDS} for video in result["indexed"]],
        "skipped": result["skipped"],
        "failed": result["failed"],
        "notes": notes,
    }


def _empty_batch() -> dict[str, Any]:
    return batch_summary({"indexed": [], "skipped": [], "failed": [], "chunk_count": 0}, [])


def _languages(args: dict[str, Any], settings: Settings) -> list[str] | None:
    language = args.get("language")
    if not language:
        return None
    return list(dict.fromkeys([language, *settings.transcript_languages]))


def _progress(ctx: CallContext) -> indexer.Progress:
    async def report(done: int, total: int, message: str) -> None:
        await ctx.report_progress(done, total, message)

    return report


async def _index_youtube(
    video_ids: list[str], args: dict[str, Any], ctx: CallContext, *, force: bool
) -> dict[str, Any]:
    infos, note = await indexer.video_infos(video_ids)
    result = await indexer.index_youtube_videos(
        [infos[v] for v in video_ids],
        languages=_languages(args, ctx.settings),
        force=force,
        progress=_progress(ctx),
    )
    return batch_summary(result, [note] if note else [])


async def _channel_batch(args: dict[str, Any], ctx: CallContext) -> tuple[int, dict[str, Any]]:
    """List a channel's uploads and index them incrementally: (videos found, batch)."""
    from video_research.clients import youtube

    videos = await youtube.list_channel_videos(args["channel_id"], args["max_videos"])
    await ctx.report_progress(0, len(videos), f"{len(videos)} videos in {args['channel_id']}")
    infos = [indexer.VideoInfo.from_metadata(video) for video in videos]
    result = await indexer.index_youtube_videos(
        infos,
        languages=_languages(args, ctx.settings),
        force=args["force_reindex"],
        progress=_progress(ctx),
    )
    return len(videos), batch_summary(result, [])


# ----------------------------------------------------------------------------- tools


async def index_channel_transcripts(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    found, batch = await _channel_batch(args, ctx)
    return {"channel_id": args["channel_id"], "videos_found": found, "batch": batch}


async def index_transcript_files(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
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
        "batch": batch_summary(result, list(dict.fromkeys(run.notes))),
    }


async def get_all_channel_transcripts(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    channel_id = args["channel_id"]
    scope = ["channel", channel_id, args["page_size"]]
    offset = _offset(args.get("cursor"), scope)
    fetch = None
    if not args.get("cursor"):
        try:
            _, fetch = await _channel_batch({**args, "force_reindex": False}, ctx)
        except ToolFailure as failure:  # without the Data API, page what is indexed
            _, indexed, _ = await indexer.list_videos(Filter.eq("channel_id", channel_id), 1, 0)
            if not indexed:
                raise
            fetch = _empty_batch()
            fetch["notes"].append(
                f"Channel {channel_id} was not refreshed, showing what is indexed: {failure.message}"
            )
    videos, total, next_offset = await indexer.list_videos(
        Filter.eq("channel_id", channel_id), args["page_size"], offset
    )
    chars = args["preview_chars"]
    for video in videos:
        video["preview"] = await _preview(video["video_id"], chars)
    return {
        "channel_id": channel_id,
        "total_videos": total,
        "videos": videos,
        "next_cursor": _cursor(next_offset, scope),
        "fetch": fetch,
    }


async def _preview(video_id: str, chars: int) -> str:
    if chars == 0:
        return ""
    record = await indexer.get_video(video_id)
    if record is None:
        return ""
    text = ""
    for cue in indexer.cues_of(record):
        text = f"{text} {cue.text}" if text else cue.text
        if len(text) >= chars:
            return text[:chars].rsplit(" ", 1)[0] + " …"
    return text


async def get_indexed_videos(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
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


async def delete_indexed_video(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    video_id = _video_id(args["video_id"])
    existed, chunks = await indexer.delete_video(video_id)
    return {"video_id": video_id, "deleted": existed or chunks > 0, "chunks_deleted": chunks}


async def transcript_get(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    video_id = _video_id(args["video_id"])
    record = await indexer.get_video(video_id)
    if record is None and args["auto_index"] and is_youtube_id(video_id):
        infos, _ = await indexer.video_infos([video_id])
        # fetch_youtube says why when there is no transcript
        transcript = await fetch_youtube(video_id, _languages(args, ctx.settings), ctx.settings)
        await indexer.index_transcript(transcript, infos[video_id])
        record = await indexer.get_video(video_id)
    if record is None:
        raise not_found(
            f"No transcript of {video_id} is indexed.",
            hint="Index it first (index_transcript_files for files; a YouTube ID is fetched "
            "when auto_index is true), or list what is indexed with get_indexed_videos.",
        )
    cues = indexer.cues_of(record)
    scope = ["transcript", video_id, args["max_segments"]]
    if args.get("cursor"):
        start = _offset(args["cursor"], scope)
    elif args.get("start_time") is not None:
        start = next((n for n, cue in enumerate(cues) if cue.end > args["start_time"]), len(cues))
    else:
        start = 0
    page = cues[start : start + args["max_segments"]]
    end = start + len(page)
    video = indexer.video_summary(record)
    video["chapters"] = json.loads(record.get("chapters_json") or "[]")
    link = video["video_url"]
    return {
        "video": video,
        "segments": [
            {
                "index": start + n,
                "start": cue.start,
                "end": cue.end,
                "text": cue.text,
                "timestamp_url": indexer.timestamp_url(video_id, link, cue.start),
            }
            for n, cue in enumerate(page)
        ],
        "next_cursor": _cursor(end if end < len(cues) else None, scope),
    }


async def semantic_search_transcripts(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    query = args["query"].strip()
    if not query:
        raise invalid_input("query is empty.", hint="Say what was said, in a few words.")
    video_ids = [_video_id(v) for v in args.get("video_ids") or []]
    channel_ids = args.get("channel_ids") or []
    indexing = _empty_batch()
    if args["auto_index"]:
        indexing = await _auto_index(video_ids, channel_ids, args, ctx)
    results = await transcript_search.search(
        query,
        k=args["k"],
        alpha=args["alpha"],
        where=_search_filter(args, video_ids, channel_ids),
        min_score=args.get("min_score"),
        pinpoint=args["pinpoint"],
    )
    return {"query": query, "result_count": len(results), "results": results, "indexing": indexing}


def _search_filter(
    args: dict[str, Any], video_ids: list[str], channel_ids: list[str]
) -> FilterNode | None:
    conditions: list[FilterNode] = []
    if channel_ids:
        conditions.append(Filter.in_("channel_id", channel_ids))
    if video_ids:
        conditions.append(Filter.in_("video_id", video_ids))
    if args.get("language"):
        conditions.append(Filter.prefix("language", args["language"]))
    if args.get("start_time") is not None:
        conditions.append(Filter.gte("end_time", args["start_time"]))
    if args.get("end_time") is not None:
        conditions.append(Filter.lte("start_time", args["end_time"]))
    if args.get("published_after"):
        conditions.append(Filter.gte("published_at", args["published_after"]))
    before = args.get("published_before")
    if before:
        next_day = _day_after(before)
        conditions.append(
            Filter.lt("published_at", next_day) if next_day else Filter.lte("published_at", before)
        )
    return Filter.all_of(*conditions) if conditions else None


def _day_after(value: str) -> str | None:
    """The day after a date without a time (so "before 2024-05-01" keeps all of that day)."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
        return None
    try:
        return (date.fromisoformat(value.strip()) + timedelta(days=1)).isoformat()
    except (ValueError, OverflowError):
        return None  # the store says what is wrong with it


async def _auto_index(
    video_ids: list[str], channel_ids: list[str], args: dict[str, Any], ctx: CallContext
) -> dict[str, Any]:
    """Index listed YouTube videos that are missing, and channels with nothing indexed.

    A failure here is a note: the search still runs on what is indexed."""
    already = await indexer.indexed_ids(video_ids)
    missing = [v for v in video_ids if is_youtube_id(v) and v not in already]
    batch = _empty_batch()
    try:
        if missing:
            batch = await _index_youtube(missing, args, ctx, force=False)
    except ToolFailure as failure:
        batch["notes"].append(f"The listed videos were not indexed: {failure.message}")
        if failure.category is ErrorCategory.CONFIG_ERROR:
            channel_ids = []  # every channel would fail alike
    for channel_id in channel_ids:
        _, total, _ = await indexer.list_videos(Filter.eq("channel_id", channel_id), 1, 0)
        if total:
            continue
        try:
            _, channel = await _channel_batch(
                {**args, "channel_id": channel_id, "max_videos": 50, "force_reindex": False}, ctx
            )
        except ToolFailure as failure:
            batch["notes"].append(f"Channel {channel_id} was not indexed: {failure.message}")
            if failure.category is ErrorCategory.CONFIG_ERROR:
                break
            continue
        for key in ("indexed", "skipped", "failed", "notes"):
            batch[key] = batch[key] + channel[key]
        batch["chunk_count"] += channel["chunk_count"]
    for key in ("indexed", "skipped", "failed"):
        batch[f"{key}_count"] = len(batch[key])
    return batch

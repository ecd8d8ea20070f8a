"""Transcript tools: index a channel or a directory of transcript files, search what was
said with timestamp links, page through channels, videos and transcripts.

index_channel_transcripts, index_transcript_files, semantic_search_transcripts,
get_all_channel_transcripts, get_indexed_videos, delete_indexed_video, transcript_get.
The work is in `video_research.transcripts` (sources, parsers, chunker, indexer); these
functions read arguments, report progress and shape results.

Paged tools hand out an opaque `next_cursor`; a cursor is bound to the query that made
it, so passing it to another query is refused instead of silently skipping results.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from video_research import paths
from video_research.config import get_config
from video_research.context import CallContext
from video_research.errors import ErrorCategory, ToolFailure, invalid_input, not_found
from video_research.knowledge.collections import canonical_date
from video_research.knowledge.filters import Filter, FilterNode
from video_research.transcripts import indexer
from video_research.transcripts import search as transcript_search
from video_research.transcripts.chunker import Chapter, parse_chapters
from video_research.transcripts.parsers import (
    MAX_FILE_BYTES,
    SUPPORTED_SUFFIXES,
    Budget,
    TranscriptFormatError,
)
from video_research.transcripts.sources import (
    Transcript,
    failure_item,
    fetch_youtube,
    is_youtube_id,
    printable,
    read_file,
    sidecar_name,
)
from video_research.youtube_urls import parse_video_id

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


def _batch(result: dict[str, Any], notes: list[str]) -> dict[str, Any]:
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
    return _batch({"indexed": [], "skipped": [], "failed": [], "chunk_count": 0}, [])


def _languages(args: dict[str, Any]) -> list[str] | None:
    language = args.get("language")
    if not language:
        return None
    return list(dict.fromkeys([language, *get_config().transcript_languages]))


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
        languages=_languages(args),
        force=force,
        progress=_progress(ctx),
    )
    return _batch(result, [note] if note else [])


async def _channel_batch(args: dict[str, Any], ctx: CallContext) -> tuple[int, dict[str, Any]]:
    """List a channel's uploads and index them incrementally: (videos found, batch)."""
    from video_research import youtube

    videos = await youtube.list_channel_videos(args["channel_id"], args["max_videos"])
    await ctx.report_progress(0, len(videos), f"{len(videos)} videos in {args['channel_id']}")
    infos = [indexer.VideoInfo.from_metadata(video) for video in videos]
    result = await indexer.index_youtube_videos(
        infos,
        languages=_languages(args),
        force=args["force_reindex"],
        progress=_progress(ctx),
    )
    return len(videos), _batch(result, [])


# ----------------------------------------------------------------------------- tools


async def index_channel_transcripts(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    found, batch = await _channel_batch(args, ctx)
    return {"channel_id": args["channel_id"], "videos_found": found, "batch": batch}


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
        transcript = await fetch_youtube(video_id, _languages(args))  # says why when it cannot
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


# ----------------------------------------------------------------------------- files

METADATA_BATCH = 50
"""Files parsed before their videos' metadata is looked up (one Data API request, one
quota unit) and indexed; only this many parsed transcripts are held at a time."""


async def index_transcript_files(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    roots, client_roots = await paths.readable_roots(ctx)
    root = paths.confine_to(args["path"], roots, client_roots)
    if not root.exists():
        raise ToolFailure(
            ErrorCategory.FILE_NOT_FOUND,
            f"{args['path']} does not exist.",
            hint=f"Pass a transcript file or a directory of them ({_SUFFIX_LIST}).",
        )
    files = await asyncio.to_thread(
        _transcript_files, root, args["glob_pattern"], args["max_files"]
    )
    run = _FileRun(root, args, ctx, lambda file: paths.confine_to(file, roots, client_roots))
    for start in range(0, len(files), METADATA_BATCH):
        await run.index(files[start : start + METADATA_BATCH], len(files))
    result = {
        "indexed": run.indexed,
        "skipped": run.skipped,
        "failed": run.failed,
        "chunk_count": sum(item["chunk_count"] for item in run.indexed),
    }
    notes = list(dict.fromkeys(run.notes))
    return {"path": printable(root), "files_found": len(files), "batch": _batch(result, notes)}


_SUFFIX_LIST = ", ".join(SUPPORTED_SUFFIXES)
_FORMAT_HINT = (
    "Check the file is a transcript: WebVTT, SRT, YouTube srv3/TTML/json3, Whisper TSV or JSON "
    "segments, or Markdown/text whose paragraphs start with [HH:MM:SS]."
)
NOT_TRANSCRIPTS = (".info.json", ".live_chat.json")
"""yt-dlp writes these beside the captions: metadata (read as a sidecar) and chat, not speech."""


@dataclass
class _Loaded:
    file: Path
    transcript: Transcript
    given: dict[str, Any]
    stamps: dict[str, str]
    budget: Budget


class _FileRun:
    """One index_transcript_files call: what each file came to, and which video ID which
    file was indexed under (two files with one ID would overwrite each other)."""

    def __init__(
        self,
        root: Path,
        args: dict[str, Any],
        ctx: CallContext,
        confine: Callable[[Path], Path],
    ) -> None:
        self.root = root
        self.args = args
        self.ctx = ctx
        self.confine = confine
        self.overrides: dict[str, dict[str, Any]] = args.get("videos") or {}
        self.seen: dict[str, Path] = {}
        self.indexed: list[dict[str, Any]] = []
        self.skipped: list[str] = []
        self.failed: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.done = 0

    async def _step(self, file: Path, total: int) -> None:
        self.done += 1
        await self.ctx.report_progress(self.done, total, printable(file.name))

    def _fail(self, file: Path, reason: str, error: str, hint: str, **where: str) -> None:
        self.failed.append(
            {
                "file": printable(file),
                **where,
                "reason": reason,
                "error": error,
                "hint": hint,
                "retryable": False,
            }
        )

    def _claim(self, file: Path, video_id: str) -> bool:
        """Whether `file` may be indexed as `video_id`: no earlier file of this run was."""
        first = self.seen.setdefault(video_id, file)
        if first == file:
            return True
        self._fail(
            file,
            "duplicate",
            f"{self._name(file)} and {self._name(first)} are both video {video_id}; "
            f"{self._name(first)} was kept.",
            f'Give this file its own ID: "videos": {{"{self._name(file)}": {{"video_id": "..."}}}}, '
            "or leave it out with glob_pattern.",
            video_id=video_id,
        )
        return False

    def _name(self, file: Path) -> str:
        """The file as a `videos` key: its path relative to the indexed directory (with
        bytes that are not UTF-8 written as \\xNN)."""
        name = file.name if file == self.root else file.relative_to(self.root).as_posix()
        return printable(name)

    def _sidecar(self, file: Path) -> Path | None:
        """yt-dlp's .info.json beside `file`, when it is a regular file inside the roots."""
        name = sidecar_name(file)
        if name is None:
            return None
        candidate = file.with_name(name)
        try:
            checked = self.confine(candidate)
            return checked if stat.S_ISREG(os.stat(checked).st_mode) else None
        except (ToolFailure, OSError):
            return None

    async def _load(self, file: Path) -> _Loaded | None:
        """The file parsed, or None when it failed or is unchanged (recorded as such)."""
        given = _override(self.overrides, self._name(file), file)
        name = printable(file.name)
        try:
            checked = self.confine(file)  # a link inside the directory may leave it
        except ToolFailure as failure:
            self.failed.append(failure_item(failure, "forbidden", file=printable(file)))
            return None
        try:
            digest = await asyncio.to_thread(_sha256, checked)
            stamps = {
                "source_sha256": digest,
                "metadata_sha256": _metadata_sha256(given, self.args),
            }
            if not self.args["force_reindex"]:
                video_id = await _unchanged(checked, stamps)
                if video_id is not None:
                    if self._claim(file, video_id):
                        self.skipped.append(video_id)
                    return None
            sidecar = self._sidecar(file)
            budget = Budget(get_config().transcript_file_budget_seconds)
            transcript = await asyncio.to_thread(read_file, checked, budget, sidecar)
            budget.pause()  # until this file's turn to be chunked
        except paths.NotRegularFile as failure:  # a FIFO, device or socket: never opened
            self.failed.append(failure_item(failure, "unreadable", file=printable(file)))
            return None
        except (TranscriptFormatError, OSError) as exc:
            reason = getattr(exc, "reason", "unreadable")
            hint = _SIZE_HINT if reason == "too_large" else _FORMAT_HINT
            self._fail(file, reason, f"{name}: {_message(exc)}", hint)
            return None
        except Exception as exc:  # a file must never sink the batch, whatever it holds
            logger.warning("transcript file %s: %s", printable(file), exc, exc_info=True)
            self._fail(
                file, "unreadable", f"{name}: not readable ({type(exc).__name__}).", _FORMAT_HINT
            )
            return None
        if not transcript.cues:
            self._fail(file, "unreadable", f"{name} holds no captions.", _FORMAT_HINT)
            return None
        if given.get("video_id"):
            transcript.video_id = given["video_id"]
        if not self._claim(file, transcript.video_id):
            return None
        return _Loaded(file, transcript, given, stamps, budget)

    async def index(self, files: list[Path], total: int) -> None:
        """Parse `files`, look up their YouTube IDs' metadata at once, and index them."""
        loaded: list[_Loaded] = []
        for file in files:
            item = await self._load(file)
            if item is None:
                await self._step(file, total)
            else:
                loaded.append(item)
        infos: dict[str, indexer.VideoInfo] = {}
        youtube_ids = [item.transcript.video_id for item in loaded]
        youtube_ids = list(dict.fromkeys(v for v in youtube_ids if is_youtube_id(v)))
        if self.args["fetch_metadata"] and youtube_ids:
            infos, note = await indexer.video_infos(youtube_ids)
            self.notes += [note] if note else []
        while loaded:
            item = loaded.pop(0)  # indexed transcripts are let go as the batch goes on
            transcript = item.transcript
            try:
                info = _file_info(item, self.args, infos.get(transcript.video_id))
                self.indexed.append(
                    await indexer.index_transcript(
                        transcript, info, stamps=item.stamps, budget=item.budget
                    )
                )
            except ToolFailure as failure:
                if failure.category is ErrorCategory.CONFIG_ERROR:
                    raise  # the store refuses every write alike: stop here
                self.failed.append(
                    failure_item(
                        failure, "error", file=printable(item.file), video_id=transcript.video_id
                    )
                )
            except TranscriptFormatError as exc:  # over a limit while chunking
                self._fail(
                    item.file,
                    exc.reason,
                    f"{printable(item.file.name)}: {_message(exc)}",
                    _SIZE_HINT if exc.reason == "too_large" else _FORMAT_HINT,
                    video_id=transcript.video_id,
                )
            await self._step(item.file, total)


def _is_transcript_name(path: Path) -> bool:
    name = path.name.lower()
    return path.suffix.lower() in SUPPORTED_SUFFIXES and not name.endswith(NOT_TRANSCRIPTS)


def _transcript_files(root: Path, pattern: str, limit: int) -> list[Path]:
    if not root.is_dir():  # a file; a FIFO or device is refused per item when read
        return [root]
    paths.check_glob(pattern)
    files = sorted(
        p for p in root.glob(pattern) if _is_transcript_name(p) and paths.is_listed_file(p)
    )
    if not files:
        raise ToolFailure(
            ErrorCategory.FILE_NOT_FOUND,
            f"No transcript files match {pattern} in {printable(root)}.",
            hint=f"Check the directory and glob_pattern (use **/*.vtt to look in subdirectories); "
            f"transcripts are {_SUFFIX_LIST}.",
        )
    if len(files) > limit:
        raise invalid_input(
            f"{len(files)} transcript files match, more than max_files ({limit}).",
            hint="Raise max_files or narrow glob_pattern.",
        )
    return files


def _override(overrides: dict[str, dict[str, Any]], name: str, file: Path) -> dict[str, Any]:
    """The caller's metadata of a file: keyed by its relative path, its name or its stem."""
    return overrides.get(name) or overrides.get(file.name) or overrides.get(file.stem) or {}


def _file_info(
    item: _Loaded, args: dict[str, Any], fetched: indexer.VideoInfo | None
) -> indexer.VideoInfo:
    """The metadata of a transcript file: the caller's, then the API's, then the file's
    own (its fields, front matter or yt-dlp .info.json), then its name."""
    given, transcript, file = item.given, item.transcript, item.file
    meta = transcript.metadata
    if given.get("language") or not transcript.language:
        transcript.language = given.get("language") or args.get("language") or ""
    published_at = given.get("published_at")
    if published_at:
        try:
            published_at = canonical_date(published_at)
        except ValueError as exc:
            raise invalid_input(
                f"published_at of {printable(file.name)}: {exc}.",
                hint="Give videos[...].published_at as an ISO 8601 date, e.g. 2024-05-01.",
            ) from None
    base = fetched or indexer.VideoInfo(transcript.video_id)
    chapters = [Chapter(float(c["start"]), c["title"]) for c in given.get("chapters") or []]
    own_chapters = [Chapter(float(c["start"]), c["title"]) for c in meta.get("chapters") or []]
    return indexer.VideoInfo(
        video_id=transcript.video_id,
        title=given.get("title") or base.title or meta.get("title") or _title_from(file),
        channel_id=given.get("channel_id")
        or base.channel_id
        or meta.get("channel_id")
        or args.get("channel_id")
        or "",
        channel_title=given.get("channel_title")
        or base.channel_title
        or meta.get("channel_title")
        or args.get("channel_title")
        or "",
        published_at=published_at or base.published_at or meta.get("published_at"),
        url=given.get("url") or base.url or meta.get("url") or "",
        chapters=chapters
        or parse_chapters(given.get("description"))
        or base.chapters
        or own_chapters
        or parse_chapters(meta.get("description")),
    )


def _title_from(file: Path) -> str:
    """A readable title from a file name when nothing better is known."""
    if is_youtube_id(file.stem):
        return ""
    return printable(file.stem).replace("_", " ").replace("-", " ").strip()[:500]


_SIZE_HINT = (
    "Split the file into parts (one per video or per few hours), or raise "
    "TRANSCRIPT_FILE_BUDGET_SECONDS if it is a real transcript that needs more time."
)


def _message(exc: Exception) -> str:
    """An exception's message on one printable line, bounded."""
    return printable(" ".join(str(exc).split()))[:500]


def _sha256(file: Path) -> str:
    """SHA-256 of the file's bytes (of its first bytes past the size limit: it is refused)."""
    digest = hashlib.sha256()
    with paths.open_regular(file) as handle:  # a FIFO or device is refused, never read
        digest.update(handle.read(MAX_FILE_BYTES + 1))
    return digest.hexdigest()


def _metadata_sha256(given: dict[str, Any], args: dict[str, Any]) -> str:
    """SHA-256 of what the caller says about a file, so a changed `videos` entry re-indexes it."""
    said = {
        "videos": given,
        **{key: args.get(key) for key in ("channel_id", "channel_title", "language")},
        "fetch_metadata": args.get("fetch_metadata"),
    }
    return hashlib.sha256(json.dumps(said, sort_keys=True).encode()).hexdigest()


async def _unchanged(file: Path, stamps: dict[str, str]) -> str | None:
    """The video ID the file (a resolved path) was indexed under when neither it nor the
    metadata given for it changed since; else None."""
    for record in await indexer.file_records(printable(file)):
        if all(record.get(key) == value for key, value in stamps.items()):
            return record["video_id"]
    return None

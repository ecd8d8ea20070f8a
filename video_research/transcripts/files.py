"""Transcript files indexed (index_transcript_files): a file or a directory of them, each
file parsed, checked and indexed on its own (one bad file fails alone, with a reason and a
hint).

The formats are `video_research.transcripts.parsers`'; yt-dlp's `.info.json` beside a
transcript adds its metadata; YouTube IDs get their titles and chapters from the Data API
in batches of METADATA_BATCH. Files whose content and `videos` entry are unchanged are
skipped.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from video_research.knowledge.collections import canonical_date
from video_research.support import paths
from video_research.support.errors import ErrorCategory, ToolFailure, invalid_input
from video_research.support.media_names import caption_language, video_beside
from video_research.transcripts import indexer
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
    identify,
    is_youtube_id,
    printable,
    read_file,
    sidecar_name,
)

if TYPE_CHECKING:
    from video_research.support.schema_types.common.transcripts import Video

logger = logging.getLogger(__name__)

METADATA_BATCH = 50
"""Files parsed before their videos' metadata is looked up (one Data API request, one
quota unit) and indexed; only this many parsed transcripts are held at a time."""


_SUFFIX_LIST = ", ".join(SUPPORTED_SUFFIXES)
_FORMAT_HINT = (
    "Check the file is a transcript: WebVTT, SRT, YouTube srv3/TTML/json3, Whisper TSV or JSON "
    "segments, or Markdown/text whose paragraphs start with [HH:MM:SS]."
)
NOT_TRANSCRIPTS = (".info.json", ".live_chat.json")
"""yt-dlp writes these beside the captions: metadata (read as a sidecar) and chat, not speech."""


@dataclass(frozen=True)
class FileOptions:
    """What the caller says about the files of one index_transcript_files call."""

    videos: Mapping[str, Mapping[str, Any]]
    """Metadata per file, keyed by its path relative to the directory, its name or its stem."""
    channel_id: str | None
    channel_title: str | None
    language: str | None
    fetch_metadata: bool
    """Look up YouTube IDs' titles, channels, dates and chapters in the Data API."""
    force_reindex: bool
    budget_seconds: float
    """Most seconds one file may take to parse and chunk (TRANSCRIPT_FILE_BUDGET_SECONDS)."""


def find(root: Path, given: str, pattern: str, limit: int) -> list[Path]:
    """The transcript files to index: `root` itself when it is a file, else the files of the
    directory matching `pattern` (at most `limit`). `given` is the path as the caller wrote
    it, for the message when nothing is there. Blocking: run it in a thread."""
    if not root.exists():
        raise ToolFailure(
            ErrorCategory.NOT_FOUND,
            f"{paths.explain(given, root)} does not exist.",
            hint=f"Pass a transcript file or a directory of them ({_SUFFIX_LIST}).",
        )
    return _transcript_files(root, pattern, limit)


async def index(
    root: Path,
    files: list[Path],
    options: FileOptions,
    *,
    confine: Callable[[Path], Path],
    progress: indexer.Progress,
) -> FileRun:
    """Index `files` (found under `root`) METADATA_BATCH at a time, each confined again by
    `confine` when read; the run says what each file came to."""
    run = FileRun(root, options, confine, progress)
    await progress(0, len(files), f"{len(files)} transcript file(s) to index")
    for start in range(0, len(files), METADATA_BATCH):
        await run.index(files[start : start + METADATA_BATCH], len(files))
    if run.unlinked:
        shown = ", ".join(run.unlinked[:5]) + (" ..." if len(run.unlinked) > 5 else "")
        run.notes.append(
            f"{len(run.unlinked)} transcript(s) have no video beside them and no YouTube ID, "
            f"so their hits have no link ({shown}). Put the video beside its captions under "
            "the same name (talk.mp4 beside talk.vtt or talk.en.vtt), or give videos[...].url."
        )
    return run


@dataclass
class _Loaded:
    file: Path
    transcript: Transcript
    given: Mapping[str, Any]
    stamps: dict[str, str]
    budget: Budget
    options: FileOptions
    """The call's options with what an earlier call said of this file filled in."""
    video: Path | None = None
    """The video file beside the transcript (same name), which its moments link to."""


class FileRun:
    """One index_transcript_files call: what each file came to, and which video ID which
    file was indexed under (two files with one ID would overwrite each other)."""

    def __init__(
        self,
        root: Path,
        options: FileOptions,
        confine: Callable[[Path], Path],
        progress: indexer.Progress,
    ) -> None:
        self.root = root
        self.options = options
        self.confine = confine
        self.progress = progress
        self.overrides: Mapping[str, Mapping[str, Any]] = options.videos
        self.seen: dict[str, Path] = {}
        self.indexed: list[Video] = []
        self.skipped: list[str] = []
        self.failed: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.unlinked: list[str] = []
        """Files indexed with no video to link to (no video beside them, no YouTube ID)."""
        self.done = 0

    async def _step(self, file: Path, total: int) -> None:
        self.done += 1
        await self.progress(self.done, total, printable(file.name))

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
            records = await indexer.file_records(printable(checked))
            given, options = _kept(given, self.options, records)
            digest = await asyncio.to_thread(_sha256, checked)
            stamps = {
                "source_sha256": digest,
                "metadata_sha256": _metadata_sha256(given, options),
                "given_json": _statements_json(given, options),
            }
            if not self.options.force_reindex:
                video_id = _unchanged(records, stamps)
                if video_id is not None:
                    if self._claim(file, video_id):
                        self.skipped.append(video_id)
                    return None
            sidecar = self._sidecar(file)
            budget = Budget(self.options.budget_seconds)
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
        video = await asyncio.to_thread(self._video, file)
        if given.get("video_id"):
            transcript.video_id = given["video_id"]
        elif video is not None:  # one video, one ID: what index_media_files gives the video
            transcript.video_id = identify(video)["video_id"]
        if video is not None and not transcript.language:
            transcript.language = caption_language(file, video)
        if not self._claim(file, transcript.video_id):
            return None
        return _Loaded(file, transcript, given, stamps, budget, options, video)

    def _video(self, file: Path) -> Path | None:
        """The video beside a caption file, when it is inside the roots. Blocking."""
        video = video_beside(file)
        if video is None:
            return None
        try:
            return self.confine(video)
        except ToolFailure:
            return None

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
        if self.options.fetch_metadata and youtube_ids:
            titled = [i.transcript.video_id for i in loaded if i.transcript.metadata.get("title")]
            infos, note = await indexer.video_infos(youtube_ids, titled=titled)
            self.notes += [note] if note else []
        while loaded:
            item = loaded.pop(0)  # indexed transcripts are let go as the batch goes on
            transcript = item.transcript
            try:
                info = _file_info(item, item.options, infos.get(transcript.video_id))
                if not info.link:
                    self.unlinked.append(printable(item.file.name))
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
            ErrorCategory.NOT_FOUND,
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


def _override(
    overrides: Mapping[str, Mapping[str, Any]], name: str, file: Path
) -> Mapping[str, Any]:
    """The caller's metadata of a file: keyed by its relative path, its name or its stem."""
    return overrides.get(name) or overrides.get(file.name) or overrides.get(file.stem) or {}


def _file_info(
    item: _Loaded, options: FileOptions, fetched: indexer.VideoInfo | None
) -> indexer.VideoInfo:
    """The metadata of a transcript file: the caller's, then the API's, then the file's
    own (its fields, front matter or yt-dlp .info.json), then its name."""
    given, transcript, file = item.given, item.transcript, item.file
    meta = transcript.metadata
    if given.get("language") or not transcript.language:
        transcript.language = given.get("language") or options.language or ""
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
        title=given.get("title")
        or base.title
        or meta.get("title")
        or _title_from(item.video or file, transcript.video_id),
        channel_id=given.get("channel_id")
        or base.channel_id
        or meta.get("channel_id")
        or options.channel_id
        or "",
        channel_title=given.get("channel_title")
        or base.channel_title
        or meta.get("channel_title")
        or options.channel_title
        or "",
        published_at=published_at or base.published_at or meta.get("published_at"),
        url=given.get("url")
        or (item.video.as_uri() if item.video is not None else "")
        or base.url
        or meta.get("url")
        or "",
        chapters=chapters
        or parse_chapters(given.get("description"))
        or base.chapters
        or own_chapters
        or parse_chapters(meta.get("description")),
    )


def _title_from(file: Path, video_id: str) -> str:
    """A readable title from a file name when nothing better is known; none from a name
    that is only the video's ID (`dQw4w9WgXcQ.en.vtt`): an ID is not a title."""
    if is_youtube_id(file.stem) or (is_youtube_id(video_id) and file.stem.startswith(video_id)):
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


def _metadata_sha256(given: Mapping[str, Any], options: FileOptions) -> str:
    """SHA-256 of what the caller says about a file, so a changed `videos` entry re-indexes it.

    Stored with each indexed file: the same statements must always hash the same."""
    said = {
        "videos": given,
        "channel_id": options.channel_id,
        "channel_title": options.channel_title,
        "language": options.language,
        "fetch_metadata": options.fetch_metadata,
    }
    return hashlib.sha256(json.dumps(said, sort_keys=True).encode()).hexdigest()


def _unchanged(records: list[dict[str, Any]], stamps: dict[str, str]) -> str | None:
    """The video ID the file was indexed under (`records`: its stored videos) when neither
    it nor the metadata given for it changed since; else None."""
    compared = ("source_sha256", "metadata_sha256")  # given_json is what they hash
    for record in records:
        if all(record.get(key) == stamps[key] for key in compared):
            return record["video_id"]
    return None


_STATED_OPTIONS = ("channel_id", "channel_title", "language")


def _statements_json(given: Mapping[str, Any], options: FileOptions) -> str:
    """What the caller said of a file (its `videos` entry, and the call's channel and
    language), stored with it so a later call that leaves them out keeps them."""
    said = {"videos": given, **{k: getattr(options, k) for k in _STATED_OPTIONS}}
    return json.dumps({k: v for k, v in said.items() if v}, sort_keys=True, ensure_ascii=False)


def _kept(
    given: Mapping[str, Any], options: FileOptions, records: list[dict[str, Any]]
) -> tuple[Mapping[str, Any], FileOptions]:
    """(`videos` entry, options) of a file with what an earlier call said of it filled in
    where this call is silent: a field left out keeps its stored value; a field given
    (an empty string or list included) replaces it (docs/updates.md)."""
    earlier: dict[str, Any] = {}
    for record in records:
        try:
            earlier = json.loads(record.get("given_json") or "{}")
        except ValueError:
            continue
        if earlier:
            break
    if not isinstance(earlier, dict) or not earlier:
        return given, options
    stored = earlier.get("videos")
    if not isinstance(stored, dict):
        stored = {}
    merged = {**stored, **given}
    filled = {
        key: earlier[key]
        for key in _STATED_OPTIONS
        if getattr(options, key) is None and isinstance(earlier.get(key), str)
    }
    return merged, replace(options, **filled) if filled else options

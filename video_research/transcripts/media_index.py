"""Speech into the transcript index (index_media_files): local audio and video files, and
YouTube or direct media URLs, transcribed when they have no usable captions and indexed
exactly like caption files, with `source: "speech"` and the model recorded.

The speech engine and the downloader live in `video_research.media`; this package may not
import another domain package, so the handler hands them in (`MediaTools`). What this
module owns is the batch: which items to do, captions before speech for YouTube, one
item's failure never stopping the rest, progress per item and per percent of media
duration, and the rule that an interrupted run leaves no half-written video: an item's
transcript is written in one step (`indexer.index_transcript`: chunks swapped in one
`replace_where`, then the record) shielded from cancellation, so a cancel lands either
before an item's write starts or after it ends, and a re-run redoes the item whole.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from video_research.support import paths
from video_research.support.errors import ErrorCategory, ToolFailure, invalid_input
from video_research.support.media_names import VIDEO_SUFFIXES, caption_language, captions_beside
from video_research.support.progress import Stages
from video_research.transcripts import chapter_files, indexer
from video_research.transcripts.chunker import Chapter
from video_research.transcripts.media_progress import ItemProgress, clock
from video_research.transcripts.parsers import Cue, TranscriptFormatError
from video_research.transcripts.screen import record_screen_only
from video_research.transcripts.sources import (
    Transcript,
    TranscriptUnavailable,
    failure_item,
    fetch_youtube,
    identify,
    printable,
    read_file,
)

if TYPE_CHECKING:
    from video_research.support.schema_types.common.transcripts import Video

logger = logging.getLogger(__name__)


class MediaFailure(ToolFailure):
    """One media item could not be transcribed; `reason` is the batch's failure reason."""

    def __init__(
        self,
        reason: str,
        message: str,
        *,
        hint: str = "",
        category: ErrorCategory = ErrorCategory.UNSUPPORTED_FORMAT,
        retryable: bool = False,
    ) -> None:
        super().__init__(category, message, hint=hint or None, retryable=retryable)
        self.reason = reason


@dataclass(frozen=True)
class Fetched:
    """A downloaded media file and what the download learnt about the video."""

    path: Path
    info: indexer.VideoInfo


Transcribe = Callable[[Path, Callable[[float], None]], Awaitable[dict[str, Any]]]
"""(file, on_progress(seconds done)) -> {"language", "duration", "model", "segments"};
raises MediaFailure for the file, a config_error ToolFailure when no file can be done."""
Download = Callable[[str, Path], Awaitable[Fetched]]
"""(url, folder) -> the media file downloaded into the folder."""
Progress = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass(frozen=True)
class Shown:
    """What reading a video's pictures gave: screen chunks written (0 for audio or a video
    with no text on screen), and its scene cuts (seconds), which no speech moment spans."""

    chunks: int = 0
    cuts: tuple[float, ...] = ()


Measured = dict[str, Any]
"""What a media file holds against what it claims: {"complete", "seconds_read",
"seconds_claimed" (the file's one duration), "note" (for the agent; None when whole)}."""

ScreenText = Callable[
    [Path, indexer.VideoInfo, "ItemProgress", "Measured | None"], Awaitable[Shown]
]
"""(file, the video it is indexed as, its progress: stages "scenes", "screen text" and
"index screen text", what the file holds) -> what its pictures gave; raises ToolFailure
when the pictures cannot be read."""


@dataclass(frozen=True)
class MediaTools:
    """What the handler hands in: the speech engine, the downloader, and the model label
    recorded with each transcript (a change of model re-indexes unchanged files)."""

    transcribe: Transcribe
    download: Download
    model: str
    measure: Callable[[Path], Awaitable[Measured | None]]
    """What the file holds against what it claims (`Measured`): its duration, for progress
    and the record, and whether a download cut it short; None when it cannot be read."""
    url_id: Callable[[str], str]
    """The video ID a direct media URL is indexed under (known before downloading it)."""
    screen_text: ScreenText | None = None
    """Reads a local file's on-screen text into the index as `screen` evidence beside its
    speech; None when the call asked for speech only."""
    speakers: str = ""
    """The speaker pass's label when it runs (part of the settings a transcript depends
    on: files indexed before it gain speakers when indexed again); empty when off."""
    chapters: Callable[[Path], Awaitable[list[tuple[float, str]]]] | None = None
    """The chapters in a media file's container ((start, title), [] when none)."""


@dataclass(frozen=True)
class MediaOptions:
    language: str
    """Language the speech is in; empty: detected per file."""
    speech: str
    """fallback (YouTube captions first) or always (transcribe even with captions)."""
    force_reindex: bool
    caption_languages: list[str] | None
    scratch: Path
    """Where downloads go for the length of one item."""


@dataclass
class MediaRun:
    """What each item of one index_media_files call came to."""

    indexed: list[Video] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    speech_seconds: float = 0.0
    transcribed: int = 0
    screen_chunks: int = 0


def find_media(
    root: Path, given: str, pattern: str, suffixes: tuple[str, ...], limit: int
) -> list[Path]:
    """The media files to index: `root` when it is a file, else the directory's files
    matching `pattern` with a media suffix. Blocking: run it in a thread."""
    if not root.exists():
        raise ToolFailure(
            ErrorCategory.NOT_FOUND,
            f"{given} does not exist.",
            hint="Pass a media file or a directory of them, under VIDEO_RESEARCH_FILE_ROOTS.",
        )
    if not root.is_dir():
        return [root]
    paths.check_glob(pattern)
    files = sorted(
        p for p in root.glob(pattern) if p.suffix.lower() in suffixes and paths.is_listed_file(p)
    )
    if len(files) > limit:
        raise invalid_input(
            f"{len(files)} media files match in {printable(root)}, more than max_files ({limit}).",
            hint="Raise max_files or narrow glob_pattern.",
        )
    return files


async def index_media(
    files: list[Path],
    urls: list[str],
    options: MediaOptions,
    tools: MediaTools,
    progress: Progress,
    confine: Callable[[Path], Path],
) -> MediaRun:
    """Transcribe and index `files` (each confined again by `confine` when read: a link in
    a directory may point out of the roots) and `urls`, one at a time."""
    run = MediaRun()
    total = len(files) + len(urls)
    async with Stages(progress, total) as stages:
        await stages.send(0, f"{total} media item(s) to index")
        for done, file in enumerate(files):
            try:
                checked = confine(file)
            except ToolFailure as failure:
                run.failed.append(failure_item(failure, "forbidden", file=printable(file)))
                continue
            plan = _plan(tools)
            item = ItemProgress(stages, done, total, printable(file.name), plan)
            await _one_file(checked, options, tools, run, item, confine)
            await stages.send(done + 1, f"{printable(file.name)} ({done + 1}/{total}): done")
        for done, url in enumerate(urls, start=len(files)):
            plan = ("download", "probe", "speech", "index speech")
            item = ItemProgress(stages, done, total, url[:200], plan)
            await _one_url(url, options, tools, run, item)
            await stages.send(done + 1, f"{url[:200]} ({done + 1}/{total}): done")
    return run


def _plan(tools: MediaTools) -> tuple[str, ...]:
    """The stages a local file may go through, in their order: its pictures first (their
    scene cuts bound the speech's moments; read when the call asks, skipped by an audio
    file, whose progress steps from its probe to its speech), then its speech."""
    spoken = ("speech", "index speech")
    if tools.screen_text is None:
        return ("probe", *spoken)
    return ("probe", "scenes", "screen text", "index screen text", *spoken)


# ----------------------------------------------------------------------------- one item


async def _one_file(
    file: Path,
    options: MediaOptions,
    tools: MediaTools,
    run: MediaRun,
    report: ItemProgress,
    confine: Callable[[Path], Path],
) -> None:
    name = printable(file.name)
    await report.stage("probe", "checking the file")
    try:
        digest = await asyncio.to_thread(_sha256, file)
    except (ToolFailure, OSError) as exc:
        reason = "unreadable"
        message = exc.message if isinstance(exc, ToolFailure) else f"{name}: {exc}"
        run.failed.append(
            _item(reason, message, "Check the file can be read.", file=printable(file))
        )
        return
    video_id = identify(file)["video_id"]
    title = identify(file).get("title") or _title_from(file)
    # the file itself is the link: a hit opens it at its moment (#t=), and media_frames
    # takes that link to show the frame
    info = indexer.VideoInfo(video_id, title=title, url=file.as_uri())
    info.chapters = await _file_chapters(file, tools, confine)
    if options.speech != "always" and file.suffix.lower() in VIDEO_SUFFIXES:
        captions = await asyncio.to_thread(_captions_of, file, options, confine)
        if captions is not None:
            media = await _measure(file, tools, run, report, name)
            await _index_captions(file, captions, digest, info, options, tools, run, report, media)
            return
    stamps = {
        "source_sha256": digest,
        "metadata_sha256": _settings_sha256(tools.model, options.language, tools.speakers),
        "speech_model": tools.model,
    }
    if not options.force_reindex:
        if await _unchanged(file, stamps):
            run.skipped.append(video_id)
            return
        existing = await indexer.get_video(video_id)
        if (
            existing
            and existing.get("source") not in (indexer.SPEECH, indexer.SCREEN)
            and options.speech != "always"
        ):
            run.skipped.append(video_id)
            run.notes.append(
                f"{video_id} already has a {existing.get('source')} transcript; "
                'speech: "always" or force_reindex replaces it with speech.'
            )
            return
    media = await _measure(file, tools, run, report, name)
    # The pictures first: their scene cuts bound the speech's moments. Whatever becomes
    # of the speech, a slide deck recorded without a voice is found by its slides.
    shown = await _read_screen_text(file, info, tools, run, name, report, media)
    spoken = await _transcribe_and_index(
        file,
        info,
        options,
        tools,
        run,
        report,
        stamps,
        source_path=printable(file),
        cuts=shown.cuts,
        media=media,
        file=name,
    )
    if shown.chunks and not spoken:
        await _record_screen_only(file, info, shown.chunks, run, stamps, name, media)


async def _measure(
    file: Path, tools: MediaTools, run: MediaRun, report: ItemProgress, name: str
) -> Measured | None:
    """What `file` holds against what it claims; a file cut short is noted for the agent,
    and its progress counts to where it ends."""
    await report.stage("probe", "reading its length")
    media = await tools.measure(file)
    if media is None:
        return None
    report.duration = media["seconds_claimed"] if media["complete"] else media["seconds_read"]
    if not media["complete"] and media.get("note"):
        run.notes.append(f"{name}: {media['note']}")
    return media


async def _file_chapters(
    file: Path, tools: MediaTools, confine: Callable[[Path], Path]
) -> list[Chapter]:
    """The chapters someone made for a local file: a chapter file beside it first (written
    for this video on purpose), else the container's own."""
    written = await asyncio.to_thread(chapter_files.beside, file, confine)
    if written:
        return written
    if tools.chapters is None:
        return []
    own = await tools.chapters(file)
    return [Chapter(start, title, "container", ("container",)) for start, title in own]


def _captions_of(file: Path, options: MediaOptions, confine: Callable[[Path], Path]) -> Path | None:
    """The caption file beside a video (same name, yt-dlp's language tag allowed) that is
    its transcript, inside the roots; None when it has none. Blocking."""
    for caption in captions_beside(file, options.caption_languages or ()):
        try:
            return confine(caption)
        except ToolFailure:
            continue  # a link out of the roots is not read
    return None


async def _index_captions(
    file: Path,
    caption: Path,
    digest: str,
    info: indexer.VideoInfo,
    options: MediaOptions,
    tools: MediaTools,
    run: MediaRun,
    report: ItemProgress,
    media: Measured | None = None,
) -> None:
    """A video with captions beside it: the captions are its transcript (they win over
    speech recognition: a person or YouTube timed them), linked to the video, and the
    video's on-screen text is read beside them. Unchanged video and captions are skipped;
    captions indexed before by index_transcript_files are indexed again as the video's,
    with its pictures."""
    name = printable(file.name)
    captioned = printable(caption.name)
    try:
        caption_digest = await asyncio.to_thread(_sha256, caption)
        stamps = {
            "source_sha256": caption_digest,
            "metadata_sha256": _captions_sha256(digest, tools.screen_text is not None),
        }
        existing = await indexer.get_video(info.video_id)
        if (
            not options.force_reindex
            and existing
            and existing.get("source_path") == printable(caption)
            and all(existing.get(key) == value for key, value in stamps.items())
        ):
            run.skipped.append(info.video_id)
            return
        transcript = await asyncio.to_thread(read_file, caption)
    except (ToolFailure, TranscriptFormatError, OSError) as exc:
        message = exc.message if isinstance(exc, ToolFailure) else str(exc)
        run.failed.append(
            _item(
                "unreadable",
                f"{name}: its captions {captioned} could not be read ({message}).",
                'Fix or remove the caption file, or pass speech: "always" to transcribe the '
                "video instead.",
                file=printable(file),
                video_id=info.video_id,
            )
        )
        return
    if not transcript.cues:
        run.failed.append(
            _item(
                "unreadable",
                f"{name}: its captions {captioned} hold no cues.",
                'Fix or remove the caption file, or pass speech: "always".',
                file=printable(file),
                video_id=info.video_id,
            )
        )
        return
    transcript.video_id = info.video_id
    transcript.language = transcript.language or caption_language(caption, file) or options.language
    info.title = transcript.metadata.get("title") or info.title
    shown = await _read_screen_text(file, info, tools, run, name, report, media)
    try:
        run.indexed.append(await _write(transcript, info, stamps, shown.cuts, media))
    except ToolFailure as failure:
        if failure.category is ErrorCategory.CONFIG_ERROR:
            raise
        run.failed.append(failure_item(failure, "error", video_id=info.video_id, file=name))
        return
    run.notes.append(
        f'{name}: speech from its captions {captioned} (speech: "always" transcribes it).'
    )


async def _read_screen_text(
    file: Path,
    info: indexer.VideoInfo,
    tools: MediaTools,
    run: MediaRun,
    name: str,
    report: ItemProgress,
    media: Measured | None = None,
) -> Shown:
    """What `file`'s pictures gave (nothing when not asked for, or unreadable)."""
    if tools.screen_text is None:
        return Shown()
    try:
        shown = await tools.screen_text(file, info, report, media)
    except ToolFailure as failure:
        if failure.category is ErrorCategory.CONFIG_ERROR:
            raise
        run.notes.append(f"{name}: its on-screen text was not read: {failure.message}")
        return Shown()
    run.screen_chunks += shown.chunks
    return shown


SILENT = ("no_audio", "no_transcript")
"""Speech failures that only mean there was nothing to hear."""


async def _record_screen_only(
    file: Path,
    info: indexer.VideoInfo,
    chunk_count: int,
    run: MediaRun,
    stamps: dict[str, str],
    name: str,
    media: Measured | None = None,
) -> None:
    """A video with on-screen text and nothing to hear is indexed all the same: it gets a
    `source: "screen"` record (so get_indexed_videos lists it and an unchanged file is
    skipped next time), and its silence is a note, not a failure."""
    last = run.failed[-1] if run.failed else {}
    if last.get("video_id") != info.video_id or last.get("reason") not in SILENT:
        return  # the speech failed for a reason of its own: it stays a failure
    existing = await indexer.get_video(info.video_id)
    if existing and existing.get("source") != indexer.SCREEN:
        return  # speech indexed before stays (its chunks too); this run's silence is reported
    run.failed.pop()
    run.notes.append(f"{name}: nothing to hear ({last['reason']}); indexed by its on-screen text.")
    with anyio.CancelScope(shield=True):
        run.indexed.append(
            await record_screen_only(
                info, chunk_count, source_path=printable(file), stamps=stamps, media=media
            )
        )


async def _one_url(
    url: str, options: MediaOptions, tools: MediaTools, run: MediaRun, report: ItemProgress
) -> None:
    from video_research.support.youtube_urls import parse_video_id

    youtube_id: str | None = None
    try:
        youtube_id = parse_video_id(url) if "youtu" in url.lower() else None
    except ToolFailure:
        youtube_id = None
    captions_note = ""
    await report.stage("download", "looking for captions" if youtube_id else "downloading")
    if youtube_id and not options.force_reindex:
        existing = await indexer.get_video(youtube_id)
        if existing and existing.get("source") != indexer.SCREEN:  # screen only: no speech yet
            run.skipped.append(youtube_id)
            return
    if youtube_id and options.speech == "fallback":
        try:
            transcript = await fetch_youtube(youtube_id, options.caption_languages)
            infos, _ = await indexer.video_infos([youtube_id])
            run.indexed.append(await _write(transcript, infos[youtube_id], None))
            return
        except TranscriptUnavailable as failure:
            captions_note = f" (captions: {failure.reason})"
    if not youtube_id and not options.force_reindex:
        video_id = tools.url_id(url)
        existing = await indexer.get_video(video_id)
        if existing and existing.get("speech_model") == tools.model:
            run.skipped.append(video_id)  # indexed before with this model: not downloaded
            return
    folder = options.scratch / f"item-{time.monotonic_ns()}"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        await report.stage("download", "downloading")
        try:
            fetched = await tools.download(url, folder)
        except ToolFailure as failure:
            if failure.category is ErrorCategory.CONFIG_ERROR:
                raise
            run.failed.append(
                failure_item(failure, "download", video_id=youtube_id or url[:200])
                | {"error": failure.message + captions_note}
            )
            return
        # a YouTube video's link is made from its ID, never the URL it was asked by
        info = replace(fetched.info, url="") if youtube_id else fetched.info
        stamps = {"speech_model": tools.model}
        await _transcribe_and_index(
            fetched.path, info, options, tools, run, report, stamps, source_path=None
        )
        if captions_note and run.indexed and run.indexed[-1]["video_id"] == info.video_id:
            run.notes.append(f"{info.video_id}: no usable captions{captions_note}; transcribed.")
    finally:
        await asyncio.to_thread(_remove_tree, folder)


async def _transcribe_and_index(
    media_file: Path,
    info: indexer.VideoInfo,
    options: MediaOptions,
    tools: MediaTools,
    run: MediaRun,
    report: ItemProgress,
    stamps: dict[str, str],
    *,
    source_path: str | None,
    cuts: tuple[float, ...] = (),
    media: Measured | None = None,
    **where: str,
) -> bool:
    """Transcribe `media_file` and index its speech: True when indexed, False when it failed
    (the failure is the last item of `run.failed`). `media`: the file measured before
    (measured here when not)."""
    name = printable(media_file.name) if source_path else info.video_id
    if media is None:
        media = await _measure(media_file, tools, run, report, name)
    duration = report.duration
    await report.stage("speech", f"0% of {clock(duration or 0)} transcribed")
    try:
        result = await tools.transcribe(
            media_file, lambda seconds: report.media(seconds, "transcribed")
        )
    except MediaFailure as failure:
        run.failed.append(failure_item(failure, failure.reason, video_id=info.video_id, **where))
        return False
    except ToolFailure as failure:
        if failure.category is ErrorCategory.CONFIG_ERROR:
            raise  # the model cannot load: every item would fail alike
        run.failed.append(failure_item(failure, "error", video_id=info.video_id, **where))
        return False
    heard = float(result.get("duration") or 0.0)
    report.media(heard, "transcribed", duration or heard)
    await report.stages.flush()
    run.transcribed += 1
    run.speech_seconds += float(result.get("duration") or 0.0)
    cues = [Cue.from_dict(s) for s in result["segments"] if s["text"]]
    if result.get("speaker_note"):
        run.notes.append(result["speaker_note"])
    if not cues:
        run.failed.append(
            _item(
                "no_transcript",
                f"{name}: no speech was recognised in {clock(result.get('duration') or 0)}.",
                "The recording may be silent or music only; set SPEECH_LANGUAGE if the "
                "language was misdetected.",
                video_id=info.video_id,
                **where,
            )
        )
        return False
    transcript = Transcript(
        video_id=info.video_id,
        cues=cues,
        language=result.get("language") or options.language or "",
        is_generated=True,
        source="speech",
        source_path=source_path or "",
    )
    await report.stage("index speech", f"indexing {len(cues)} spoken segments")
    try:
        run.indexed.append(await _write(transcript, info, stamps, cuts, media))
    except ToolFailure as failure:
        if failure.category is ErrorCategory.CONFIG_ERROR:
            raise
        run.failed.append(failure_item(failure, "error", video_id=info.video_id, **where))
        return False
    return True


async def _write(
    transcript: Transcript,
    info: indexer.VideoInfo,
    stamps: dict[str, str] | None,
    cuts: tuple[float, ...] = (),
    media: Measured | None = None,
) -> Video:
    """Index one transcript whole: shielded, so a cancel never splits chunks and record."""
    with anyio.CancelScope(shield=True):
        written = await indexer.index_transcript(
            transcript, info, stamps=stamps, cuts=cuts, media=media
        )
    return written


# ----------------------------------------------------------------------------- helpers


def _item(reason: str, error: str, hint: str, **where: str) -> dict[str, Any]:
    return {**where, "reason": reason, "error": error, "hint": hint, "retryable": False}


def _sha256(file: Path) -> str:
    """SHA-256 of the media file (FIFOs and devices refused, never read)."""
    with paths.open_regular(file) as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _captions_sha256(video_sha256: str, screen_text: bool) -> str:
    """What a caption-indexed video depends on besides its captions: the video's bytes
    and whether its pictures were read."""
    said = {"captions_for": video_sha256, "screen_text": screen_text}
    return hashlib.sha256(json.dumps(said, sort_keys=True).encode()).hexdigest()


def _settings_sha256(model: str, language: str, speakers: str = "") -> str:
    """What a transcript depends on besides the file: a change re-transcribes it."""
    said = {"speech_model": model, "language": language}
    if speakers:  # absent when off: the hashes of stores indexed before stay valid
        said["speakers"] = speakers
    return hashlib.sha256(json.dumps(said, sort_keys=True).encode()).hexdigest()


async def _unchanged(file: Path, stamps: dict[str, str]) -> bool:
    for record in await indexer.file_records(printable(file)):
        if all(record.get(key) == value for key, value in stamps.items()):
            return True
    return False


def _title_from(file: Path) -> str:
    return printable(file.stem).replace("_", " ").replace("-", " ").strip()[:500]


def _remove_tree(folder: Path) -> None:
    import shutil

    shutil.rmtree(folder, ignore_errors=True)

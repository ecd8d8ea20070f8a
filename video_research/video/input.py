"""Where a video comes from: a YouTube URL or a local file, how much of it to show, and
how Gemini gets to see it.

A YouTube URL goes to Gemini as a `file_data` part (Gemini fetches the video itself).
A local file under 20 MB travels inline with the request; a larger one goes through the
File API first, uploaded once per content and reused while the
upload lives (gemini_files.ensure_uploaded). The content id — YouTube video id or the
file's SHA-256 prefix — keys the analysis cache, so renaming a file does not lose its
cache.

`Sampling` is the clip and sampling a call asked for (start_offset, end_offset, fps,
media_resolution): sent as Gemini VideoMetadata on the video part and media_resolution in
the generation config, and part of every cache key.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import files as gemini_files
from video_research.support import paths
from video_research.support.errors import ErrorCategory, ToolFailure, invalid_input
from video_research.support.youtube_urls import normalize_youtube_url, parse_video_id

if TYPE_CHECKING:
    from video_research.support.schema_types.common.gemini import MediaResolution
    from video_research.support.schema_types.common.gemini import Sampling as SamplingJson

INLINE_LIMIT_BYTES = 20 * 1024 * 1024

VIDEO_MIME_TYPES: dict[str, str] = {
    ".mp4": "video/mp4",
    ".m4v": "video/mp4",
    ".webm": "video/webm",
    ".mov": "video/quicktime",
    ".avi": "video/x-msvideo",
    ".mkv": "video/x-matroska",
    ".mpeg": "video/mpeg",
    ".mpg": "video/mpeg",
    ".wmv": "video/x-ms-wmv",
    ".flv": "video/x-flv",
    ".3gp": "video/3gpp",
    ".3gpp": "video/3gpp",
}


@dataclass(frozen=True)
class VideoSource:
    kind: Literal["youtube", "file"]
    source: str
    """The normalised YouTube URL, or the resolved file path."""
    content_id: str
    path: Path | None = None
    mime_type: str = "video/mp4"
    size: int = 0
    sha256: str = ""
    """The whole file's SHA-256 (files only): what upload reuse is keyed by."""

    @property
    def label(self) -> str:
        return self.path.name if self.path else self.source


def check_video_file(path: Path, file_path: str) -> Path:
    """`path` (already resolved and confined) if it is a readable, supported video file."""
    if not path.exists():
        raise ToolFailure(
            ErrorCategory.NOT_FOUND, f"No such file: {paths.explain(file_path, path)}"
        )
    paths.check_regular(path)  # a FIFO or device named like a video is never read
    if path.suffix.lower() not in VIDEO_MIME_TYPES:
        supported = ", ".join(sorted(VIDEO_MIME_TYPES))
        raise ToolFailure(
            ErrorCategory.UNSUPPORTED_FORMAT,
            f"Unsupported video extension {path.suffix or '(none)'!r} for {path.name}.",
            hint=f"Use one of: {supported}.",
        )
    return path


async def from_file(file_path: str, ctx: Any = None) -> VideoSource:
    """A local video, after checking it lies under the allowed roots (paths.confine)."""
    path = check_video_file(await paths.confine(file_path, ctx), file_path)
    size = path.stat().st_size
    if size == 0:
        raise ToolFailure(
            ErrorCategory.UNSUPPORTED_FORMAT,
            f"{path.name} is empty.",
            hint="Pass a real video file.",
        )
    digest = await asyncio.to_thread(gemini_files.sha256_of, path)
    return VideoSource(
        kind="file",
        source=paths.printable(path),  # a name that is not UTF-8 shown as \xNN
        content_id=digest[:16],
        path=path,
        mime_type=VIDEO_MIME_TYPES[path.suffix.lower()],
        size=size,
        sha256=digest,
    )


_LOCAL_PATH = re.compile(r"^(file:|/|~|\.{1,2}[/\\]|[A-Za-z]:[/\\]|\\\\)")


def looks_like_local_path(url: str) -> bool:
    """A file path (or file: URL) sent where a web address belongs: `/srv/talk.mp4`,
    `~/talk.mp4`, `./talk.mp4`, `C:\\talk.mp4`, or `videos/talk.mp4` with no scheme."""
    text = url.strip()
    if _LOCAL_PATH.match(text):
        return True
    return "://" not in text and Path(text.split("?")[0]).suffix.lower() in VIDEO_MIME_TYPES


def from_url(url: str) -> VideoSource:
    if looks_like_local_path(url):
        raise invalid_input(
            f"url: {url[:200]!r} is a local file path, not a web address.",
            hint="Pass a video file on the server's machine as file_path instead of url "
            '(for example {"file_path": "/videos/talk.mp4"}); url takes a YouTube link.',
        )
    return VideoSource(
        kind="youtube", source=normalize_youtube_url(url), content_id=parse_video_id(url)
    )


async def resolve(url: str | None, file_path: str | None, ctx: Any = None) -> VideoSource:
    """The one video a call names: exactly one of url and file_path."""
    if bool(url) == bool(file_path):
        raise invalid_input(
            "Pass exactly one of url or file_path.",
            hint="url takes a YouTube link; file_path a video file on the server's machine.",
        )
    return from_url(url) if url else await from_file(file_path or "", ctx)


async def uploaded(source: VideoSource) -> gemini_files.UploadedFile:
    """The File API file holding a local video (an earlier upload when it still lives)."""
    assert source.path is not None
    return await gemini_files.ensure_uploaded(
        source.path, source.mime_type, sha256=source.sha256 or None
    )


async def video_part(
    source: VideoSource, *, upload: bool = False, sampling: Sampling | None = None
) -> Any:
    """The Gemini part showing this video: file_data for YouTube, inline or uploaded for
    files, clipped and sampled by `sampling`.

    `upload=True` forces the File API (sessions, caches and batches refer to one upload).
    """
    metadata = sampling.video_metadata() if sampling else None
    if source.kind == "youtube":
        return gemini.with_video_metadata(gemini.youtube_part(source.source), metadata)
    assert source.path is not None
    if not upload and source.size < INLINE_LIMIT_BYTES:
        data = await asyncio.to_thread(source.path.read_bytes)
        return gemini.with_video_metadata(gemini.bytes_part(data, source.mime_type), metadata)
    file = await uploaded(source)
    return gemini.with_video_metadata(gemini.file_uri_part(file.uri, file.mime_type), metadata)


# ----------------------------------------------------------------------------- sampling

MAX_OFFSET_SECONDS = 48 * 3600
_SECONDS = re.compile(r"^(\d+(?:\.\d+)?)s?$")
_CLOCK = re.compile(r"^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)$")


def parse_offset(value: Any, name: str) -> float:
    """Seconds from 90, 90.5, "90", "90s", "1:30" (MM:SS) or "01:02:03.5" (HH:MM:SS)."""
    if isinstance(value, bool):
        raise invalid_input(f"{name} must be seconds or HH:MM:SS, not a boolean.")
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip()
        seconds_match = _SECONDS.match(text)
        clock_match = _CLOCK.match(text)
        if seconds_match:
            seconds = float(seconds_match.group(1))
        elif clock_match:
            hours, minutes, secs = clock_match.groups()
            if hours is not None and int(minutes) >= 60:
                raise invalid_input(
                    f"{name} {value!r}: minutes must be below 60 in HH:MM:SS.",
                    hint='Write 1 h 30 min as "1:30:00", or give seconds: 5400.',
                )
            if float(secs) >= 60:
                raise invalid_input(
                    f"{name} {value!r}: seconds must be below 60 in MM:SS or HH:MM:SS.",
                    hint='Write 90 s as "1:30", or give seconds: 90.',
                )
            seconds = int(hours or 0) * 3600 + int(minutes) * 60 + float(secs)
        else:
            raise invalid_input(
                f"{name} {value!r} is not a position in the video.",
                hint='Give seconds (90, 90.5, "90s") or a time ("1:30", "01:02:03").',
            )
    else:
        raise invalid_input(f"{name} must be seconds or HH:MM:SS.")
    if not math.isfinite(seconds) or seconds < 0:
        raise invalid_input(f"{name} must be a position at or after 0 seconds.")
    if seconds > MAX_OFFSET_SECONDS:
        raise invalid_input(
            f"{name} {value!r} is beyond {MAX_OFFSET_SECONDS // 3600} hours.",
            hint="Check the offset; no video Gemini accepts is that long.",
        )
    return round(seconds, 3)


def _number(seconds: float) -> str:
    return f"{seconds:g}"


@dataclass(frozen=True)
class Sampling:
    """A clip (start/end in seconds), a frame rate and a media resolution; all optional."""

    start: float | None = None
    end: float | None = None
    fps: float | None = None
    media_resolution: MediaResolution | None = None

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> Sampling:
        """The sampling a tool call asked for; invalid_input for an impossible clip."""
        start = args.get("start_offset")
        end = args.get("end_offset")
        fps = args.get("fps")
        made = cls(
            start=None if start is None else parse_offset(start, "start_offset"),
            end=None if end is None else parse_offset(end, "end_offset"),
            fps=None if fps is None else float(fps),
            media_resolution=args.get("media_resolution"),
        )
        if made.fps is not None and not (0 < made.fps <= 24):
            raise invalid_input(
                f"fps {fps!r} is out of range: Gemini samples above 0 and at most 24 frames per second."
            )
        if made.start is not None and made.end is not None and made.end <= made.start:
            raise invalid_input(
                f"end_offset ({_number(made.end)} s) must be after start_offset ({_number(made.start)} s).",
                hint="Swap them, or leave end_offset out to analyse to the end of the video.",
            )
        if made.end is not None and made.end == 0:
            raise invalid_input("end_offset must be after the start of the video (above 0).")
        return made

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Sampling:
        data = data or {}
        return cls(
            start=data.get("start_seconds"),
            end=data.get("end_seconds"),
            fps=data.get("fps"),
            media_resolution=data.get("media_resolution"),
        )

    def to_json(self) -> SamplingJson:
        """What was asked for, in the shape tool results report it (empty = whole video)."""
        out: SamplingJson = {}
        if self.start is not None:
            out["start_seconds"] = self.start
        if self.end is not None:
            out["end_seconds"] = self.end
        if self.fps is not None:
            out["fps"] = self.fps
        if self.media_resolution is not None:
            out["media_resolution"] = self.media_resolution
        return out

    @property
    def is_default(self) -> bool:
        return not self.to_json()

    def video_metadata(self) -> dict[str, Any] | None:
        """Gemini VideoMetadata fields (offsets as durations, "12.5s"), or None."""
        meta: dict[str, Any] = {}
        if self.start is not None:
            meta["start_offset"] = f"{_number(self.start)}s"
        if self.end is not None:
            meta["end_offset"] = f"{_number(self.end)}s"
        if self.fps is not None:
            meta["fps"] = self.fps
        return meta or None

    def tag(self) -> str:
        """A stable text of the sampling for cache keys and knowledge ids ("" = default)."""
        if self.is_default:
            return ""
        parts = [
            f"start={_number(self.start)}" if self.start is not None else "",
            f"end={_number(self.end)}" if self.end is not None else "",
            f"fps={_number(self.fps)}" if self.fps is not None else "",
            f"res={self.media_resolution}" if self.media_resolution else "",
        ]
        return ";".join(p for p in parts if p)

    @property
    def seconds(self) -> float | None:
        """The clip's length when both ends are known."""
        if self.start is not None and self.end is not None:
            return self.end - self.start
        if self.end is not None:
            return self.end
        return None

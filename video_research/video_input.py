"""Where a video comes from: a YouTube URL or a local file, and how Gemini gets to see it.

A YouTube URL goes to Gemini as a `file_data` part (Gemini fetches the video itself).
A local file under 20 MB travels inline with the request; a larger one goes through the
File API first (seed 000 section 11). The content id — YouTube video id or the file's
SHA-256 prefix — keys the analysis cache, so renaming a file does not lose its cache.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from video_research import gemini, paths
from video_research.errors import ErrorCategory, ToolFailure, invalid_input
from video_research.youtube_urls import normalize_youtube_url, parse_video_id

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

    @property
    def label(self) -> str:
        return self.path.name if self.path else self.source


def _sha256_prefix(path: Path) -> str:
    digest = hashlib.sha256()
    with paths.open_regular(path) as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def check_video_file(path: Path, file_path: str) -> Path:
    """`path` (already resolved and confined) if it is a readable, supported video file."""
    if not path.exists():
        raise ToolFailure(ErrorCategory.FILE_NOT_FOUND, f"No such file: {file_path}")
    paths.check_regular(path)  # a FIFO or device named like a video is never read
    if path.suffix.lower() not in VIDEO_MIME_TYPES:
        supported = ", ".join(sorted(VIDEO_MIME_TYPES))
        raise ToolFailure(
            ErrorCategory.FILE_UNSUPPORTED,
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
            ErrorCategory.FILE_UNSUPPORTED, f"{path.name} is empty.", hint="Pass a real video file."
        )
    content_id = await asyncio.to_thread(_sha256_prefix, path)
    return VideoSource(
        kind="file",
        source=paths.printable(path),  # a name that is not UTF-8 shown as \xNN
        content_id=content_id,
        path=path,
        mime_type=VIDEO_MIME_TYPES[path.suffix.lower()],
        size=size,
    )


def from_url(url: str) -> VideoSource:
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


async def video_part(source: VideoSource, *, upload: bool = False) -> Any:
    """The Gemini part showing this video: file_data for YouTube, inline or uploaded for files.

    `upload=True` forces the File API (sessions reuse one upload across turns).
    """
    if source.kind == "youtube":
        return gemini.youtube_part(source.source)
    assert source.path is not None
    if not upload and source.size < INLINE_LIMIT_BYTES:
        data = await asyncio.to_thread(source.path.read_bytes)
        return gemini.bytes_part(data, source.mime_type)
    uploaded = await gemini.upload_file(source.path, source.mime_type)
    return gemini.file_uri_part(uploaded.uri, uploaded.mime_type)

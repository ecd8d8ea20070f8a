"""What a media file is, read from its header with PyAV, and refused before any decoding
when it breaks a limit (size, streams, frame size, duration) or is not media at all.

PyAV ships FFmpeg in its wheel, so nothing on the system is needed. Opening a container
reads only its header and a little of its start (`probesize`, `analyzeduration` kept
small): a file that declares a huge frame or thousands of streams is refused from what it
declares, never by allocating what it declares.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from video_research.media.coverage import Coverage, measure
from video_research.media.coverage import duration as _duration
from video_research.media.limits import (
    AUDIO_SUFFIXES,
    MEDIA_SUFFIXES,
    VIDEO_SUFFIXES,
    MediaLimits,
    too_large,
    unsupported,
)
from video_research.support.paths import check_regular, printable

if TYPE_CHECKING:
    from video_research.support.schema_types.common import media as contract

OPEN_OPTIONS = {"probesize": str(5 * 1024 * 1024), "analyzeduration": str(5_000_000)}
"""How much of a file FFmpeg reads to learn its streams: 5 MB and 5 s of media, enough
for every ordinary container, small enough that a hostile one costs little."""


@dataclass
class MediaInfo:
    """A probed media file: plain data, JSON-ready through `to_dict`."""

    path: str
    container: str
    size_bytes: int
    duration_seconds: float
    stream_count: int
    video: contract.Video | None = None
    """The first video stream that is not cover art, as the contract reports it."""
    audio: contract.Audio | None = None
    """The first audio stream."""
    attached_pictures: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> contract.Media:
        """As the media tools report it (its fields in order, as `asdict` gives them)."""
        video, audio = self.video, self.audio
        return {
            "path": self.path,
            "container": self.container,
            "size_bytes": self.size_bytes,
            "duration_seconds": self.duration_seconds,
            "stream_count": self.stream_count,
            "video": None if video is None else video.copy(),
            "audio": None if audio is None else audio.copy(),
            "attached_pictures": self.attached_pictures,
            "notes": list(self.notes),
        }


def open_container(path: str, limits: MediaLimits) -> Any:
    """The PyAV container of `path`, `unsupported_format` when FFmpeg cannot read it as media.

    The caller closes it (`with open_container(...) as container`).
    """
    import av

    shown = printable(path)
    info = check_regular(path)
    if info.st_size == 0:
        raise unsupported(f"{shown} is empty (0 bytes): there is no media in it.")
    if info.st_size > limits.max_file_bytes:
        raise too_large(
            f"{shown} is {info.st_size:,} bytes, more than the {limits.max_file_bytes:,} the "
            "media tools open.",
            "Trim the file, or raise MEDIA_MAX_FILE_BYTES.",
        )
    try:
        return av.open(path, "r", options=dict(OPEN_OPTIONS), metadata_errors="ignore")
    except av.FFmpegError as exc:
        raise unsupported(
            f"{shown} could not be read as media: {_reason(exc)}.",
            "Check that the file plays in a media player. A renamed file cannot be decoded, "
            "nor a download cut short whose index was to come at its end (an MP4 or MOV "
            "not made with +faststart): download it again.",
        ) from None


def _reason(exc: Exception) -> str:
    text = getattr(exc, "strerror", None) or str(exc)
    return str(text).strip().rstrip(".") or type(exc).__name__


def _is_attached_picture(stream: Any) -> bool:
    import av

    return bool(stream.disposition & av.stream.Disposition.attached_pic)


def describe(container: Any, path: str, limits: MediaLimits) -> MediaInfo:
    """Check `container` against the limits and say what it holds (nothing decoded)."""
    shown = printable(path)
    streams = list(container.streams)
    if len(streams) > limits.max_streams:
        raise unsupported(
            f"{shown} has {len(streams):,} streams, more than the {limits.max_streams} the "
            "media tools accept.",
            "A normal video has one video and a few audio or subtitle streams; remux the ones "
            "you need, or raise MEDIA_MAX_STREAMS.",
        )
    duration = _duration(container)
    if duration > limits.max_duration_seconds:
        raise too_large(
            f"{shown} lasts {duration:,.0f} s, more than the {limits.max_duration_seconds:,.0f} s "
            "the media tools decode.",
            "Cut the part you need, or raise MEDIA_MAX_DURATION_SECONDS.",
        )
    pictures = [s for s in container.streams.video if _is_attached_picture(s)]
    videos = [s for s in container.streams.video if not _is_attached_picture(s)]
    video: contract.Video | None = None
    if videos:
        stream = videos[0]
        width, height = stream.codec_context.width, stream.codec_context.height
        check_pixels(width, height, limits, shown)
        if width <= 0 or height <= 0:
            raise unsupported(f"{shown} has a video stream without a frame size.")
        rate = stream.average_rate or stream.guessed_rate
        video = {
            "index": stream.index,
            "codec": stream.codec_context.name,
            "width": width,
            "height": height,
            "fps": round(float(rate), 3) if rate else None,
            "frames": stream.frames or None,
        }
    audio: contract.Audio | None = None
    if container.streams.audio:
        stream = container.streams.audio[0]
        audio = {
            "index": stream.index,
            "codec": stream.codec_context.name,
            "sample_rate": stream.codec_context.sample_rate or 0,
            "channels": stream.codec_context.channels or 0,
        }
    if video is None and audio is None:
        raise unsupported(f"{shown} holds neither video nor audio that FFmpeg can decode.")
    notes = []
    if pictures:
        notes.append(f"{len(pictures)} attached picture(s) (cover art) ignored")
    return MediaInfo(
        path=shown,
        container=container.format.name,
        size_bytes=os.path.getsize(path),
        duration_seconds=round(duration, 3),
        stream_count=len(streams),
        video=video,
        audio=audio,
        attached_pictures=len(pictures),
        notes=notes,
    )


def check_pixels(width: int, height: int, limits: MediaLimits, shown: str) -> None:
    if width * height > limits.max_pixels:
        raise too_large(
            f"{shown} declares {width:,} x {height:,} pixel frames, more than the "
            f"{limits.max_pixels:,} pixels a frame may have.",
            "Scale the video down first, or raise MEDIA_MAX_PIXELS.",
        )


def probe(path: str, limits: MediaLimits) -> MediaInfo:
    """Open, check and describe `path` (plain in, plain out: a worker may run it)."""
    with open_container(path, limits) as container:
        return describe(container, path, limits)


def probe_measured(path: str, limits: MediaLimits) -> tuple[MediaInfo, Coverage]:
    """`probe`, and how much of what the file claims it holds (`coverage.measure`: a
    download cut short opens and claims its whole length). A worker may run it."""
    with open_container(path, limits) as container:
        return describe(container, path, limits), measure(container)


def measure_file(path: str) -> Coverage | None:
    """`measure` of the file at `path`, None when it cannot be opened as media (what is
    wrong with it is for the tool that reads it to say). Plain in, plain out: a media
    worker runs it."""
    import av

    try:
        with av.open(path, "r", options=dict(OPEN_OPTIONS), metadata_errors="ignore") as opened:
            if not opened.streams.video and not opened.streams.audio:
                return None
            return measure(opened)
    except (av.FFmpegError, OSError):
        return None


VIDEO_FORMATS = ", ".join(sorted(s[1:] for s in VIDEO_SUFFIXES))
"""The video extensions the picture tools read, as a refusal lists them."""


def require_video(info: MediaInfo, path: str) -> None:
    """unsupported_format for a file without pictures (audio, or only cover art)."""
    if info.video is not None:
        return
    kind = "an audio file" if os.path.splitext(path)[1].lower() in AUDIO_SUFFIXES else "audio only"
    cover = " (its cover picture is not a video)" if info.attached_pictures else ""
    raise unsupported(
        f"{printable(path)} is {kind}{cover}: it has no video stream to take pictures from.",
        f"Pass a video file ({VIDEO_FORMATS}); audio is for the speech tools.",
    )


def check_suffix(path: str) -> None:
    """unsupported_format, before any decoding, for a file of no media type. Only video
    formats are listed: the picture tools are its callers, and an audio file (which
    passes here) is refused by require_video once probed, its cover picture named."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in MEDIA_SUFFIXES:
        raise unsupported(
            f"{printable(path)} does not have a video file extension ({suffix or 'none'}).",
            f"Pass a video file ({VIDEO_FORMATS}).",
        )

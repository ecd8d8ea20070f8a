"""The limits every media function runs under, as one plain value.

`MediaLimits` is built from the settings by the handler and handed to the decoding
functions as an argument (never read from a global), so the functions stay plain:
picklable inputs, usable in a worker thread or process alike.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from video_research.support.errors import ErrorCategory, ToolFailure, invalid_input

VIDEO_SUFFIXES = frozenset({".mp4", ".m4v", ".mkv", ".webm", ".mov", ".avi"})
AUDIO_SUFFIXES = frozenset({".mp3", ".m4a", ".wav", ".ogg", ".oga", ".opus", ".flac", ".aac"})
MEDIA_SUFFIXES = VIDEO_SUFFIXES | AUDIO_SUFFIXES


@dataclass(frozen=True)
class MediaLimits:
    max_file_bytes: int = 8 * 1024**3
    max_pixels: int = 8192 * 4320
    max_streams: int = 64
    max_duration_seconds: float = 12 * 3600.0
    max_frames: int = 24
    max_frame_edge: int = 1280
    max_output_bytes: int = 4 * 1024**2
    decode_seconds: float = 300.0

    @classmethod
    def from_settings(cls, settings: Any) -> MediaLimits:
        return cls(
            max_file_bytes=settings.media_max_file_bytes,
            max_pixels=settings.media_max_pixels,
            max_streams=settings.media_max_streams,
            max_duration_seconds=settings.media_max_duration_seconds,
            max_frames=settings.media_max_frames,
            max_frame_edge=settings.media_max_frame_edge,
            max_output_bytes=settings.media_max_output_bytes,
            decode_seconds=settings.media_decode_seconds,
        )


class Deadline:
    """The wall clock of one call's decoding: `check()` raises timeout_error once it passes.

    Decoding loops call it per packet, so a file that decodes slowly (or never ends) stops
    within one packet of the limit instead of holding a worker forever.
    """

    def __init__(self, seconds: float, what: str) -> None:
        self.seconds = seconds
        self.what = what
        self.ends = time.monotonic() + seconds

    def extend(self, seconds: float) -> None:
        """Add `seconds` that were not decoding (OCR of a frame between two decodes)."""
        self.ends += seconds

    def check(self) -> None:
        if time.monotonic() > self.ends:
            raise ToolFailure(
                ErrorCategory.TIMEOUT_ERROR,
                f"Decoding {self.what} took longer than {self.seconds:g} s.",
                hint="Narrow the time range, ask for fewer frames, or raise MEDIA_DECODE_SECONDS.",
                retryable=False,
            )


def unsupported(message: str, hint: str | None = None) -> ToolFailure:
    return ToolFailure(
        ErrorCategory.FILE_UNSUPPORTED,
        message,
        hint=hint or "Pass a video file (mp4, mkv, webm, mov, avi) that plays in a media player.",
    )


def too_large(message: str, hint: str) -> ToolFailure:
    return ToolFailure(ErrorCategory.FILE_TOO_LARGE, message, hint=hint)


def clock(seconds: float) -> str:
    """`seconds` as H:MM:SS.s or M:SS.s, the label burned into sheets and shown in results."""
    seconds = max(0.0, seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours >= 1:
        return f"{int(hours)}:{int(minutes):02d}:{secs:04.1f}"
    return f"{int(minutes)}:{secs:04.1f}"


def check_range(start: float, end: float | None, duration: float) -> tuple[float, float]:
    stop = duration if end is None else min(end, duration) if duration > 0 else end
    if start >= stop:
        raise invalid_input(
            f"The range {start:g}-{stop:g} s is empty (the media lasts {duration:g} s).",
            hint="Give start < end, within the media's duration.",
        )
    return start, stop

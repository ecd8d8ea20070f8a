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
from video_research.support.media_names import AUDIO_SUFFIXES as AUDIO_SUFFIXES
from video_research.support.media_names import MEDIA_SUFFIXES as MEDIA_SUFFIXES
from video_research.support.media_names import VIDEO_SUFFIXES as VIDEO_SUFFIXES

# The one list of media file names: what the media tools accept, what a folder given to
# index_media_files is searched for, and (video) which files have pictures to read. In
# order, for messages that list them (support.media_names: transcripts asks it too).


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
    ocr_threads: int = 0

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
            ocr_threads=settings.media_ocr_threads,
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
                ErrorCategory.TIMEOUT,
                f"Decoding {self.what} took longer than {self.seconds:g} s.",
                hint="Narrow the time range, ask for fewer frames, or raise MEDIA_DECODE_SECONDS.",
                retryable=False,
            )


def unsupported(message: str, hint: str | None = None) -> ToolFailure:
    return ToolFailure(
        ErrorCategory.UNSUPPORTED_FORMAT,
        message,
        hint=hint or "Pass a video file (mp4, mkv, webm, mov, avi) that plays in a media player.",
    )


def too_large(message: str, hint: str) -> ToolFailure:
    return ToolFailure(ErrorCategory.TOO_LARGE, message, hint=hint)


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


DECODE_GRACE_SECONDS = 30.0
"""Wall clock a media worker gets past MEDIA_DECODE_SECONDS: the decoding loop's own
`Deadline` fails the call first with its clear message; the pool's limit is the backstop
for a decoder stuck inside native code, where no Python check runs."""
ARENA_MB_PER_EXTRA_CORE = 64
"""Address space added to a media worker's memory limit per core past two: onnxruntime and
CTranslate2 run a thread per core and glibc maps up to 64 MB of malloc arena per thread
(measured: Whisper base on 16 threads maps 1.99 GB, on 2 threads 1.0 GB), so the same
settings hold on a 2-core laptop and a 32-core server."""
OCR_TIME_FACTOR = 4
"""A screen-text call may take this many times MEDIA_DECODE_SECONDS in all: the OCR of each
keyframe comes on top of its decoding (the decoding deadline is extended by it)."""


def worker_limits(settings: Any, work: str) -> Any:
    """The `ParserLimits` of one media call in a media worker (see docs/security.md).

    `work`: "decode" (probe, frames, contact sheet, scenes), "ocr" or "speech". Memory:
    MEDIA_WORKER_MEMORY_MB, SPEECH_WORKER_MEMORY_MB for speech (onnxruntime and CTranslate2
    map far more address space than they touch, and long audio is held decoded), plus
    ARENA_MB_PER_EXTRA_CORE per core past two. CPU time is the wall clock times the cores:
    decoders, OCR and Whisper each run a thread per core.
    """
    import os

    from video_research.support.isolation import ParserLimits

    if work == "speech":
        memory, memory_setting = settings.speech_worker_memory_mb, "SPEECH_WORKER_MEMORY_MB"
        seconds, time_setting = settings.speech_timeout_seconds, "SPEECH_TIMEOUT_SECONDS"
    else:
        memory, memory_setting = settings.media_worker_memory_mb, "MEDIA_WORKER_MEMORY_MB"
        time_setting = "MEDIA_DECODE_SECONDS"
        decode = settings.media_decode_seconds
        seconds = decode * OCR_TIME_FACTOR if work == "ocr" else decode + DECODE_GRACE_SECONDS
    cores = max(1, os.cpu_count() or 1)
    return ParserLimits(
        memory_mb=memory + ARENA_MB_PER_EXTRA_CORE * max(0, cores - 2),
        cpu_seconds=int(seconds * cores) + 1,
        timeout_seconds=seconds,
        memory_setting=memory_setting,
        cpu_setting=time_setting,
        timeout_setting=time_setting,
    )

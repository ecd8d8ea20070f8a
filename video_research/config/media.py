"""Limits on local media the server decodes itself (frames, scenes, on-screen text).

Every media file is hostile until decoded: a few bytes can declare a 100,000 x 100,000
frame, thousands of streams or a day of silence. Each limit here is checked from the
container's header before anything is decoded, or while decoding, so a bad file fails
alone, fast and in bounded memory.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from video_research.config.common import env_field


class MediaSettings(BaseModel):
    """Local media decoding: what a file may declare and what a call may return."""

    media_max_file_bytes: int = Field(
        default=8 * 1024**3,
        ge=1024,
        json_schema_extra=env_field(
            "MEDIA_MAX_FILE_BYTES", "Largest media file the media tools open (bytes)"
        ),
    )
    media_max_pixels: int = Field(
        default=8192 * 4320,
        ge=64 * 64,
        le=2**31,
        json_schema_extra=env_field(
            "MEDIA_MAX_PIXELS",
            "Largest frame a media file may declare (width x height), checked before decoding",
        ),
    )
    media_max_streams: int = Field(
        default=64,
        ge=1,
        le=10_000,
        json_schema_extra=env_field(
            "MEDIA_MAX_STREAMS", "Most streams (video, audio, subtitles, ...) a media file may hold"
        ),
    )
    media_max_duration_seconds: float = Field(
        default=12 * 3600.0,
        ge=1.0,
        json_schema_extra=env_field(
            "MEDIA_MAX_DURATION_SECONDS", "Longest media file the media tools decode (seconds)"
        ),
    )
    media_max_frames: int = Field(
        default=24,
        ge=1,
        le=500,
        json_schema_extra=env_field(
            "MEDIA_MAX_FRAMES", "Most frames one media_frames call returns"
        ),
    )
    media_max_frame_edge: int = Field(
        default=1280,
        ge=64,
        le=8192,
        json_schema_extra=env_field(
            "MEDIA_MAX_FRAME_EDGE",
            "Longest edge of a returned frame in pixels (larger frames are scaled down)",
        ),
    )
    media_max_output_bytes: int = Field(
        default=4 * 1024**2,
        ge=16 * 1024,
        json_schema_extra=env_field(
            "MEDIA_MAX_OUTPUT_BYTES",
            "Most bytes of images one call returns (frames past it are left out, and the "
            "result says so)",
        ),
    )
    media_decode_seconds: float = Field(
        default=300.0,
        ge=1.0,
        le=7200.0,
        json_schema_extra=env_field(
            "MEDIA_DECODE_SECONDS",
            "Wall time one media call may spend decoding before it fails with timeout_error",
        ),
    )
    media_workers: int = Field(
        default=2,
        ge=1,
        le=64,
        json_schema_extra=env_field(
            "MEDIA_WORKERS",
            "Worker processes that decode media, read on-screen text and recognise speech "
            "(each keeps its models loaded), started on first use",
        ),
    )
    media_worker_memory_mb: int = Field(
        default=4096,
        ge=512,
        json_schema_extra=env_field(
            "MEDIA_WORKER_MEMORY_MB",
            "Address space a media worker may use while decoding or reading on-screen text, "
            "in MB (RLIMIT_AS; the OCR engine alone maps about 1.9 GB)",
        ),
    )
    media_scene_threshold: float = Field(
        default=0.02,
        gt=0.0,
        lt=1.0,
        json_schema_extra=env_field(
            "MEDIA_SCENE_THRESHOLD",
            "Default scene-cut threshold: the least change between two frames (0-1) "
            "that counts as a cut (it must also stand out of the change before it)",
        ),
    )
    media_ocr_threads: int = Field(
        default=0,
        ge=0,
        le=256,
        json_schema_extra=env_field(
            "MEDIA_OCR_THREADS",
            "Threads ONNX Runtime gives the OCR models in a media worker (0: its default, "
            "one per core). One thread spends half the CPU: faster on a busy machine, "
            "slower on an idle one (make bench BENCH=ocr_engines)",
        ),
    )
    media_ocr_overlay_fraction: float = Field(
        default=0.6,
        gt=0.0,
        le=1.0,
        json_schema_extra=env_field(
            "MEDIA_OCR_OVERLAY_FRACTION",
            "Text on screen for at least this share of a video (logos, watermarks, channel "
            "names) is an overlay and left out of the on-screen text timeline",
        ),
    )

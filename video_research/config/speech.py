"""Speech recognition and media download settings."""

from __future__ import annotations

from pydantic import BaseModel, Field

from video_research.config.common import env_field


class SpeechSettings(BaseModel):
    """Speech recognition of local media (faster-whisper) and media downloads (yt-dlp)."""

    # --- speech recognition ---
    speech_model: str = Field(
        default="base",
        min_length=1,
        json_schema_extra=env_field(
            "SPEECH_MODEL",
            "Whisper model: base (bundled, no download), another size name (tiny, small, "
            "medium, large-v3, ...: downloaded on first use) or a CTranslate2 model directory",
        ),
    )
    speech_model_dir: str = Field(
        default="",
        json_schema_extra=env_field(
            "SPEECH_MODEL_DIR",
            "Where downloaded speech models are kept (default: speech-models in the cache dir)",
        ),
    )
    speech_language: str = Field(
        default="",
        max_length=16,
        json_schema_extra=env_field(
            "SPEECH_LANGUAGE",
            "Language code speech is transcribed in (default: detected per file)",
        ),
    )
    speech_cpu_threads: int = Field(
        default=0,
        ge=0,
        le=64,
        json_schema_extra=env_field(
            "SPEECH_CPU_THREADS", "CPU threads one transcription uses (0: CTranslate2's default)"
        ),
    )
    speech_beam_size: int = Field(
        default=1,
        ge=1,
        le=10,
        json_schema_extra=env_field(
            "SPEECH_BEAM_SIZE", "Beam width of the decoder (1 greedy, fastest; 5 a little better)"
        ),
    )
    speech_speakers: bool = Field(
        default=True,
        json_schema_extra=env_field(
            "SPEECH_SPEAKERS",
            "Label who speaks each sentence of transcribed speech (S1, S2, ...); needs the "
            "silero-vad and resemblyzer packages, installed with --no-deps",
        ),
    )
    speech_worker_memory_mb: int = Field(
        default=6144,
        ge=512,
        json_schema_extra=env_field(
            "SPEECH_WORKER_MEMORY_MB",
            "Address space a media worker may use while transcribing one file, in MB "
            "(RLIMIT_AS; the model maps about 1 GB, an hour of decoded audio 230 MB more)",
        ),
    )
    speech_timeout_seconds: float = Field(
        default=4 * 3600.0,
        gt=0,
        json_schema_extra=env_field(
            "SPEECH_TIMEOUT_SECONDS",
            "Wall-clock seconds the transcription of one file may take before its worker is "
            "replaced (CPU time is bounded at this times the worker's threads)",
        ),
    )
    speech_max_duration_seconds: float = Field(
        default=4 * 3600.0,
        gt=0,
        le=48 * 3600.0,
        json_schema_extra=env_field(
            "SPEECH_MAX_DURATION_SECONDS",
            "Longest media transcribed; longer files are refused by their header, before decoding",
        ),
    )

    # --- media downloads ---
    media_download_max_mb: int = Field(
        default=500,
        ge=1,
        le=20_000,
        json_schema_extra=env_field(
            "MEDIA_DOWNLOAD_MAX_MB", "Largest media file downloaded from a URL (MB)"
        ),
    )
    media_download_timeout_seconds: float = Field(
        default=30.0,
        gt=0,
        le=600,
        json_schema_extra=env_field(
            "MEDIA_DOWNLOAD_TIMEOUT_SECONDS", "Network timeout of a media download (seconds)"
        ),
    )
    youtube_media_endpoint: str = Field(
        default="",
        json_schema_extra=env_field(
            "YOUTUBE_MEDIA_ENDPOINT",
            "Download YouTube audio from this origin's /watch?v=ID page instead of YouTube "
            "(a mirror or cache of the media, a local stub)",
        ),
    )
    youtube_cookies_file: str = Field(
        default="",
        json_schema_extra=env_field(
            "YOUTUBE_COOKIES_FILE",
            "Netscape-format cookies file sent with media downloads and YouTube transcript "
            "requests (when YouTube blocks this IP)",
        ),
    )

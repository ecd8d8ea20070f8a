"""The Gemini, cache, session, retry, YouTube, Semantic Scholar and video-file settings."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field, SecretStr

from video_research.config.common import (
    ThinkingLevel,
    default_cache_dir,
    env_field,
)


class GeminiSettings(BaseModel):
    """The Gemini, cache, session, retry, YouTube, Semantic Scholar and video-file settings."""

    # --- Gemini ---
    gemini_api_key: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=env_field(
            "GEMINI_API_KEY", "Gemini API key (required by the Gemini tools)", secret=True
        ),
    )
    default_model: str = Field(
        default="gemini-3.1-pro-preview",
        min_length=1,
        json_schema_extra=env_field("GEMINI_MODEL", "Model for analysis and research"),
    )
    flash_model: str = Field(
        default="gemini-3-flash-preview",
        min_length=1,
        json_schema_extra=env_field("GEMINI_FLASH_MODEL", "Fast model (web_search, light tasks)"),
    )
    default_thinking_level: ThinkingLevel = Field(
        default="high",
        json_schema_extra=env_field("GEMINI_THINKING_LEVEL", "minimal | low | medium | high"),
    )
    default_temperature: float = Field(
        default=1.0,
        ge=0.0,
        le=2.0,
        json_schema_extra=env_field("GEMINI_TEMPERATURE", "Sampling temperature, 0.0-2.0"),
    )
    gemini_base_url: str = Field(
        default="",
        json_schema_extra=env_field(
            "GEMINI_BASE_URL", "Override the Gemini API endpoint (proxies, local stubs)"
        ),
    )
    gemini_timeout_seconds: float = Field(
        default=300.0,
        gt=0,
        json_schema_extra=env_field(
            "GEMINI_TIMEOUT_SECONDS", "Per-request timeout for Gemini calls"
        ),
    )

    # --- cache ---
    cache_dir: Path = Field(
        default_factory=default_cache_dir,
        json_schema_extra=env_field("GEMINI_CACHE_DIR", "Analysis cache directory"),
    )
    cache_ttl_days: int = Field(
        default=30,
        ge=1,
        json_schema_extra=env_field("GEMINI_CACHE_TTL_DAYS", "Cache entry lifetime in days"),
    )

    # --- sessions ---
    max_sessions: int = Field(
        default=50,
        ge=1,
        json_schema_extra=env_field("GEMINI_MAX_SESSIONS", "Most video sessions kept"),
    )
    session_timeout_hours: float = Field(
        default=2,
        gt=0,
        json_schema_extra=env_field(
            "GEMINI_SESSION_TIMEOUT_HOURS", "Idle hours before a session expires"
        ),
    )
    session_max_turns: int = Field(
        default=24,
        ge=1,
        json_schema_extra=env_field(
            "GEMINI_SESSION_MAX_TURNS", "Turns kept in a session's history"
        ),
    )
    session_db_path: str = Field(
        default="",
        json_schema_extra=env_field(
            "GEMINI_SESSION_DB",
            "Session database file (default: sessions.db in the data dir; ':memory:' keeps none)",
        ),
    )
    deep_research_agent: str = Field(
        default="deep-research-preview-04-2026",
        min_length=1,
        json_schema_extra=env_field(
            "GEMINI_DEEP_RESEARCH_AGENT", "Gemini Deep Research agent behind research_web"
        ),
    )
    deep_research_db_path: str = Field(
        default="",
        json_schema_extra=env_field(
            "DEEP_RESEARCH_DB",
            "Deep Research task database (default: deep_research.db in the data dir)",
        ),
    )
    deep_research_poll_seconds: float = Field(
        default=10.0,
        gt=0,
        le=300,
        json_schema_extra=env_field(
            "DEEP_RESEARCH_POLL_SECONDS",
            "Seconds between polls while research_web_status waits",
        ),
    )

    # --- retries ---
    retry_max_attempts: int = Field(
        default=3,
        ge=1,
        json_schema_extra=env_field("GEMINI_RETRY_MAX_ATTEMPTS", "Attempts per Gemini call"),
    )
    retry_base_delay: float = Field(
        default=1.0,
        gt=0,
        json_schema_extra=env_field("GEMINI_RETRY_BASE_DELAY", "First backoff delay, seconds"),
    )
    retry_max_delay: float = Field(
        default=60.0,
        gt=0,
        json_schema_extra=env_field("GEMINI_RETRY_MAX_DELAY", "Longest backoff delay, seconds"),
    )

    # --- YouTube ---
    youtube_api_key: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=env_field(
            "YOUTUBE_API_KEY", "YouTube Data API key (falls back to GEMINI_API_KEY)", secret=True
        ),
    )
    youtube_api_endpoint: str = Field(
        default="",
        json_schema_extra=env_field(
            "YOUTUBE_API_ENDPOINT", "Override the YouTube Data API endpoint"
        ),
    )
    youtube_oembed_url: str = Field(
        default="https://www.youtube.com/oembed",
        json_schema_extra=env_field(
            "YOUTUBE_OEMBED_URL",
            "YouTube's oEmbed endpoint: titles and channels of public videos without an API "
            "key (empty: never asked)",
        ),
    )

    # --- Semantic Scholar ---
    semantic_scholar_api_key: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=env_field(
            "SEMANTIC_SCHOLAR_API_KEY",
            "Semantic Scholar API key (optional: raises the rate limit)",
            secret=True,
        ),
    )
    semantic_scholar_base_url: str = Field(
        default="https://api.semanticscholar.org",
        min_length=1,
        json_schema_extra=env_field(
            "SEMANTIC_SCHOLAR_BASE_URL", "Semantic Scholar API origin (a mirror or a local stub)"
        ),
    )
    semantic_scholar_requests_per_second: float = Field(
        default=1.0,
        gt=0,
        le=100,
        json_schema_extra=env_field(
            "SEMANTIC_SCHOLAR_RPS",
            "Most Semantic Scholar requests per second (at most 1 without a key)",
        ),
    )

    # --- video files and batch ---
    file_poll_interval_seconds: float = Field(
        default=2.0,
        gt=0,
        json_schema_extra=env_field(
            "GEMINI_FILE_POLL_INTERVAL", "Seconds between File API state checks"
        ),
    )
    file_poll_timeout_seconds: float = Field(
        default=600.0,
        gt=0,
        json_schema_extra=env_field(
            "GEMINI_FILE_POLL_TIMEOUT", "Longest wait for an uploaded video to become ACTIVE"
        ),
    )
    batch_concurrency: int = Field(
        default=3,
        ge=1,
        le=16,
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_BATCH_CONCURRENCY", "Parallel Gemini calls in video_batch_analyze"
        ),
    )
    upload_reuse_margin_seconds: float = Field(
        default=3600.0,
        ge=0,
        json_schema_extra=env_field(
            "GEMINI_UPLOAD_REUSE_MARGIN",
            "Reuse an earlier File API upload of the same content only if it lives this many "
            "more seconds (else upload again)",
        ),
    )
    context_cache_enabled: bool = Field(
        default=True,
        json_schema_extra=env_field(
            "GEMINI_CONTEXT_CACHE",
            "Keep a session's video in a Gemini context cache (cached input tokens cost a "
            "fraction); true/false",
        ),
    )
    context_cache_ttl_seconds: int = Field(
        default=3600,
        ge=60,
        le=7 * 86400,
        json_schema_extra=env_field(
            "GEMINI_CONTEXT_CACHE_TTL",
            "Lifetime of a context cache in seconds, renewed while its session is used",
        ),
    )
    batch_poll_interval_seconds: float = Field(
        default=10.0,
        gt=0,
        json_schema_extra=env_field(
            "GEMINI_BATCH_POLL_INTERVAL", "Seconds between state checks of a Batch API job"
        ),
    )
    batch_timeout_seconds: float = Field(
        default=86400.0,
        gt=0,
        json_schema_extra=env_field(
            "GEMINI_BATCH_TIMEOUT",
            "Longest wait for a Batch API job before it is cancelled (Gemini's target is 24 h)",
        ),
    )

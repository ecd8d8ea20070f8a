"""Server configuration: one pydantic-settings model, read from the environment, a JSON
file and an optional `.env` file.

Sources, highest priority first (pydantic-settings' `settings_customise_sources`):
1. environment variables;
2. the JSON file named by `VIDEO_RESEARCH_CONFIG` (keys are the field names,
   `default_model`, or the variable names, `GEMINI_MODEL`);
3. `.env` in the config directory (`VIDEO_RESEARCH_CONFIG_DIR`, default the user config
   dir, e.g. ~/.config/video-research/.env), in the usual dotenv syntax;
4. the field defaults.

Every field names its variable in `json_schema_extra` (`_env("GEMINI_MODEL", ...)`), and
every source looks values up by that name. An empty value, or one holding an unresolved
`${VAR}` placeholder (a client config that was never expanded, e.g. `"${WEAVIATE_URL}"`),
counts as unset: the next source or the default applies, and `notes` says so. Unknown keys
in the JSON file and bad values stop the server with a message that names the variable
and its source; secret values are never echoed. `sources` records where each value came
from (`video-research doctor` prints it).

Names and defaults of the Gemini, cache, session, retry, YouTube and Weaviate settings
are those of seed 000 section 10.
"""

from __future__ import annotations

import contextvars
import functools
import json
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from video_research.redact import register_secret

ThinkingLevel = Literal["minimal", "low", "medium", "high"]
Role = Literal["viewer", "blessed", "admin"]

APP_NAME = "video-research"

GEMINI_DIMENSIONS = (768, 1536, 3072)
"""Matryoshka sizes gemini-embedding is trained for (KNOWLEDGE_EMBEDDING_DIMENSIONS)."""

PRESETS: dict[str, dict[str, str]] = {
    "best": {
        "default_model": "gemini-3.1-pro-preview",
        "flash_model": "gemini-3-flash-preview",
        "description": "Max quality (lowest rate limits)",
    },
    "stable": {
        "default_model": "gemini-3-pro-preview",
        "flash_model": "gemini-3-flash-preview",
        "description": "Fallback (higher rate limits)",
    },
    "budget": {
        "default_model": "gemini-3-flash-preview",
        "flash_model": "gemini-3-flash-preview",
        "description": "Cost-optimized (highest rate limits)",
    },
}


class ConfigError(ValueError):
    """The configuration cannot be used; the message says which setting and why."""


def _env(name: str, description: str, *, secret: bool = False) -> dict[str, Any]:
    return {"env": name, "description": description, "secret": secret}


def _default_cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("video-research-mcp", appauthor=False))


def _default_data_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def split_list(value: Any) -> Any:
    """Comma-separated string -> list of stripped, non-empty items; lists pass through."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


@functools.lru_cache(maxsize=8)
def parse_http_tokens(raw: str) -> dict[str, tuple[str, Role]]:
    """Parse the VIDEO_RESEARCH_HTTP_TOKENS JSON ({"token": {"username", "role"}}).

    Raises ValueError naming the first bad entry (never the token itself). Every token is
    registered as a secret so no log line or error can show it.
    """
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        raise ValueError("must be a JSON object of token -> {username, role}") from None
    if not isinstance(data, dict):
        raise ValueError("must be a JSON object of token -> {username, role}")
    if not data:
        # Set but empty must never mean "no authentication" by accident.
        raise ValueError(
            "holds no tokens; add at least one, or unset it to serve without tokens (loopback only)"
        )
    tokens: dict[str, tuple[str, Role]] = {}
    for number, (token, identity) in enumerate(data.items(), start=1):
        register_secret(token)
        if len(token) < 16:
            raise ValueError(f"token #{number} is shorter than 16 characters")
        if not isinstance(identity, dict) or not str(identity.get("username") or "").strip():
            raise ValueError(f"token #{number} needs an object with a username")
        role = identity.get("role", "viewer")
        if role not in ("viewer", "blessed", "admin"):
            raise ValueError(f"token #{number} has role {role!r}; use viewer, blessed or admin")
        tokens[token] = (str(identity["username"]).strip()[:100], role)
    return tokens


@functools.lru_cache(maxsize=8)
def parse_oauth_scopes(raw: str) -> dict[str, Role]:
    """Parse VIDEO_RESEARCH_OAUTH_SCOPES ({"scope": "role"}); ValueError names the problem."""
    try:
        data = json.loads(raw or "{}")
    except json.JSONDecodeError:
        raise ValueError(
            'must be a JSON object of scope -> role, e.g. {"mcp:read": "viewer"}'
        ) from None
    if not isinstance(data, dict) or not data:
        raise ValueError("must be a non-empty JSON object of scope -> role")
    for scope, role in data.items():
        if role not in ("viewer", "blessed", "admin"):
            raise ValueError(f"scope {scope!r} maps to {role!r}; use viewer, blessed or admin")
        if not scope or any(c.isspace() or c in '"\\' for c in scope):
            raise ValueError(f"scope {scope!r} is not a valid OAuth scope token")
    return dict(data)


class Settings(BaseSettings):
    """Every setting the server reads. Field metadata names the environment variable."""

    model_config = SettingsConfigDict(
        extra="forbid", validate_assignment=True, frozen=False, validate_default=True
    )
    _sources: dict[str, str] = PrivateAttr(default_factory=dict)
    _notes: list[str] = PrivateAttr(default_factory=list)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Keyword arguments, then the environment, the JSON file and `.env` (see module doc)."""
        load = _LOADING.get() or _Load(os.environ)
        return (init_settings, *load.sources(settings_cls))

    # --- Gemini (seed 000 section 10) ---
    gemini_api_key: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=_env(
            "GEMINI_API_KEY", "Gemini API key (required by the Gemini tools)", secret=True
        ),
    )
    default_model: str = Field(
        default="gemini-3.1-pro-preview",
        min_length=1,
        json_schema_extra=_env("GEMINI_MODEL", "Model for analysis and research"),
    )
    flash_model: str = Field(
        default="gemini-3-flash-preview",
        min_length=1,
        json_schema_extra=_env("GEMINI_FLASH_MODEL", "Fast model (web_search, light tasks)"),
    )
    default_thinking_level: ThinkingLevel = Field(
        default="high",
        json_schema_extra=_env("GEMINI_THINKING_LEVEL", "minimal | low | medium | high"),
    )
    default_temperature: float = Field(
        default=1.0,
        ge=0.0,
        le=2.0,
        json_schema_extra=_env("GEMINI_TEMPERATURE", "Sampling temperature, 0.0-2.0"),
    )
    gemini_base_url: str = Field(
        default="",
        json_schema_extra=_env(
            "GEMINI_BASE_URL", "Override the Gemini API endpoint (proxies, local stubs)"
        ),
    )
    gemini_timeout_seconds: float = Field(
        default=300.0,
        gt=0,
        json_schema_extra=_env("GEMINI_TIMEOUT_SECONDS", "Per-request timeout for Gemini calls"),
    )

    # --- cache (seed 000 section 9) ---
    cache_dir: Path = Field(
        default_factory=_default_cache_dir,
        json_schema_extra=_env("GEMINI_CACHE_DIR", "Analysis cache directory"),
    )
    cache_ttl_days: int = Field(
        default=30,
        ge=1,
        json_schema_extra=_env("GEMINI_CACHE_TTL_DAYS", "Cache entry lifetime in days"),
    )

    # --- sessions (seed 000 section 8) ---
    max_sessions: int = Field(
        default=50, ge=1, json_schema_extra=_env("GEMINI_MAX_SESSIONS", "Most video sessions kept")
    )
    session_timeout_hours: float = Field(
        default=2,
        gt=0,
        json_schema_extra=_env(
            "GEMINI_SESSION_TIMEOUT_HOURS", "Idle hours before a session expires"
        ),
    )
    session_max_turns: int = Field(
        default=24,
        ge=1,
        json_schema_extra=_env("GEMINI_SESSION_MAX_TURNS", "Turns kept in a session's history"),
    )
    session_db_path: str = Field(
        default="",
        json_schema_extra=_env(
            "GEMINI_SESSION_DB",
            "Session database file (default: sessions.db in the data dir; ':memory:' keeps none)",
        ),
    )
    deep_research_agent: str = Field(
        default="deep-research-preview-04-2026",
        min_length=1,
        json_schema_extra=_env(
            "GEMINI_DEEP_RESEARCH_AGENT", "Gemini Deep Research agent behind research_web"
        ),
    )
    deep_research_db_path: str = Field(
        default="",
        json_schema_extra=_env(
            "DEEP_RESEARCH_DB",
            "Deep Research task database (default: deep_research.db in the data dir)",
        ),
    )
    deep_research_poll_seconds: float = Field(
        default=10.0,
        gt=0,
        le=300,
        json_schema_extra=_env(
            "DEEP_RESEARCH_POLL_SECONDS",
            "Seconds between polls while research_web_status waits",
        ),
    )

    # --- retries (seed 000 section 3) ---
    retry_max_attempts: int = Field(
        default=3,
        ge=1,
        json_schema_extra=_env("GEMINI_RETRY_MAX_ATTEMPTS", "Attempts per Gemini call"),
    )
    retry_base_delay: float = Field(
        default=1.0,
        gt=0,
        json_schema_extra=_env("GEMINI_RETRY_BASE_DELAY", "First backoff delay, seconds"),
    )
    retry_max_delay: float = Field(
        default=60.0,
        gt=0,
        json_schema_extra=_env("GEMINI_RETRY_MAX_DELAY", "Longest backoff delay, seconds"),
    )

    # --- YouTube ---
    youtube_api_key: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=_env(
            "YOUTUBE_API_KEY", "YouTube Data API key (falls back to GEMINI_API_KEY)", secret=True
        ),
    )
    youtube_api_endpoint: str = Field(
        default="",
        json_schema_extra=_env("YOUTUBE_API_ENDPOINT", "Override the YouTube Data API endpoint"),
    )

    # --- Semantic Scholar (issue 15) ---
    semantic_scholar_api_key: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=_env(
            "SEMANTIC_SCHOLAR_API_KEY",
            "Semantic Scholar API key (optional: raises the rate limit)",
            secret=True,
        ),
    )
    semantic_scholar_base_url: str = Field(
        default="https://api.semanticscholar.org",
        min_length=1,
        json_schema_extra=_env(
            "SEMANTIC_SCHOLAR_BASE_URL", "Semantic Scholar API origin (a mirror or a local stub)"
        ),
    )
    semantic_scholar_requests_per_second: float = Field(
        default=1.0,
        gt=0,
        le=100,
        json_schema_extra=_env(
            "SEMANTIC_SCHOLAR_RPS",
            "Most Semantic Scholar requests per second (at most 1 without a key)",
        ),
    )

    # --- knowledge store ---
    weaviate_url: str = Field(
        default="",
        json_schema_extra=_env(
            "WEAVIATE_URL", "Use Weaviate at this URL instead of the embedded store"
        ),
    )
    weaviate_api_key: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=_env("WEAVIATE_API_KEY", "Weaviate API key", secret=True),
    )

    # --- queue / sessions registry ---
    nats_url: str = Field(
        default="",
        json_schema_extra=_env("NATS_URL", "Keep the watch queue in NATS JetStream KV at this URL"),
    )

    # --- video files and batch ---
    file_poll_interval_seconds: float = Field(
        default=2.0,
        gt=0,
        json_schema_extra=_env(
            "GEMINI_FILE_POLL_INTERVAL", "Seconds between File API state checks"
        ),
    )
    file_poll_timeout_seconds: float = Field(
        default=600.0,
        gt=0,
        json_schema_extra=_env(
            "GEMINI_FILE_POLL_TIMEOUT", "Longest wait for an uploaded video to become ACTIVE"
        ),
    )
    batch_concurrency: int = Field(
        default=3,
        ge=1,
        le=16,
        json_schema_extra=_env(
            "VIDEO_RESEARCH_BATCH_CONCURRENCY", "Parallel Gemini calls in video_batch_analyze"
        ),
    )
    upload_reuse_margin_seconds: float = Field(
        default=3600.0,
        ge=0,
        json_schema_extra=_env(
            "GEMINI_UPLOAD_REUSE_MARGIN",
            "Reuse an earlier File API upload of the same content only if it lives this many "
            "more seconds (else upload again)",
        ),
    )
    context_cache_enabled: bool = Field(
        default=True,
        json_schema_extra=_env(
            "GEMINI_CONTEXT_CACHE",
            "Keep a session's video in a Gemini context cache (cached input tokens cost a "
            "fraction); true/false",
        ),
    )
    context_cache_ttl_seconds: int = Field(
        default=3600,
        ge=60,
        le=7 * 86400,
        json_schema_extra=_env(
            "GEMINI_CONTEXT_CACHE_TTL",
            "Lifetime of a context cache in seconds, renewed while its session is used",
        ),
    )
    batch_poll_interval_seconds: float = Field(
        default=10.0,
        gt=0,
        json_schema_extra=_env(
            "GEMINI_BATCH_POLL_INTERVAL", "Seconds between state checks of a Batch API job"
        ),
    )
    batch_timeout_seconds: float = Field(
        default=86400.0,
        gt=0,
        json_schema_extra=_env(
            "GEMINI_BATCH_TIMEOUT",
            "Longest wait for a Batch API job before it is cancelled (Gemini's target is 24 h)",
        ),
    )

    # --- knowledge store and embeddings (issue 4): add fields here ---
    knowledge_db_path: str = Field(
        default="",
        json_schema_extra=_env(
            "KNOWLEDGE_DB",
            "Embedded knowledge store file (default: knowledge.db in the data dir)",
        ),
    )
    knowledge_write_through: bool = Field(
        default=True,
        json_schema_extra=_env(
            "KNOWLEDGE_WRITE_THROUGH",
            "Store every producer tool's result in the knowledge store (true/false)",
        ),
    )
    embedding_provider: Literal["local", "gemini"] = Field(
        default="local",
        json_schema_extra=_env(
            "KNOWLEDGE_EMBEDDING_PROVIDER",
            "local (all-MiniLM-L6-v2 on CPU, offline) or gemini (gemini-embedding)",
        ),
    )
    embedding_model: str = Field(
        default="",
        json_schema_extra=_env(
            "KNOWLEDGE_EMBEDDING_MODEL",
            "Embedding model (local: all-MiniLM-L6-v2, the default, or use-multilingual; gemini: default gemini-embedding-001)",
        ),
    )
    embedding_dimensions: int = Field(
        default=0,
        ge=0,
        json_schema_extra=_env(
            "KNOWLEDGE_EMBEDDING_DIMENSIONS",
            "Vector size (default: 384 local; 768, 1536 or 3072 for gemini, default 768)",
        ),
    )
    embedding_batch_size: int = Field(
        default=32,
        ge=1,
        le=1024,
        json_schema_extra=_env(
            "KNOWLEDGE_EMBEDDING_BATCH_SIZE", "Texts embedded per model call (1-1024)"
        ),
    )
    weaviate_grpc_port: int = Field(
        default=0,
        ge=0,
        le=65535,
        json_schema_extra=_env(
            "WEAVIATE_GRPC_PORT", "Weaviate gRPC port (default 50051; cloud URLs need none)"
        ),
    )
    weaviate_distance: Literal["cosine", "dot", "l2-squared"] = Field(
        default="cosine",
        json_schema_extra=_env(
            "WEAVIATE_DISTANCE", "HNSW distance metric for new Weaviate collections"
        ),
    )
    weaviate_max_connections: int = Field(
        default=32,
        ge=4,
        le=2048,
        json_schema_extra=_env(
            "WEAVIATE_HNSW_MAX_CONNECTIONS", "HNSW max connections per node (new collections)"
        ),
    )
    weaviate_ef_construction: int = Field(
        default=128,
        ge=4,
        le=4096,
        json_schema_extra=_env(
            "WEAVIATE_HNSW_EF_CONSTRUCTION", "HNSW build-time candidate list size (new collections)"
        ),
    )
    weaviate_ef: int = Field(
        default=-1,
        ge=-1,
        le=4096,
        json_schema_extra=_env(
            "WEAVIATE_HNSW_EF", "HNSW query-time candidate list size; -1 lets Weaviate pick"
        ),
    )
    embedding_local_precision: Literal["fp32", "int8"] = Field(
        default="fp32",
        json_schema_extra=_env(
            "KNOWLEDGE_LOCAL_EMBEDDING_PRECISION",
            "all-MiniLM-L6-v2 on ONNX Runtime: fp32 (exact) or int8 documents (faster, cosine ~0.99)",
        ),
    )
    knowledge_model_cache_dir: str = Field(
        default="",
        json_schema_extra=_env(
            "KNOWLEDGE_MODEL_CACHE_DIR",
            "Where the local model's ONNX graph is built once and kept (default: models/ in the data dir)",
        ),
    )
    knowledge_ann: bool = Field(
        default=True,
        json_schema_extra=_env(
            "KNOWLEDGE_ANN",
            "Approximate nearest-neighbour index (faiss HNSW) beside the embedded store (true/false)",
        ),
    )
    knowledge_ann_min_objects: int = Field(
        default=20000,
        ge=100,
        json_schema_extra=_env(
            "KNOWLEDGE_ANN_MIN_OBJECTS",
            "Collections smaller than this are searched exactly (numpy), without an ANN index",
        ),
    )
    knowledge_ann_ef_search: int = Field(
        default=256,
        ge=16,
        le=4096,
        json_schema_extra=_env(
            "KNOWLEDGE_ANN_EF_SEARCH", "HNSW query-time candidate list size of the embedded index"
        ),
    )

    # --- transcripts (issue 5): add fields here ---
    transcript_languages: list[str] = Field(
        default_factory=lambda: ["en"],
        json_schema_extra=_env(
            "TRANSCRIPT_LANGUAGES",
            "Comma list of preferred transcript languages, best first (default en)",
        ),
    )
    transcript_proxy_url: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=_env(
            "TRANSCRIPT_PROXY_URL",
            "HTTP(S) proxy for YouTube transcript requests, e.g. http://user:pass@host:port",
            secret=True,
        ),
    )
    webshare_proxy_username: str = Field(
        default="",
        json_schema_extra=_env(
            "WEBSHARE_PROXY_USERNAME", "Webshare rotating residential proxy username"
        ),
    )
    webshare_proxy_password: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=_env(
            "WEBSHARE_PROXY_PASSWORD", "Webshare rotating residential proxy password", secret=True
        ),
    )
    webshare_proxy_locations: list[str] = Field(
        default_factory=list,
        json_schema_extra=_env(
            "WEBSHARE_PROXY_LOCATIONS", "Comma list of country codes the Webshare IPs come from"
        ),
    )
    transcript_endpoint: str = Field(
        default="",
        json_schema_extra=_env(
            "YOUTUBE_TRANSCRIPT_ENDPOINT",
            "Fetch transcripts from this origin instead of https://www.youtube.com (mirrors, stubs)",
        ),
    )
    transcript_fetch_concurrency: int = Field(
        default=2,
        ge=1,
        le=8,
        json_schema_extra=_env(
            "TRANSCRIPT_FETCH_CONCURRENCY", "Transcripts fetched from YouTube at a time (1-8)"
        ),
    )
    transcript_chunk_tokens: int = Field(
        default=200,
        ge=64,
        le=254,
        json_schema_extra=_env(
            "TRANSCRIPT_CHUNK_TOKENS",
            "Target chunk size in the embedding model's word pieces, title included (64-254)",
        ),
    )
    transcript_chunk_overlap: int = Field(
        default=40,
        ge=0,
        le=120,
        json_schema_extra=_env(
            "TRANSCRIPT_CHUNK_OVERLAP", "Word pieces of whole cues repeated between chunks (0-120)"
        ),
    )

    # --- local files ---
    file_roots: list[str] = Field(
        default_factory=lambda: [str(Path.home())],
        json_schema_extra=_env(
            "VIDEO_RESEARCH_FILE_ROOTS",
            "Comma list of directories the local-file tools may read (default: home)",
        ),
    )
    url_allowlist: list[str] = Field(
        default_factory=list,
        json_schema_extra=_env(
            "VIDEO_RESEARCH_URL_ALLOWLIST",
            "Comma list of hosts (*.corp.example) and address ranges (10.0.0.0/8) that URLs may "
            "name although they are private (local deployments)",
        ),
    )
    url_resolve_timeout_seconds: float = Field(
        default=3.0,
        gt=0,
        le=60,
        json_schema_extra=_env(
            "VIDEO_RESEARCH_URL_RESOLVE_TIMEOUT",
            "Longest wait, in seconds, for the name lookup of a URL's host",
        ),
    )

    @field_validator("url_allowlist", mode="before")
    @classmethod
    def _split_allowlist(cls, value: Any) -> Any:
        return split_list(value)

    # --- documents (issue 6): add fields here ---
    documents_chunk_tokens: int = Field(
        default=200,
        ge=32,
        le=2048,
        json_schema_extra=_env(
            "DOCUMENTS_CHUNK_TOKENS",
            "Most tokens per document chunk, heading path included (local model: at most 254 are used)",
        ),
    )
    documents_max_file_mb: float = Field(
        default=100.0,
        gt=0,
        json_schema_extra=_env(
            "DOCUMENTS_MAX_FILE_MB",
            "Largest file document_ingest reads, in MB (larger ones fail per file)",
        ),
    )
    documents_max_unpacked_mb: float = Field(
        default=200.0,
        gt=0,
        json_schema_extra=_env(
            "DOCUMENTS_MAX_UNPACKED_MB",
            "Most a DOCX/PPTX (a ZIP archive) may unpack to, in MB, checked before extraction "
            "(larger ones fail per file: zip bombs)",
        ),
    )
    documents_max_compression_ratio: float = Field(
        default=100.0,
        gt=1,
        json_schema_extra=_env(
            "DOCUMENTS_MAX_COMPRESSION_RATIO",
            "Highest unpacked/packed size ratio of a DOCX/PPTX and of any of its parts over "
            "1 MB (Office XML packs about 10x; zip bombs 1000x)",
        ),
    )

    # --- catalog, queue, roles, HTTP auth (issue 7): add fields here ---
    catalog_db_path: str = Field(
        default="",
        json_schema_extra=_env(
            "VIDEO_RESEARCH_CATALOG_DB",
            "Catalog database file: videos, playlists, marathons, queue, sessions, audit "
            "(default: catalog.db in the data dir)",
        ),
    )
    nats_subject_prefix: str = Field(
        default="kryten",
        pattern=r"^[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*$",
        json_schema_extra=_env(
            "NATS_SUBJECT_PREFIX", "First tokens of the queue command subject (default kryten)"
        ),
    )
    queue_channel: str = Field(
        default="default",
        pattern=r"^[A-Za-z0-9_\-]{1,64}$",
        json_schema_extra=_env(
            "VIDEO_RESEARCH_QUEUE_CHANNEL",
            "Which channel's queue this server manages (KV key and subject token; default 'default')",
        ),
    )
    nats_queue_bucket: str = Field(
        default="video_research_queue",
        pattern=r"^[A-Za-z0-9_\-]{1,64}$",
        json_schema_extra=_env("NATS_QUEUE_BUCKET", "JetStream KV bucket holding the queue"),
    )
    nats_sessions_bucket: str = Field(
        default="video_research_sessions",
        pattern=r"^[A-Za-z0-9_\-]{1,64}$",
        json_schema_extra=_env(
            "NATS_SESSIONS_BUCKET", "JetStream KV bucket holding the session registry"
        ),
    )
    nats_timeout_seconds: float = Field(
        default=5.0,
        gt=0,
        le=120,
        json_schema_extra=_env(
            "NATS_TIMEOUT_SECONDS", "Connect and per-operation timeout for NATS calls"
        ),
    )
    audit_log_path: str = Field(
        default="",
        json_schema_extra=_env(
            "VIDEO_RESEARCH_AUDIT_LOG",
            "Append audit JSON lines to this file (default: JSON lines on stderr)",
        ),
    )
    http_tokens: SecretStr = Field(
        default=SecretStr(""),
        json_schema_extra=_env(
            "VIDEO_RESEARCH_HTTP_TOKENS",
            'Bearer tokens for --transport http/sse: JSON {"token": {"username": ..., "role": ...}}',
            secret=True,
        ),
    )

    @field_validator("http_tokens", mode="after")
    @classmethod
    def _check_tokens(cls, value: SecretStr) -> SecretStr:
        """Fail at start-up on a malformed token map, and mask every token in logs."""
        parse_http_tokens(value.get_secret_value())
        return value

    @property
    def catalog_db(self) -> str:
        return self.catalog_db_path or str(self.data_dir / "catalog.db")

    @property
    def token_identities(self) -> dict[str, tuple[str, Role]]:
        """bearer token -> (username, role), from VIDEO_RESEARCH_HTTP_TOKENS."""
        return parse_http_tokens(self.http_tokens.get_secret_value())

    # --- HTTP surface: toolsets, Host/Origin, timeouts, resumable streams, OAuth (issue 14) ---
    dynamic_toolsets: Literal["auto", "on", "off"] = Field(
        default="auto",
        json_schema_extra=_env(
            "VIDEO_RESEARCH_DYNAMIC_TOOLSETS",
            "List toolset_list/toolset_enable/toolset_disable so a session can turn toolsets on "
            "(auto: with the default profile only)",
        ),
    )
    http_allowed_hosts: list[str] = Field(
        default_factory=list,
        json_schema_extra=_env(
            "VIDEO_RESEARCH_HTTP_ALLOWED_HOSTS",
            "Comma list of Host header values the HTTP server answers besides loopback "
            "(e.g. mcp.example.com, 10.0.0.5:8089; host:* for any port)",
        ),
    )
    http_allowed_origins: list[str] = Field(
        default_factory=list,
        json_schema_extra=_env(
            "VIDEO_RESEARCH_HTTP_ALLOWED_ORIGINS",
            "Comma list of browser Origins allowed besides loopback (e.g. https://app.example.com)",
        ),
    )
    http_allow_unauthenticated: bool = Field(
        default=False,
        json_schema_extra=_env(
            "VIDEO_RESEARCH_HTTP_ALLOW_UNAUTHENTICATED",
            "Serve HTTP/SSE on a non-loopback address without tokens or OAuth (every caller "
            "is the local user); refused unless set",
        ),
    )
    http_header_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        le=300,
        json_schema_extra=_env(
            "VIDEO_RESEARCH_HTTP_HEADER_TIMEOUT",
            "Seconds a connection gets to send a complete request head before it is closed",
        ),
    )
    http_body_timeout_seconds: float = Field(
        default=30.0,
        gt=0,
        le=600,
        json_schema_extra=_env(
            "VIDEO_RESEARCH_HTTP_BODY_TIMEOUT",
            "Seconds between two pieces of a request body before the request is dropped",
        ),
    )
    http_keepalive_seconds: int = Field(
        default=5,
        ge=1,
        le=300,
        json_schema_extra=_env(
            "VIDEO_RESEARCH_HTTP_KEEPALIVE", "Seconds an idle keep-alive connection stays open"
        ),
    )
    http_event_store_max_events: int = Field(
        default=10_000,
        ge=0,
        le=10_000_000,
        json_schema_extra=_env(
            "VIDEO_RESEARCH_HTTP_EVENT_STORE_MAX_EVENTS",
            "Streamable-HTTP events kept for clients that reconnect with Last-Event-ID "
            "(http_events.db in the data dir; 0 switches resumption off)",
        ),
    )
    http_retry_ms: int = Field(
        default=2000,
        ge=100,
        le=600_000,
        json_schema_extra=_env(
            "VIDEO_RESEARCH_HTTP_RETRY_MS",
            "The SSE retry field: how long a client waits before reconnecting a dropped stream",
        ),
    )
    oauth_issuer: str = Field(
        default="",
        json_schema_extra=_env(
            "VIDEO_RESEARCH_OAUTH_ISSUER",
            "OAuth 2.1 authorization server whose JWT access tokens HTTP/SSE accept "
            "(discovery + JWKS; empty: OAuth off)",
        ),
    )
    oauth_resource: str = Field(
        default="",
        json_schema_extra=_env(
            "VIDEO_RESEARCH_OAUTH_RESOURCE",
            "This server's resource URL, the audience tokens must carry "
            "(default http://<host>:<port>/mcp, or /sse for --transport sse)",
        ),
    )
    oauth_scopes: str = Field(
        default='{"video-research:viewer": "viewer", "video-research:blessed": "blessed", '
        '"video-research:admin": "admin"}',
        json_schema_extra=_env(
            "VIDEO_RESEARCH_OAUTH_SCOPES",
            'JSON {"scope": "role"}: the role a token\'s scopes grant (the highest one wins)',
        ),
    )
    oauth_username_claim: str = Field(
        default="sub",
        min_length=1,
        json_schema_extra=_env(
            "VIDEO_RESEARCH_OAUTH_USERNAME_CLAIM",
            "The access-token claim that names the caller (audit log, roles)",
        ),
    )

    @field_validator("http_allowed_hosts", "http_allowed_origins", mode="before")
    @classmethod
    def _split_hosts(cls, value: Any) -> Any:
        return split_list(value)

    @field_validator("dynamic_toolsets", mode="before")
    @classmethod
    def _dynamic_words(cls, value: Any) -> Any:
        words = {"true": "on", "1": "on", "yes": "on", "false": "off", "0": "off", "no": "off"}
        return words.get(str(value).strip().lower(), value) if isinstance(value, str) else value

    @field_validator("oauth_scopes", mode="after")
    @classmethod
    def _check_scopes(cls, value: str) -> str:
        parse_oauth_scopes(value)
        return value

    @field_validator("oauth_issuer", "oauth_resource", mode="after")
    @classmethod
    def _check_url(cls, value: str) -> str:
        if value and not value.startswith(("https://", "http://")):
            raise ValueError("must be an http(s) URL")
        return value

    @property
    def scope_roles(self) -> dict[str, Role]:
        """OAuth scope -> role, from VIDEO_RESEARCH_OAUTH_SCOPES."""
        return parse_oauth_scopes(self.oauth_scopes)

    @property
    def http_event_db(self) -> Path:
        return self.data_dir / "http_events.db"

    # --- server ---
    data_dir: Path = Field(
        default_factory=_default_data_dir,
        json_schema_extra=_env("VIDEO_RESEARCH_DATA_DIR", "Where SQLite databases live"),
    )
    toolsets: list[str] = Field(
        default_factory=lambda: ["default"],
        json_schema_extra=_env(
            "VIDEO_RESEARCH_TOOLSETS",
            "Comma list of tool groups to expose: default (the default profile), all, or toolsets",
        ),
    )
    local_role: Role = Field(
        default="admin",
        json_schema_extra=_env(
            "VIDEO_RESEARCH_LOCAL_ROLE",
            "Role of the local stdio user when no session registry is set",
        ),
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO",
        json_schema_extra=_env("VIDEO_RESEARCH_LOG_LEVEL", "DEBUG | INFO | WARNING | ERROR"),
    )
    log_format: Literal["human", "json"] = Field(
        default="human",
        json_schema_extra=_env("VIDEO_RESEARCH_LOG_FORMAT", "human | json (stderr)"),
    )

    @field_validator("toolsets", mode="before")
    @classmethod
    def _split_toolsets(cls, value: Any) -> Any:
        value = split_list(value)
        if isinstance(value, list):
            value = [str(v).strip().lower() for v in value if str(v).strip()]
            return value or ["default"]
        return value

    @field_validator(
        "file_roots", "transcript_languages", "webshare_proxy_locations", mode="before"
    )
    @classmethod
    def _split_roots(cls, value: Any) -> Any:
        return split_list(value)

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @field_validator("cache_dir", "data_dir", mode="after")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser()

    @field_validator("embedding_dimensions", mode="after")
    @classmethod
    def _gemini_dimensions(cls, value: int, info: ValidationInfo) -> int:
        if info.data.get("embedding_provider") == "gemini" and value not in (0, *GEMINI_DIMENSIONS):
            raise ValueError(
                f"gemini-embedding vectors come in {', '.join(map(str, GEMINI_DIMENSIONS))} dimensions"
            )
        return value

    # --- derived values ---
    @property
    def weaviate_enabled(self) -> bool:
        return bool(self.weaviate_url)

    @property
    def effective_youtube_api_key(self) -> str:
        return self.youtube_api_key.get_secret_value() or self.gemini_api_key.get_secret_value()

    @property
    def session_db(self) -> str:
        """The session database path, ':memory:' when persistence is switched off."""
        return self.session_db_path or str(self.data_dir / "sessions.db")

    @property
    def deep_research_db(self) -> str:
        """The Deep Research task database, ':memory:' when persistence is switched off."""
        return self.deep_research_db_path or str(self.data_dir / "deep_research.db")

    @property
    def knowledge_db(self) -> Path:
        """The embedded knowledge store file (used when WEAVIATE_URL is not set)."""
        return (
            Path(self.knowledge_db_path).expanduser()
            if self.knowledge_db_path
            else self.data_dir / "knowledge.db"
        )

    def public_dict(self) -> dict[str, Any]:
        """Every setting, with secrets replaced by whether they are set."""
        out: dict[str, Any] = {}
        for name, _field in type(self).model_fields.items():
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                out[f"{name}_set"] = bool(value.get_secret_value())
            elif isinstance(value, Path):
                out[name] = str(value)
            else:
                out[name] = value
        return out

    @property
    def sources(self) -> dict[str, str]:
        """field name -> where its value came from: env, file <path>, .env <path>, runtime
        (infra_configure) or default."""
        return {name: self._sources.get(name, "default") for name in type(self).model_fields}

    @property
    def notes(self) -> list[str]:
        """What loading noticed and worked around (e.g. an unresolved ${VAR} placeholder)."""
        return list(self._notes)


def env_names() -> dict[str, str]:
    """field name -> environment variable name, for every setting."""
    return dict(_env_names())


@functools.cache
def _env_names() -> tuple[tuple[str, str], ...]:
    return tuple(
        (name, field.json_schema_extra["env"])  # type: ignore[index]
        for name, field in Settings.model_fields.items()
    )


def secret_fields() -> set[str]:
    return set(_secret_fields())


@functools.cache
def _secret_fields() -> frozenset[str]:
    return frozenset(
        name
        for name, field in Settings.model_fields.items()
        if field.json_schema_extra.get("secret")  # type: ignore[union-attr]
    )


# ----------------------------------------------------------------------------- sources

_PLACEHOLDER = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where `.env` is looked for: VIDEO_RESEARCH_CONFIG_DIR, else the user config dir."""
    environ = os.environ if environ is None else environ
    chosen = (environ.get("VIDEO_RESEARCH_CONFIG_DIR") or "").strip()
    if chosen and not _PLACEHOLDER.search(chosen):
        return Path(chosen).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME, appauthor=False))


@dataclass
class _Load:
    """One loading of the settings: its inputs and what it recorded."""

    environ: Mapping[str, str]
    origin: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def sources(self, settings_cls: type[BaseSettings]) -> list[PydanticBaseSettingsSource]:
        found: list[PydanticBaseSettingsSource] = [
            _VariablesSource(settings_cls, self, self.environ, "env")
        ]
        config_path = (self.environ.get("VIDEO_RESEARCH_CONFIG") or "").strip()
        if _PLACEHOLDER.search(config_path):
            self.notes.append(
                "VIDEO_RESEARCH_CONFIG [env] holds an unresolved placeholder; no JSON file read."
            )
            config_path = ""
        if config_path:
            found.append(
                _VariablesSource(
                    settings_cls,
                    self,
                    _read_config_file(config_path),
                    f"file {config_path}",
                    by_field_name=True,
                )
            )
        dotenv = config_dir(self.environ) / ".env"
        if dotenv.is_file():
            from pydantic_settings import DotEnvSettingsSource

            values = DotEnvSettingsSource(
                settings_cls, env_file=dotenv, case_sensitive=True
            ).env_vars
            found.append(_VariablesSource(settings_cls, self, values, f".env {dotenv}"))
        return found


class _VariablesSource(PydanticBaseSettingsSource):
    """Values looked up by each field's variable name (and, for the JSON file, its field
    name). Empty values and unresolved ${VAR} placeholders are skipped, so the next source
    applies. Strings are passed on raw: the model's validators split comma lists."""

    def __init__(
        self,
        settings_cls: type[BaseSettings],
        load: _Load,
        values: Mapping[str, Any],
        label: str,
        *,
        by_field_name: bool = False,
    ) -> None:
        super().__init__(settings_cls)
        self.load = load
        self.values = values
        self.label = label
        self.by_field_name = by_field_name

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        env = field.json_schema_extra["env"]  # type: ignore[index]
        value = self.values.get(env)
        if value is None and self.by_field_name:
            value = self.values.get(field_name)
        return value, field_name, False

    def __call__(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name, info in self.settings_cls.model_fields.items():
            value, key, _ = self.get_field_value(info, name)
            if value is None:
                continue
            if isinstance(value, str):
                value = value.strip()
                if value == "":
                    continue
                if _PLACEHOLDER.search(value):
                    env = info.json_schema_extra["env"]  # type: ignore[index]
                    self.load.notes.append(
                        f"{env} [{self.label}] holds an unresolved placeholder "
                        f"({_PLACEHOLDER.search(value).group(0)}); treated as unset. "  # type: ignore[union-attr]
                        "The client config passed it unexpanded: give the value itself."
                    )
                    continue
            data[key] = value
            self.load.origin.setdefault(name, self.label)
        return data


def _read_config_file(path: str) -> dict[str, Any]:
    file = Path(path).expanduser()
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"VIDEO_RESEARCH_CONFIG points to {file}, which does not exist."
        ) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"VIDEO_RESEARCH_CONFIG file {file} is not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"VIDEO_RESEARCH_CONFIG file {file} must hold a JSON object of settings.")
    known_env = set(env_names().values())
    unknown = [key for key in raw if key not in Settings.model_fields and key not in known_env]
    if unknown:
        known = ", ".join(sorted(Settings.model_fields))
        raise ConfigError(
            f"Unknown setting(s) {', '.join(sorted(unknown))} in {file}. Known settings: {known}."
        )
    return raw


def _explain(exc: ValidationError, sources: Mapping[str, str]) -> str:
    lines = ["Invalid configuration:"]
    secrets = secret_fields()
    names = env_names()
    for err in exc.errors():
        field_name = str(err["loc"][0]) if err["loc"] else "?"
        where = sources.get(field_name, "default")
        name = names.get(field_name, field_name)
        shown = "(value hidden)" if field_name in secrets else f"(got {err.get('input')!r})"
        lines.append(f"  {name} [{where}]: {err['msg']} {shown}")
    return "\n".join(lines)


_LOADING: contextvars.ContextVar[_Load | None] = contextvars.ContextVar(
    "video_research_config_load", default=None
)


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Build Settings from the environment, the JSON file and `.env`; ConfigError explains
    any problem (naming the variable and the source it came from)."""
    load = _Load(os.environ if environ is None else environ)
    token = _LOADING.set(load)
    try:
        settings = Settings()
    except ValidationError as exc:
        raise ConfigError(_explain(exc, load.origin)) from None
    finally:
        _LOADING.reset(token)
    settings._sources = dict(load.origin)
    settings._notes = list(load.notes)
    _register_secrets(settings)
    return settings


def _register_secrets(settings: Settings) -> None:
    for name in secret_fields():
        register_secret(getattr(settings, name).get_secret_value())


_config: Settings | None = None
_config_lock = threading.Lock()


def get_config() -> Settings:
    """The live settings of this process, loaded from the environment on first use."""
    global _config
    if _config is None:
        with _config_lock:
            if _config is None:
                _config = load_settings()
    return _config


def set_config(settings: Settings) -> Settings:
    global _config
    _register_secrets(settings)
    _config = settings
    return settings


def update_config(**overrides: Any) -> Settings:
    """Patch the live settings (infra_configure); values are re-validated, None means keep."""
    current = get_config()
    data = {name: getattr(current, name) for name in Settings.model_fields}
    changes = {k: v for k, v in overrides.items() if v is not None}
    data.update(changes)
    try:
        updated = Settings.model_validate(data)  # no sources: exactly these values
    except ValidationError as exc:
        raise ConfigError(_explain(exc, {k: "runtime" for k in overrides})) from None
    updated._sources = {**current._sources, **{k: "runtime" for k in changes}}
    updated._notes = list(current._notes)
    return set_config(updated)


def reset_config() -> None:
    """Forget the loaded settings so the next get_config() re-reads the environment."""
    global _config
    _config = None

"""Server configuration: one pydantic model, read from a JSON file and the environment.

Resolution order, last wins: field defaults -> the JSON file named by
`VIDEO_RESEARCH_CONFIG` -> environment variables. An empty environment variable counts
as unset, so a client config can list a variable with "" without overriding the file.

The file's keys may be the field names (`default_model`) or the environment variable
names (`GEMINI_MODEL`). Unknown keys and bad values stop the server with a message that
names the variable; secret values are never echoed.

Names and defaults of the Gemini, cache, session, retry, YouTube and Weaviate settings
are those of seed 000 section 10.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)

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


class Settings(BaseModel):
    """Every setting the server reads. Field metadata names the environment variable."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False)

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
            "Embedding model (default: all-MiniLM-L6-v2 for local, gemini-embedding-001 for gemini)",
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
    transcript_file_budget_seconds: float = Field(
        default=120.0,
        ge=0.1,
        le=3600.0,
        json_schema_extra=_env(
            "TRANSCRIPT_FILE_BUDGET_SECONDS",
            "Wall time one transcript file may take to parse and chunk before it fails on its "
            "own (seconds; embedding not included)",
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

    # --- server ---
    data_dir: Path = Field(
        default_factory=_default_data_dir,
        json_schema_extra=_env("VIDEO_RESEARCH_DATA_DIR", "Where SQLite databases live"),
    )
    toolsets: list[str] = Field(
        default_factory=lambda: ["all"],
        json_schema_extra=_env(
            "VIDEO_RESEARCH_TOOLSETS", "Comma list of tool groups to expose (default all)"
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
            return value or ["all"]
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


def env_names() -> dict[str, str]:
    """field name -> environment variable name, for every setting."""
    return {name: field.json_schema_extra["env"] for name, field in Settings.model_fields.items()}  # type: ignore[index]


def secret_fields() -> set[str]:
    return {
        name
        for name, field in Settings.model_fields.items()
        if field.json_schema_extra.get("secret")
    }  # type: ignore[union-attr]


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
    by_env = {env: name for name, env in env_names().items()}
    data: dict[str, Any] = {}
    unknown = []
    for key, value in raw.items():
        if key in Settings.model_fields:
            data[key] = value
        elif key in by_env:
            data[by_env[key]] = value
        else:
            unknown.append(key)
    if unknown:
        known = ", ".join(sorted(Settings.model_fields))
        raise ConfigError(
            f"Unknown setting(s) {', '.join(sorted(unknown))} in {file}. Known settings: {known}."
        )
    return data


def _explain(exc: ValidationError, sources: dict[str, str]) -> str:
    lines = ["Invalid configuration:"]
    secrets = secret_fields()
    for err in exc.errors():
        field = str(err["loc"][0]) if err["loc"] else "?"
        where = sources.get(field, "default")
        name = env_names().get(field, field)
        shown = "(value hidden)" if field in secrets else f"(got {err.get('input')!r})"
        lines.append(f"  {name} [{where}]: {err['msg']} {shown}")
    return "\n".join(lines)


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Build Settings from the config file and environment; ConfigError explains any problem."""
    environ = os.environ if environ is None else environ
    data: dict[str, Any] = {}
    sources: dict[str, str] = {}
    config_path = environ.get("VIDEO_RESEARCH_CONFIG", "").strip()
    if config_path:
        for key, value in _read_config_file(config_path).items():
            data[key] = value
            sources[key] = f"file {config_path}"
    for field, env in env_names().items():
        value = environ.get(env)
        if value is not None and value.strip() != "":
            data[field] = value.strip()
            sources[field] = "env"
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_explain(exc, sources)) from None
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
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        updated = Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_explain(exc, {k: "runtime" for k in overrides})) from None
    return set_config(updated)


def reset_config() -> None:
    """Forget the loaded settings so the next get_config() re-reads the environment."""
    global _config
    _config = None

"""The server's surface: HTTP, toolsets, OAuth, data directory and logging."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from video_research.config.common import (
    Role,
    default_data_dir,
    env_field,
    parse_oauth_scopes,
    split_list,
)


class ServerSettings(BaseModel):
    """The server's surface: HTTP, toolsets, OAuth, data directory and logging."""

    # --- HTTP surface: toolsets, Host/Origin, timeouts, resumable streams, OAuth ---
    dynamic_toolsets: Literal["auto", "on", "off"] = Field(
        default="auto",
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_DYNAMIC_TOOLSETS",
            "List the meta-tools (tool_search/tool_describe/tool_call, which reach every tool, "
            "and toolset_list/toolset_enable/toolset_disable) (auto: with the default profile only)",
        ),
    )
    http_allowed_hosts: list[str] = Field(
        default_factory=list,
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_HTTP_ALLOWED_HOSTS",
            "Comma list of Host header values the HTTP server answers besides loopback "
            "(e.g. mcp.example.com, 10.0.0.5:8089; host:* for any port)",
        ),
    )
    http_allowed_origins: list[str] = Field(
        default_factory=list,
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_HTTP_ALLOWED_ORIGINS",
            "Comma list of browser Origins allowed besides loopback (e.g. https://app.example.com)",
        ),
    )
    http_allow_unauthenticated: bool = Field(
        default=False,
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_HTTP_ALLOW_UNAUTHENTICATED",
            "Serve HTTP/SSE on a non-loopback address without tokens or OAuth (every caller "
            "is the local user); refused unless set",
        ),
    )
    http_header_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        le=300,
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_HTTP_HEADER_TIMEOUT",
            "Seconds a connection gets to send a complete request head before it is closed",
        ),
    )
    http_body_timeout_seconds: float = Field(
        default=30.0,
        gt=0,
        le=600,
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_HTTP_BODY_TIMEOUT",
            "Seconds between two pieces of a request body before the request is dropped",
        ),
    )
    http_keepalive_seconds: int = Field(
        default=5,
        ge=1,
        le=300,
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_HTTP_KEEPALIVE", "Seconds an idle keep-alive connection stays open"
        ),
    )
    drain_seconds: float = Field(
        default=15.0,
        ge=0,
        le=600,
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_DRAIN_SECONDS",
            "On SIGTERM (http/sse): seconds in-flight calls get to finish before they are cancelled",
        ),
    )
    http_event_store_max_events: int = Field(
        default=10_000,
        ge=0,
        le=10_000_000,
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_HTTP_EVENT_STORE_MAX_EVENTS",
            "Streamable-HTTP events kept for clients that reconnect with Last-Event-ID "
            "(http_events.db in the data dir; 0 switches resumption off)",
        ),
    )
    http_retry_ms: int = Field(
        default=2000,
        ge=100,
        le=600_000,
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_HTTP_RETRY_MS",
            "The SSE retry field: how long a client waits before reconnecting a dropped stream",
        ),
    )
    oauth_issuer: str = Field(
        default="",
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_OAUTH_ISSUER",
            "OAuth 2.1 authorization server whose JWT access tokens HTTP/SSE accept "
            "(discovery + JWKS; empty: OAuth off)",
        ),
    )
    oauth_resource: str = Field(
        default="",
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_OAUTH_RESOURCE",
            "This server's resource URL, the audience tokens must carry "
            "(default http://<host>:<port>/mcp, or /sse for --transport sse)",
        ),
    )
    oauth_scopes: str = Field(
        default='{"video-research:viewer": "viewer", "video-research:blessed": "blessed", '
        '"video-research:admin": "admin"}',
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_OAUTH_SCOPES",
            'JSON {"scope": "role"}: the role a token\'s scopes grant (the highest one wins)',
        ),
    )
    oauth_username_claim: str = Field(
        default="sub",
        min_length=1,
        json_schema_extra=env_field(
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
        default_factory=default_data_dir,
        json_schema_extra=env_field("VIDEO_RESEARCH_DATA_DIR", "Where SQLite databases live"),
    )
    toolsets: list[str] = Field(
        default_factory=lambda: ["default"],
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_TOOLSETS",
            "Comma list of tool groups to expose: default (the default profile), all, or toolsets",
        ),
    )
    local_role: Role = Field(
        default="admin",
        json_schema_extra=env_field(
            "VIDEO_RESEARCH_LOCAL_ROLE",
            "Role of the local stdio user when no session registry is set",
        ),
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO",
        json_schema_extra=env_field("VIDEO_RESEARCH_LOG_LEVEL", "DEBUG | INFO | WARNING | ERROR"),
    )
    log_format: Literal["human", "json"] = Field(
        default="human",
        json_schema_extra=env_field("VIDEO_RESEARCH_LOG_FORMAT", "human | json (stderr)"),
    )

"""What every part of the configuration shares: roles, presets, the error, the `_env`
field marker and the parsers of the settings that hold JSON."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Literal

from video_research.support.redact import register_secret

ThinkingLevel = Literal["minimal", "low", "medium", "high"]
Role = Literal["viewer", "blessed", "admin"]
ROLE_RANK: dict[str, int] = {"viewer": 0, "blessed": 1, "admin": 2}
"""How much each role may do: a caller may use a tool whose required role ranks no higher.
Beside `Role` so the catalog's registry, the server's auth and the call context all rank
roles from the bottom layer instead of importing one another."""

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


def env_field(name: str, description: str, *, secret: bool = False) -> dict[str, Any]:
    """A field's `json_schema_extra`: the variable that sets it, its description and
    whether it is a secret. Every area's settings module declares its fields with it, and
    the loader, `doctor` and the docs read these back."""
    return {"env": name, "description": description, "secret": secret}


def default_cache_dir() -> Path:
    """Where the analysis cache lives unless GEMINI_CACHE_DIR says otherwise."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("video-research-mcp", appauthor=False))


def default_data_dir() -> Path:
    """Where the stores live unless VIDEO_RESEARCH_DATA_DIR says otherwise."""
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

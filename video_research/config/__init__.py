"""Server configuration: one pydantic-settings model, read from the environment, a JSON
file and an optional `.env` file.

Sources, highest priority first (pydantic-settings' `settings_customise_sources`):
1. environment variables;
2. the JSON file named by `VIDEO_RESEARCH_CONFIG` (keys are the field names,
   `default_model`, or the variable names, `GEMINI_MODEL`);
3. `.env` in the config directory (`VIDEO_RESEARCH_CONFIG_DIR`, default the user config
   dir, e.g. ~/.config/video-research/.env), in the usual dotenv syntax;
4. the field defaults.

Every field names its variable in `json_schema_extra` (`env_field("GEMINI_MODEL", ...)`), and
every source looks values up by that name. An empty value, or one holding an unresolved
`${VAR}` placeholder (a client config that was never expanded, e.g. `"${WEAVIATE_URL}"`),
counts as unset: the next source or the default applies, and `notes` says so. Unknown keys
in the JSON file and bad values stop the server with a message that names the variable
and its source; secret values are never echoed. `sources` records where each value came
from (`video-research doctor` prints it).
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
from typing import Any

from pydantic import (
    PrivateAttr,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from video_research.config.common import (
    APP_NAME,
    GEMINI_DIMENSIONS,
    PRESETS,
    ROLE_RANK,
    ConfigError,
    Role,
    ThinkingLevel,
    parse_http_tokens,
    parse_oauth_scopes,
    split_list,
)
from video_research.config.gemini import GeminiSettings
from video_research.config.media import MediaSettings
from video_research.config.server import ServerSettings
from video_research.config.speech import SpeechSettings
from video_research.config.stores import StoreSettings
from video_research.support.redact import register_secret

__all__ = [
    "APP_NAME",
    "GEMINI_DIMENSIONS",
    "PRESETS",
    "ROLE_RANK",
    "ConfigError",
    "Role",
    "Settings",
    "ThinkingLevel",
    "config_dir",
    "env_names",
    "get_config",
    "load_settings",
    "parse_http_tokens",
    "parse_oauth_scopes",
    "reset_config",
    "secret_fields",
    "set_config",
    "split_list",
    "with_overrides",
]


class Settings(
    ServerSettings, StoreSettings, MediaSettings, SpeechSettings, GeminiSettings, BaseSettings
):
    """Every setting the server reads. Field metadata names the environment variable.

    The fields are declared by area (config/gemini.py, config/media.py, config/speech.py,
    config/stores.py, config/server.py). Validators that span areas live here.
    """

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
    """Make `settings` the live settings of this process."""
    global _config
    _register_secrets(settings)
    _config = settings
    return settings


def with_overrides(current: Settings, **overrides: Any) -> Settings:
    """`current` with some values changed (infra_configure): re-validated, None means keep;
    the changed ones are marked as set at run time. `current` itself is left as it was."""
    data = {name: getattr(current, name) for name in Settings.model_fields}
    changes = {k: v for k, v in overrides.items() if v is not None}
    data.update(changes)
    try:
        updated = Settings.model_validate(data)  # no sources: exactly these values
    except ValidationError as exc:
        raise ConfigError(_explain(exc, {k: "runtime" for k in overrides})) from None
    updated._sources = {**current._sources, **{k: "runtime" for k in changes}}
    updated._notes = list(current._notes)
    _register_secrets(updated)
    return updated


def reset_config() -> None:
    """Forget the loaded settings so the next get_config() re-reads the environment."""
    global _config
    _config = None

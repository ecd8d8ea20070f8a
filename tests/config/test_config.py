"""Configuration: the names and defaults docs/configuration.md lists, the file option,
clear errors."""

from __future__ import annotations

import json

import pytest

from video_research import config
from video_research.config import ConfigError, load_settings


def test_documented_defaults(tmp_path):
    s = load_settings({})
    assert s.default_model == "gemini-3.1-pro-preview"
    assert s.flash_model == "gemini-3-flash-preview"
    assert s.default_thinking_level == "high"
    assert s.default_temperature == 1.0
    assert s.cache_ttl_days == 30
    assert s.max_sessions == 50
    assert s.session_timeout_hours == 2
    assert s.session_max_turns == 24
    assert s.retry_max_attempts == 3
    assert s.retry_base_delay == 1.0
    assert s.retry_max_delay == 60.0
    assert s.cache_dir.name == "video-research-mcp"
    assert s.weaviate_enabled is False
    assert s.toolsets == ["default"]
    assert s.local_role == "admin"


def test_documented_env_names():
    names = config.env_names()
    for env in [
        "GEMINI_API_KEY",
        "GEMINI_MODEL",
        "GEMINI_FLASH_MODEL",
        "GEMINI_THINKING_LEVEL",
        "GEMINI_TEMPERATURE",
        "GEMINI_CACHE_DIR",
        "GEMINI_CACHE_TTL_DAYS",
        "GEMINI_MAX_SESSIONS",
        "GEMINI_SESSION_TIMEOUT_HOURS",
        "GEMINI_SESSION_MAX_TURNS",
        "GEMINI_RETRY_MAX_ATTEMPTS",
        "GEMINI_RETRY_BASE_DELAY",
        "GEMINI_RETRY_MAX_DELAY",
        "YOUTUBE_API_KEY",
        "GEMINI_SESSION_DB",
        "WEAVIATE_URL",
        "WEAVIATE_API_KEY",
    ]:
        assert env in names.values(), env


def test_env_values_are_parsed():
    s = load_settings(
        {
            "GEMINI_MODEL": "m1",
            "GEMINI_TEMPERATURE": "0.3",
            "GEMINI_CACHE_TTL_DAYS": "7",
            "WEAVIATE_URL": "http://localhost:8080",
            "VIDEO_RESEARCH_TOOLSETS": "infra, video",
        }
    )
    assert (s.default_model, s.default_temperature, s.cache_ttl_days) == ("m1", 0.3, 7)
    assert s.weaviate_enabled
    assert s.toolsets == ["infra", "video"]


def test_youtube_key_falls_back_to_gemini_key():
    assert load_settings({"GEMINI_API_KEY": "g-key-1234"}).effective_youtube_api_key == "g-key-1234"
    s = load_settings({"GEMINI_API_KEY": "g-key-1234", "YOUTUBE_API_KEY": "y-key-1234"})
    assert s.effective_youtube_api_key == "y-key-1234"


def test_empty_env_counts_as_unset(tmp_path):
    file = tmp_path / "c.json"
    file.write_text(json.dumps({"GEMINI_MODEL": "from-file"}))
    s = load_settings({"VIDEO_RESEARCH_CONFIG": str(file), "GEMINI_MODEL": ""})
    assert s.default_model == "from-file"


def test_env_overrides_file_and_file_takes_both_key_styles(tmp_path):
    file = tmp_path / "c.json"
    file.write_text(
        json.dumps({"default_model": "file-model", "GEMINI_CACHE_TTL_DAYS": 9, "flash_model": "f"})
    )
    s = load_settings({"VIDEO_RESEARCH_CONFIG": str(file), "GEMINI_MODEL": "env-model"})
    assert s.default_model == "env-model"
    assert s.cache_ttl_days == 9
    assert s.flash_model == "f"


def test_unknown_file_key_is_named(tmp_path):
    file = tmp_path / "c.json"
    file.write_text(json.dumps({"gemini_modle": "typo"}))
    with pytest.raises(ConfigError, match="gemini_modle"):
        load_settings({"VIDEO_RESEARCH_CONFIG": str(file)})


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings({"VIDEO_RESEARCH_CONFIG": str(tmp_path / "nope.json")})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_settings({"VIDEO_RESEARCH_CONFIG": str(bad)})


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"GEMINI_CACHE_TTL_DAYS": "0"}, "GEMINI_CACHE_TTL_DAYS"),
        ({"GEMINI_THINKING_LEVEL": "extreme"}, "GEMINI_THINKING_LEVEL"),
        ({"GEMINI_TEMPERATURE": "hot"}, "GEMINI_TEMPERATURE"),
        ({"GEMINI_TEMPERATURE": "3"}, "GEMINI_TEMPERATURE"),
        ({"VIDEO_RESEARCH_LOCAL_ROLE": "root"}, "VIDEO_RESEARCH_LOCAL_ROLE"),
    ],
)
def test_invalid_values_name_the_variable(env, needle):
    with pytest.raises(ConfigError) as info:
        load_settings(env)
    assert needle in str(info.value)
    assert "[env]" in str(info.value)


def test_secret_values_are_never_echoed(tmp_path):
    file = tmp_path / "c.json"
    file.write_text(json.dumps({"GEMINI_API_KEY": {"oops": "AIza-not-a-string-secret"}}))
    with pytest.raises(ConfigError) as info:
        load_settings({"VIDEO_RESEARCH_CONFIG": str(file)})
    assert "AIza-not-a-string-secret" not in str(info.value)
    assert "value hidden" in str(info.value)


def test_public_dict_hides_secrets():
    s = load_settings({"GEMINI_API_KEY": "AIzaSyTOPSECRET000000000000000000000"})
    public = json.dumps(s.public_dict(), default=str)
    assert "TOPSECRET" not in public
    assert s.public_dict()["gemini_api_key_set"] is True


def test_overrides_are_revalidated_and_leave_the_original_alone():
    original = load_settings({})
    updated = config.with_overrides(original, default_temperature=0.5, default_model=None)
    assert updated.default_temperature == 0.5
    assert updated.default_model == "gemini-3.1-pro-preview"
    with pytest.raises(ConfigError):
        config.with_overrides(updated, default_temperature=9)
    assert original.default_temperature != 0.5


def test_unknown_toolset_is_a_clear_error():
    from video_research.tools import dispatch

    with pytest.raises(ConfigError, match="nosuchset"):
        dispatch.enabled_tools(load_settings({"VIDEO_RESEARCH_TOOLSETS": "infra,nosuchset"}))


# --- sources: pydantic-settings (environment, VIDEO_RESEARCH_CONFIG, .env), placeholders ---


def test_sources_are_recorded(tmp_path):
    file = tmp_path / "c.json"
    file.write_text(json.dumps({"GEMINI_FLASH_MODEL": "from-file"}))
    s = load_settings({"VIDEO_RESEARCH_CONFIG": str(file), "GEMINI_MODEL": "from-env"})
    assert s.sources["default_model"] == "env"
    assert s.sources["flash_model"] == f"file {file}"
    assert s.sources["cache_ttl_days"] == "default"
    assert s.notes == []


def test_dotenv_in_the_config_dir_is_the_lowest_source(tmp_path):
    config_dir = tmp_path / "conf"
    config_dir.mkdir()
    (config_dir / ".env").write_text(
        "# comment\n"
        "GEMINI_MODEL=dotenv-model\n"
        'export GEMINI_FLASH_MODEL="dotenv-flash"\n'
        "GEMINI_CACHE_TTL_DAYS=11\n"
        "GEMINI_API_KEY=AIzaSyDOTENV000000000000000000000000\n"
        "SOMETHING_ELSE=ignored\n"
    )
    file = tmp_path / "c.json"
    file.write_text(json.dumps({"flash_model": "file-flash"}))
    s = load_settings(
        {
            "VIDEO_RESEARCH_CONFIG_DIR": str(config_dir),
            "VIDEO_RESEARCH_CONFIG": str(file),
            "GEMINI_MODEL": "env-model",
        }
    )
    assert s.default_model == "env-model", "the environment beats .env"
    assert s.flash_model == "file-flash", "the JSON file beats .env"
    assert s.cache_ttl_days == 11 and s.sources["cache_ttl_days"] == f".env {config_dir / '.env'}"
    assert s.gemini_api_key.get_secret_value().startswith("AIzaSyDOTENV")


def test_dotenv_errors_name_the_variable_and_the_file(tmp_path):
    (tmp_path / ".env").write_text("GEMINI_CACHE_TTL_DAYS=zero\n")
    with pytest.raises(ConfigError) as info:
        load_settings({"VIDEO_RESEARCH_CONFIG_DIR": str(tmp_path)})
    assert "GEMINI_CACHE_TTL_DAYS [.env" in str(info.value)


@pytest.mark.parametrize(
    "placeholder", ["${WEAVIATE_URL}", "http://${WEAVIATE_HOST}:8080", " ${weaviate_url} "]
)
def test_unresolved_placeholders_count_as_unset(tmp_path, placeholder):
    s = load_settings({"WEAVIATE_URL": placeholder, "GEMINI_MODEL": "${GEMINI_MODEL}"})
    assert s.weaviate_url == "" and s.weaviate_enabled is False
    assert s.default_model == "gemini-3.1-pro-preview"
    assert s.sources["weaviate_url"] == "default"
    assert any("WEAVIATE_URL [env]" in note and "placeholder" in note for note in s.notes)


def test_a_placeholder_falls_through_to_the_next_source(tmp_path):
    file = tmp_path / "c.json"
    file.write_text(
        json.dumps({"GEMINI_MODEL": "from-file", "GEMINI_API_KEY": "${GEMINI_API_KEY}"})
    )
    s = load_settings({"VIDEO_RESEARCH_CONFIG": str(file), "GEMINI_MODEL": "${GEMINI_MODEL}"})
    assert s.default_model == "from-file"
    assert s.gemini_api_key.get_secret_value() == ""
    assert len(s.notes) == 2
    unresolved_file = load_settings({"VIDEO_RESEARCH_CONFIG": "${VIDEO_RESEARCH_CONFIG}"})
    assert "VIDEO_RESEARCH_CONFIG" in unresolved_file.notes[0]


def test_runtime_changes_are_a_source():
    loaded = load_settings({"GEMINI_MODEL": "m-env"})
    updated = config.with_overrides(loaded, default_temperature=0.2)
    assert loaded.sources["default_temperature"] == "default"  # left as it was
    assert updated.sources["default_temperature"] == "runtime"
    assert updated.sources["default_model"] == "env"


def test_doctor_names_each_source_and_the_notes(tmp_path):
    from video_research.cli import doctor_report

    (tmp_path / ".env").write_text("GEMINI_FLASH_MODEL=flash-from-dotenv\n")
    settings = load_settings(
        {
            "VIDEO_RESEARCH_CONFIG_DIR": str(tmp_path),
            "GEMINI_MODEL": "m",
            "WEAVIATE_URL": "${WEAVIATE_URL}",
        }
    )
    report = doctor_report(settings)
    assert report["sources"]["GEMINI_MODEL"] == "env"
    assert report["sources"]["GEMINI_FLASH_MODEL"].startswith(".env ")
    assert report["sources"]["GEMINI_CACHE_TTL_DAYS"] == "default"
    assert report["services"]["weaviate"].startswith("not configured")
    assert any("WEAVIATE_URL" in n for n in report["notes"])

"""The command line: tools, call (exit codes), doctor (never secret values), bad config."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import REPO_ROOT, run_cli

pytestmark = pytest.mark.slow

run = run_cli


def test_tools_lists_infra(server_env):
    proc = run(server_env, "tools")
    assert proc.returncode == 0, proc.stderr
    assert "infra_cache" in proc.stdout and "infra_configure" in proc.stdout
    for line in proc.stdout.splitlines():
        assert len(line.split(None, 1)) == 2, f"missing one-line description: {line!r}"
    rows = json.loads(run(server_env, "tools", "--json").stdout)
    assert {"infra_cache", "infra_configure"} <= {r["name"] for r in rows}


def test_call_prints_json_and_exit_codes(server_env):
    ok = run(server_env, "call", "infra_cache", "--json", '{"action": "stats"}')
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["action"] == "stats"

    bad = run(server_env, "call", "infra_cache", "--json", '{"action": "nuke"}')
    assert bad.returncode == 1
    assert json.loads(bad.stdout)["category"] == "invalid_input"

    unknown = run(server_env, "call", "no_tool")
    assert unknown.returncode == 2 and "unknown tool" in unknown.stderr.lower()

    broken = run(server_env, "call", "infra_cache", "--json", "{oops")
    assert broken.returncode == 2 and "not valid JSON" in broken.stderr


def test_doctor_reports_keys_without_values(server_env):
    secret = "AIzaSyDOCTORSECRET00000000000000000000"
    server_env["GEMINI_API_KEY"] = secret
    server_env["WEAVIATE_API_KEY"] = "weaviate-secret-value"
    proc = run(server_env, "doctor", "--verbose", "--stores-only")
    assert proc.returncode == 0, proc.stderr
    assert secret not in proc.stdout + proc.stderr
    assert "weaviate-secret-value" not in proc.stdout + proc.stderr
    assert "GEMINI_API_KEY" in proc.stdout and "set" in proc.stdout
    report = json.loads(run(server_env, "doctor", "--json", "--stores-only").stdout)
    assert report["keys_set"]["GEMINI_API_KEY"] is True
    assert report["keys_set"]["YOUTUBE_API_KEY"] is False
    assert report["paths"]["data_dir"] == server_env["VIDEO_RESEARCH_DATA_DIR"]
    assert report["services"]["weaviate"].startswith("not configured")


def test_bad_config_exits_2_with_a_clear_message(server_env):
    server_env["GEMINI_CACHE_TTL_DAYS"] = "-3"
    proc = run(server_env, "tools")
    assert proc.returncode == 2
    assert "GEMINI_CACHE_TTL_DAYS" in proc.stderr
    assert proc.stdout == ""


def test_serve_with_bad_toolset_exits_2(server_env):
    server_env["VIDEO_RESEARCH_TOOLSETS"] = "infra,bogus"
    proc = run(server_env, "serve")
    assert proc.returncode == 2
    assert "bogus" in proc.stderr


def test_doctor_shows_sources_and_placeholder_notes(server_env):
    server_env["GEMINI_MODEL"] = "model-from-env"
    server_env["WEAVIATE_URL"] = "${WEAVIATE_URL}"
    proc = run(server_env, "doctor", "--verbose", "--stores-only")
    assert proc.returncode == 0, proc.stderr
    line = next(row for row in proc.stdout.splitlines() if "model-from-env" in row)
    assert line.rstrip().endswith("[env]")
    assert "Note: WEAVIATE_URL [env] holds an unresolved placeholder" in proc.stdout
    assert "unresolved placeholder" in proc.stderr, "the warning is logged at start-up too"
    assert "not configured" in proc.stdout


def test_tools_survives_a_closed_stdout(server_env):
    """`video-research tools | head -1`: no traceback, no error exit, one line out."""
    proc = subprocess.run(
        f"{sys.executable} -m video_research tools --all | head -1",
        shell=True,
        capture_output=True,
        text=True,
        env={**server_env, "PYTHONUNBUFFERED": "0"},
        cwd=REPO_ROOT,
        timeout=60,
    )
    assert proc.returncode == 0
    assert len(proc.stdout.splitlines()) == 1
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr


def test_default_profile_in_the_cli(server_env):
    server_env.pop("VIDEO_RESEARCH_TOOLSETS")
    listed = {r["name"] for r in json.loads(run(server_env, "tools", "--json").stdout)}
    assert "video_analyze" in listed and "toolset_enable" in listed
    assert "infra_cache" not in listed
    every = json.loads(run(server_env, "tools", "--all", "--json").stdout)
    assert {r["name"]: r["listed"] for r in every}["infra_cache"] is False
    # `call` reaches any tool a session could turn on
    ok = run(server_env, "call", "infra_cache", "--json", '{"action": "stats"}')
    assert ok.returncode == 0, ok.stderr

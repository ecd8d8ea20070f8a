"""`video-research setup <client>` against temporary configuration files in each client's
documented format: merged (other servers and settings kept), backed up, `--print` changing
nothing, and the command written by how the server is installed (a checkout's venv, a pip
venv, `uv tool`, `uvx --from <wheel>`, the published package), checked by starting it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.installs import NETWORK, UV, UVX, _run, _uv_env
from video_research import client_launch, client_setup
from video_research.cli import main

# Each client's documented shape, with a server of the user's own and other settings.
CLAUDE_DESKTOP = {
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
        }
    },
    "globalShortcut": "Ctrl+Space",
}
CLAUDE_CODE = {
    "numStartups": 12,
    "mcpServers": {"github": {"type": "stdio", "command": "npx", "args": ["-y", "gh-mcp"]}},
    "projects": {"/work/app": {"allowedTools": [], "mcpServers": {}}},
}
CURSOR = {"mcpServers": {"sentry": {"url": "https://mcp.sentry.dev/mcp"}}}
VSCODE_JSONC = """{
  // Workspace MCP servers
  "inputs": [
    {"type": "promptString", "id": "gh-token", "description": "GitHub token", "password": true}
  ],
  "servers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/", /* remote */
    },
  },
}
"""

CASES = [
    ("claude-desktop", "user", json.dumps(CLAUDE_DESKTOP), ("mcpServers",), False),
    ("claude-code", "user", json.dumps(CLAUDE_CODE), ("mcpServers",), True),
    ("claude-code", "project", "", ("mcpServers",), True),
    ("cursor", "user", json.dumps(CURSOR), ("mcpServers",), False),
    ("vscode", "user", VSCODE_JSONC, ("servers",), True),
]


def _dig(document, keys):
    for key in keys:
        document = document[key]
    return document


@pytest.mark.parametrize(("client", "scope", "before", "keys", "typed"), CASES)
def test_setup_merges_into_the_clients_file_with_a_backup(
    client, scope, before, keys, typed, tmp_path, capsys
):
    config = tmp_path / "config.json"
    if before:
        config.write_text(before)
    roots = [tmp_path / "videos", tmp_path / "papers"]
    for root in roots:
        root.mkdir()
    argv = ["setup", client, "--scope", scope, "--config", str(config)]
    argv += ["--env", "GEMINI_API_KEY=sk-test", "--env", "VIDEO_RESEARCH_TOOLSETS=all"]
    argv += ["--file-root", str(roots[0]), "--file-root", str(roots[1])]
    assert main(argv) == 0
    assert "added 'video-research'" in capsys.readouterr().out

    after = json.loads(config.read_text())
    entry = _dig(after, keys)["video-research"]
    assert entry["env"] == {
        "GEMINI_API_KEY": "sk-test",
        "VIDEO_RESEARCH_TOOLSETS": "all",
        "VIDEO_RESEARCH_FILE_ROOTS": ",".join(str(r) for r in roots),
    }
    assert (entry.get("type") == "stdio") is typed
    # The command of the environment setup ran from.
    assert Path(entry["command"]).parent == Path(sys.executable).parent
    # Everything else is as it was.
    if before:
        original = json.loads(client_setup._strip_jsonc(before))
        without = json.loads(config.read_text())
        del _dig(without, keys)["video-research"]
        assert without == original
        (backup,) = tmp_path.glob("config.json.bak-*")
        assert backup.read_text() == before
    else:
        assert not list(tmp_path.glob("config.json.bak-*"))
    if not before:
        assert config.stat().st_mode & 0o777 == 0o600, "a new file may hold a key: private"

    # A second run replaces its own entry, still leaving the rest.
    assert main(["setup", client, "--scope", scope, "--config", str(config)]) == 0
    assert "replaced 'video-research'" in capsys.readouterr().out
    again = json.loads(config.read_text())
    assert "env" not in _dig(again, keys)["video-research"]
    assert len(_dig(again, keys)) == len(_dig(after, keys))


def test_claude_code_local_scope_goes_under_this_folder(tmp_path, monkeypatch, capsys):
    config = tmp_path / ".claude.json"
    config.write_text(json.dumps(CLAUDE_CODE))
    monkeypatch.chdir(tmp_path)
    assert main(["setup", "claude-code", "--scope", "local", "--config", str(config)]) == 0
    after = json.loads(config.read_text())
    assert "video-research" in after["projects"][str(tmp_path)]["mcpServers"]
    assert after["projects"]["/work/app"] == CLAUDE_CODE["projects"]["/work/app"]
    assert after["mcpServers"] == CLAUDE_CODE["mcpServers"]


def test_default_files_are_where_each_client_reads_them(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    home = Path.home()
    if sys.platform.startswith("linux"):
        assert client_setup.target("claude-desktop").path == (
            home / ".config" / "Claude" / "claude_desktop_config.json"
        )
        assert client_setup.target("vscode").path == home / ".config" / "Code" / "User" / "mcp.json"
    assert client_setup.target("claude-code").path == home / ".claude.json"
    assert client_setup.target("claude-code", "project").path == tmp_path / ".mcp.json"
    assert client_setup.target("cursor").path == home / ".cursor" / "mcp.json"
    assert client_setup.target("cursor", "project").path == tmp_path / ".cursor" / "mcp.json"
    assert client_setup.target("vscode", "project").path == tmp_path / ".vscode" / "mcp.json"


def test_print_shows_the_entry_and_changes_nothing(tmp_path, capsys):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps(CURSOR))
    assert main(["setup", "cursor", "--config", str(config), "--print", "--env", "A=1"]) == 0
    out = capsys.readouterr()
    shown = json.loads(out.out)
    assert shown["mcpServers"]["video-research"]["env"] == {"A": "1"}
    assert str(config) in out.err
    assert json.loads(config.read_text()) == CURSOR
    assert not list(tmp_path.glob("mcp.json.bak-*"))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--env", "NOEQUALS"], "NAME=VALUE"),
        (["--file-root", "/no/such/folder"], "not a folder"),
        (["--scope", "project"], "scopes user"),
    ],
)
def test_bad_arguments_are_usage_errors_that_change_nothing(argv, message, tmp_path, capsys):
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps(CLAUDE_DESKTOP))
    assert main(["setup", "claude-desktop", "--config", str(config), *argv]) == 2
    assert message in capsys.readouterr().err
    assert json.loads(config.read_text()) == CLAUDE_DESKTOP


def test_a_linked_file_is_written_through_the_link(tmp_path):
    real = tmp_path / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    real.write_text(json.dumps(CURSOR))
    link = tmp_path / "mcp.json"
    link.symlink_to(real)
    assert main(["setup", "cursor", "--config", str(link)]) == 0
    assert link.is_symlink()
    assert "video-research" in json.loads(real.read_text())["mcpServers"]


def test_a_file_that_is_not_json_is_left_alone(tmp_path, capsys):
    config = tmp_path / "claude_desktop_config.json"
    config.write_text('{"mcpServers": {')
    assert main(["setup", "claude-desktop", "--config", str(config)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert config.read_text() == '{"mcpServers": {'


def test_uv_cache_environments_are_told_from_others(tmp_path):
    cache = tmp_path / ".cache" / "uv"
    (cache / "archive-v0" / "abc123").mkdir(parents=True)
    (cache / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55")
    assert client_launch.in_uv_cache(cache / "archive-v0" / "abc123")
    assert not client_launch.in_uv_cache(tmp_path / "venv")
    command, args = client_setup.launch_command("uvx")
    assert Path(command).name == "uvx" and args == ["video-research", "serve"]


# ------------------------------------------------------------------ install modes
def test_from_the_checkout_it_writes_the_venvs_python_and_checks_it(tmp_path, capsys):
    """The checkout's editable install (PEP 610 `dir_info.editable`): its venv's Python
    with -m, started over stdio and its tools listed before the file is written."""
    config = tmp_path / "claude_desktop_config.json"
    argv = ["setup", "claude-desktop", "--config", str(config), "--check", "--env", "A=1"]
    assert main(argv) == 0
    assert "listed" in capsys.readouterr().out
    entry = json.loads(config.read_text())["mcpServers"]["video-research"]
    assert entry["command"] == sys.executable
    assert entry["args"] == ["-m", "video_research", "serve"]


def test_a_command_that_does_not_start_is_not_written(tmp_path, capsys):
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps(CLAUDE_DESKTOP))
    argv = ["setup", "claude-desktop", "--config", str(config), "--check"]
    assert main([*argv, "--env", "VIDEO_RESEARCH_TOOLSETS=no-such-set"]) == 2
    error = capsys.readouterr().err
    assert "did not start" in error and "Nothing was written" in error
    assert "no-such-set" in error, "the server's own words say why"
    assert json.loads(config.read_text()) == CLAUDE_DESKTOP
    assert not list(tmp_path.glob("*.bak-*"))


@pytest.mark.skipif(UVX is None, reason="uvx is not installed (make test installs uv)")
def test_the_unpublished_package_through_uvx_is_refused(tmp_path, monkeypatch, capsys):
    """The issue's case: `uvx video-research serve` while the package is on no index."""
    monkeypatch.setenv("UV_OFFLINE", "1")
    monkeypatch.setenv("UV_PYTHON", sys.executable)
    monkeypatch.setenv("PATH", f"{Path(UVX).parent}:{os.environ.get('PATH', '')}")
    config = tmp_path / "mcp.json"
    argv = ["setup", "cursor", "--config", str(config), "--check", "--launcher", "uvx"]
    assert main(argv) == 2
    assert "uvx video-research serve` did not start" in capsys.readouterr().err
    assert not config.exists()


def _client_env(home: Path) -> dict[str, str]:
    """A person's shell: a fresh HOME, uv on PATH and offline (from its cache)."""
    env = {k: v for k, v in _uv_env().items() if k.startswith(NETWORK) or k == "UV_CACHE_DIR"}
    home.mkdir()
    env.update(
        {
            "HOME": str(home),
            "PATH": f"{Path(UV).parent}:/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HF_HUB_OFFLINE": "1",
            "UV_OFFLINE": "1",
            "UV_PYTHON": sys.executable,
            "UV_PYTHON_DOWNLOADS": "never",
        }
    )
    return env


def _setup_checked(launcher: list[str | Path], env: dict[str, str], config: Path) -> dict:
    done = subprocess.run(
        [*map(str, launcher), "setup", "cursor", "--config", str(config), "--check"],
        env=env,
        cwd=env["HOME"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "the command started and listed" in done.stdout
    return json.loads(config.read_text())["mcpServers"]["video-research"]


@pytest.mark.parametrize("mode", ["venv", "uv-tool", "uvx-wheel", "uvx-registry"])
def test_each_install_writes_a_command_that_starts(mode, wheel, installed, tmp_path):
    """The wheel installed as people install it, `setup --check` run from that install,
    and the command it wrote for that install (checked by starting it)."""
    if mode.startswith("uvx") and UVX is None:
        pytest.skip("uvx is not installed (make test installs uv)")
    env = _client_env(tmp_path / "home")
    config = tmp_path / "mcp.json"
    if mode == "venv":  # pip install <wheel> into a venv of its own
        entry = _setup_checked([installed / "video-research"], env, config)
        assert entry == {"command": str(installed / "video-research"), "args": ["serve"]}
    elif mode == "uv-tool":
        env["UV_TOOL_DIR"], env["UV_TOOL_BIN_DIR"] = str(tmp_path / "tools"), str(tmp_path / "bin")
        _run(UV, "tool", "install", "--quiet", wheel, env=env)
        script = tmp_path / "bin" / "video-research"
        entry = _setup_checked([script], env, config)
        assert entry == {"command": str(script), "args": ["serve"]}
    elif mode == "uvx-wheel":  # the README's pre-release path
        entry = _setup_checked([UVX, "--from", wheel, "video-research"], env, config)
        assert Path(entry["command"]).name == "uvx"
        assert entry["args"] == ["--from", str(wheel), "video-research", "serve"]
    else:  # the published package: an index uv finds it on (here a find-links folder)
        links = tmp_path / "links"
        links.mkdir()
        shutil.copy2(wheel, links)
        env["UV_FIND_LINKS"] = str(links)
        entry = _setup_checked([UVX, "video-research"], env, config)
        assert Path(entry["command"]).name == "uvx"
        assert entry["args"] == ["video-research", "serve"]

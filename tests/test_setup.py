"""`video-research setup <client>` against temporary configuration files in each client's
documented format: merged (other servers and settings kept), backed up, `--print` changing
nothing, and the entry written starting this server over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers import mcp_client
from video_research import client_setup
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


def test_uvx_launcher_and_its_detection(tmp_path):
    command, args = client_setup.launch_command("uvx")
    assert Path(command).name == "uvx" and args == ["video-research", "serve"]
    cache_env = tmp_path / ".cache" / "uv" / "archive-v0" / "abc123"
    cache_env.mkdir(parents=True)
    assert client_setup._in_uv_cache(cache_env)
    assert not client_setup._in_uv_cache(tmp_path / "venv")


async def test_the_written_entry_starts_this_server(tmp_path, server_env):
    """What Claude Desktop would do with the file: spawn its command with its env."""
    config = tmp_path / "claude_desktop_config.json"
    assert main(["setup", "claude-desktop", "--config", str(config), "--env", "A=1"]) == 0
    entry = json.loads(config.read_text())["mcpServers"]["video-research"]
    env = {**server_env, **entry["env"]}
    async with mcp_client(env, command=entry["command"], args=entry["args"]) as session:
        tools = {tool.name for tool in (await session.list_tools()).tools}
    assert "infra_configure" in tools

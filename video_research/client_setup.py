"""`video-research setup <client>`: write this server into an MCP client's configuration.

Each client keeps its MCP servers in a JSON file of its own shape; this module knows
where each one keeps it and how an entry looks, so a user runs one command instead of
editing JSON by hand:

- Claude Desktop: `claude_desktop_config.json` (macOS `~/Library/Application Support/Claude`,
  Windows `%APPDATA%\\Claude`, Linux `~/.config/Claude`), `{"mcpServers": {name: entry}}`.
- Claude Code: user scope `~/.claude.json` (`mcpServers` at the top), local scope the same
  file under `projects[<this folder>]`, project scope `.mcp.json` in this folder; entries
  carry `"type": "stdio"`.
- Cursor: `~/.cursor/mcp.json` (user) or `.cursor/mcp.json` (project), `{"mcpServers": ...}`.
- VS Code: the user profile's `mcp.json` (`Code/User` beside settings.json) or
  `.vscode/mcp.json` (project), `{"servers": {name: {"type": "stdio", ...}}}`; the file may
  hold comments (JSONC), which are read but not kept (the backup keeps them).

The file is merged, never replaced: only the entry of this server's name is added or
replaced; other servers and other settings are kept as they were. The previous file is
copied to `<file>.bak-<UTC time>` first, and the new one is written to a temporary file
and renamed over it, so an interrupted write leaves the old file. `--print` shows the
entry and the file instead of writing.

The command written is the one that starts the package as it is installed now (a
checkout's venv, a pip venv, `uv tool install`, `uvx --from <wheel>`, the published
package through uvx): client_launch tells them apart. With `check`, that command is
started and its tools listed before anything is written.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from video_research import client_launch

SERVER_NAME = "video-research"
PACKAGE = "video-research"
CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode")
SCOPES = {
    "claude-desktop": ("user",),
    "claude-code": ("user", "local", "project"),
    "cursor": ("user", "project"),
    "vscode": ("user", "project"),
}
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class SetupError(Exception):
    """A setup that cannot be done as asked; the message says what to do instead."""


@dataclass(frozen=True)
class Target:
    """Where an entry goes: the file, and the keys leading to the servers object in it."""

    path: Path
    keys: tuple[str, ...]
    typed: bool
    """Whether the client's entries name their transport ("type": "stdio")."""


def _app_config_dir(app: str) -> Path:
    """A desktop app's per-user configuration folder on this platform."""
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / app
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / app
    return Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / app


def target(client: str, scope: str = "user", config: Path | None = None) -> Target:
    """The file and the place in it where `client` keeps its MCP servers for `scope`;
    `config` names another file of the same format (a profile, a test)."""
    if client not in CLIENTS:
        raise SetupError(f"Unknown client {client!r}: choose one of {', '.join(CLIENTS)}.")
    if scope not in SCOPES[client]:
        raise SetupError(f"{client} has the scopes {', '.join(SCOPES[client])}, not {scope!r}.")
    here, home = Path.cwd(), Path.home()
    if client == "claude-desktop":
        path = _app_config_dir("Claude") / "claude_desktop_config.json"
        return Target(config or path, ("mcpServers",), typed=False)
    if client == "claude-code":
        if scope == "project":
            return Target(config or here / ".mcp.json", ("mcpServers",), typed=True)
        keys = ("mcpServers",) if scope == "user" else ("projects", str(here), "mcpServers")
        return Target(config or home / ".claude.json", keys, typed=True)
    if client == "cursor":
        base = here if scope == "project" else home
        return Target(config or base / ".cursor" / "mcp.json", ("mcpServers",), typed=False)
    path = (
        here / ".vscode" / "mcp.json"
        if scope == "project"
        else _app_config_dir("Code") / "User" / "mcp.json"
    )
    return Target(config or path, ("servers",), typed=True)


def launch_command(launcher: str = "auto") -> tuple[str, list[str]]:
    """(command, args) that start this server as it is installed now (client_launch)."""
    try:
        chosen = client_launch.launch(launcher)
    except client_launch.LaunchError as exc:
        raise SetupError(str(exc)) from None
    return chosen.command, chosen.args


def server_entry(env: dict[str, str], typed: bool, launcher: str = "auto") -> dict[str, Any]:
    command, args = launch_command(launcher)
    entry: dict[str, Any] = {"type": "stdio"} if typed else {}
    entry.update({"command": command, "args": args})
    if env:
        entry["env"] = dict(env)
    return entry


def parse_env(pairs: list[str], file_roots: list[str]) -> dict[str, str]:
    """--env KEY=VALUE pairs and --file-root folders as the entry's environment."""
    env: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not _ENV_NAME.match(name):
            raise SetupError(f"--env takes NAME=VALUE (e.g. GEMINI_API_KEY=...), not {pair!r}.")
        env[name] = value
    if file_roots:
        roots = []
        for root in file_roots:
            path = Path(root).expanduser().resolve()
            if not path.is_dir():
                raise SetupError(f"--file-root {root!r} is not a folder.")
            if "," in str(path):
                raise SetupError(
                    f"--file-root {root!r}: a folder name with a comma cannot be listed."
                )
            roots.append(str(path))
        env["VIDEO_RESEARCH_FILE_ROOTS"] = ",".join(roots)
    return env


def _strip_jsonc(text: str) -> str:
    """JSON with comments and trailing commas (VS Code's JSONC) as plain JSON; strings kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i : end + 1])
            i = end + 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(char)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def read_config(path: Path, jsonc: bool) -> dict[str, Any]:
    """The client's configuration as a dict ({} when the file is missing or empty)."""
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        try:
            data = json.loads(_strip_jsonc(text)) if jsonc else None
        except json.JSONDecodeError:
            data = None
        if data is None:
            raise SetupError(
                f"{path} is not valid JSON ({exc.msg}, line {exc.lineno}); fix it or move it "
                "aside, then run setup again (nothing was changed)."
            ) from None
    if not isinstance(data, dict):
        raise SetupError(
            f"{path} holds a JSON {type(data).__name__}, not an object; nothing was changed."
        )
    return data


def merged(config: dict[str, Any], keys: tuple[str, ...], name: str, entry: dict) -> dict:
    """`config` with `entry` as server `name` under `keys`; everything else as it was."""
    node = config
    for key in keys:
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            raise SetupError(f"{'.'.join(keys)} in the configuration is not an object.")
        node = child
    node[name] = entry
    return config


@dataclass
class Outcome:
    path: Path
    action: str
    """"added", "replaced" or "printed"."""
    backup: Path | None
    document: dict[str, Any]
    tools: list[str] = field(default_factory=list)
    """The tools the command listed when it was checked (empty: not checked)."""


def setup(
    client: str,
    *,
    env: dict[str, str],
    scope: str = "user",
    config: Path | None = None,
    name: str = SERVER_NAME,
    launcher: str = "auto",
    write: bool = True,
    check: bool = False,
) -> Outcome:
    """Add (or replace) server `name` in `client`'s configuration; see the module doc.
    `check`: start the entry's command and list its tools first (SetupError if it fails)."""
    where = target(client, scope, config)
    entry = server_entry(env, where.typed, launcher)
    tools: list[str] = []
    if check:
        try:
            tools = client_launch.check(entry["command"], entry["args"], env)
        except client_launch.LaunchError as exc:
            raise SetupError(str(exc)) from None
    if not write:
        document: dict[str, Any] = {}
        merged(document, where.keys, name, entry)
        return Outcome(where.path, "printed", None, document, tools)
    current = read_config(where.path, jsonc=client == "vscode")
    servers: Any = current
    for key in where.keys:
        servers = servers.get(key, {}) if isinstance(servers, dict) else {}
    action = "replaced" if isinstance(servers, dict) and name in servers else "added"
    document = merged(current, where.keys, name, entry)
    backup = None
    where.path.parent.mkdir(parents=True, exist_ok=True)
    if where.path.exists():
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        backup = where.path.with_name(f"{where.path.name}.bak-{stamp}")
        shutil.copy2(where.path, backup)
    _write_atomically(where.path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return Outcome(where.path, action, backup, document, tools)


def _write_atomically(path: Path, text: str) -> None:
    """`text` into `path` through a temporary file renamed over it; the old file's mode kept
    (a new file is private to the user: it may hold an API key). A link (a dotfiles
    checkout) is written through, never replaced by a file."""
    path = path.resolve()
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise

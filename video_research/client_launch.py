"""How this server is installed now, the command that starts it, and a check that it does.

`video-research setup` writes a command into a client's configuration; the client runs it
later, from another working directory and with another PATH. The command that works
depends on how the package got here, and only this process can tell:

- checkout: an editable install (`pip install -e .`, `make install`); PEP 610's
  direct_url.json says `dir_info.editable`. The command is the checkout venv's Python with
  `-m video_research serve` (the console script of an editable install is as good, but the
  interpreter path is what a developer recognises and survives a `make clean` of scripts).
- uv tool: `uv tool install`, a venv of uv's tools folder with `uv-receipt.toml` in it. The
  command is the tool's own executable (the receipt names where uv linked it).
- uvx from a wheel: `uvx --from <file>.whl`, a throwaway environment in uv's cache whose
  direct_url.json names a `file://` archive. The command is `uvx --from <that wheel, by
  absolute path> video-research serve`: the package is not published, so a plain
  `uvx video-research` fails with "not found in the package registry".
- uvx from a registry: the same throwaway environment, no direct_url.json (a registry
  install has none). The command is `uvx video-research serve`.
- venv: anything else (pip, pipx, a system Python): the `video-research` console script
  beside the running Python, else that Python with `-m video_research serve`.

`check` starts a command as a client would (stdio, the MCP SDK's client), initializes and
lists the tools, so `setup --check` refuses to write a command that cannot start.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

PACKAGE = "video-research"
MODULE = "video_research"
CHECK_SECONDS = 120.0
"""How long `setup --check` waits for the command to list its tools (uvx may first build
its environment from uv's cache)."""


class LaunchError(Exception):
    """No command can be written, or the one written did not start; says what to do."""


@dataclass(frozen=True)
class Install:
    """How the running package is installed, as far as this process can see."""

    mode: str
    """"checkout", "uv-tool", "uvx-wheel", "uvx-registry" or "venv"."""
    prefix: Path
    wheel: Path | None = None
    """The wheel a `uvx --from` environment was made from (uvx-wheel only)."""
    tool_executable: Path | None = None
    """Where `uv tool install` linked the console script (uv-tool only)."""


@dataclass(frozen=True)
class Launch:
    command: str
    args: list[str] = field(default_factory=list)
    mode: str = "venv"


def _direct_url() -> dict[str, Any] | None:
    """PEP 610 direct_url.json of the installed distribution (None: from a registry)."""
    try:
        text = metadata.distribution(PACKAGE).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    if not text:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def _file_path(url: str) -> Path | None:
    parsed = urlparse(url)
    if parsed.scheme != "file":
        return None
    return Path(url2pathname(unquote(parsed.path)))


def in_uv_cache(prefix: Path) -> bool:
    """Whether `prefix` is an environment uv made in its cache for `uvx` (throwaway):
    a folder of uv's cache buckets (archive-v0, ...) under a cache root uv tagged."""
    resolved = prefix.resolve()
    for folder in (resolved, *resolved.parents):
        if folder.name.startswith(("archive-v", "environments-v", "builds-v")):
            root = folder.parent
            return (root / "CACHEDIR.TAG").is_file() or root.name == "uv"
    return False


def _tool_executable(prefix: Path) -> Path | None:
    """The console script `uv tool install` linked, as its receipt records it."""
    try:
        receipt = tomllib.loads((prefix / "uv-receipt.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    for entry in receipt.get("tool", {}).get("entrypoints", []):
        if isinstance(entry, dict) and entry.get("name") == PACKAGE and entry.get("install-path"):
            path = Path(entry["install-path"])
            if path.exists():
                return path
    return None


def detect(prefix: Path | None = None) -> Install:
    """How this process's package is installed (see the module doc)."""
    prefix = Path(prefix or sys.prefix)
    direct = _direct_url() or {}
    if (direct.get("dir_info") or {}).get("editable"):
        return Install("checkout", prefix)
    if (prefix / "uv-receipt.toml").is_file():
        return Install("uv-tool", prefix, tool_executable=_tool_executable(prefix))
    if in_uv_cache(prefix):
        wheel = _file_path(direct["url"]) if isinstance(direct.get("url"), str) else None
        if wheel is not None:
            return Install("uvx-wheel", prefix, wheel=wheel)
        return Install("uvx-registry", prefix)
    return Install("venv", prefix)


def _script(bin_dir: Path) -> Path | None:
    script = bin_dir / ("video-research.exe" if sys.platform == "win32" else PACKAGE)
    return script if script.exists() else None


def _uvx() -> str:
    """uvx by absolute path where it can be found: a client's PATH is often shorter than
    the shell's (Claude Desktop's lacks ~/.local/bin)."""
    return shutil.which("uvx") or "uvx"


def launch(launcher: str = "auto", install: Install | None = None) -> Launch:
    """The command that starts this server as it is installed now.

    launcher: auto (by the install, see the module doc), python (this environment's
    script or interpreter), uvx (`uvx video-research serve`: the published package).
    """
    if launcher not in ("auto", "python", "uvx"):
        raise LaunchError(f"Unknown launcher {launcher!r}: choose auto, python or uvx.")
    if launcher == "uvx":
        return Launch(_uvx(), [PACKAGE, "serve"], "uvx-registry")
    install = install or detect()
    if launcher == "auto" and install.mode == "uvx-wheel":
        wheel = install.wheel
        if wheel is None or not wheel.is_file():
            raise LaunchError(
                f"This runs from `uvx --from {wheel}`, and that wheel is gone, so no command "
                "can start it again. Run setup from `uvx --from <the wheel's path>` with the "
                "wheel where it will stay, or install it (`uv tool install <wheel>`)."
            )
        return Launch(_uvx(), ["--from", str(wheel.resolve()), PACKAGE, "serve"], install.mode)
    if launcher == "auto" and install.mode == "uvx-registry":
        return Launch(_uvx(), [PACKAGE, "serve"], install.mode)
    if install.mode == "uv-tool":
        script = install.tool_executable or _script(install.prefix / "bin")
        if script is not None:
            return Launch(str(script), ["serve"], install.mode)
    python = Path(sys.executable)
    if install.mode == "checkout":
        return Launch(str(python), ["-m", MODULE, "serve"], install.mode)
    script = _script(python.parent)
    if script is not None:
        return Launch(str(script), ["serve"], install.mode)
    return Launch(str(python), ["-m", MODULE, "serve"], install.mode)


async def _list_tools(command: str, args: list[str], env: dict[str, str], log: Any) -> list[str]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command, args=args, env=env, cwd=str(Path.home()))
    async with (
        stdio_client(params, errlog=log) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return [tool.name for tool in (await session.list_tools()).tools]


def check(
    command: str, args: list[str], env: dict[str, str], seconds: float = CHECK_SECONDS
) -> list[str]:
    """Start `command args` over stdio as a client would (this environment plus the
    entry's `env`, from the home folder), list its tools and stop it; the tool names.
    LaunchError with the server's last words when it does not start or answer."""
    import anyio

    async def run(log: Any) -> list[str]:
        with anyio.fail_after(seconds):
            return await _list_tools(command, args, {**os.environ, **env}, log)

    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
        try:
            tools = anyio.run(run, log)
        except Exception as exc:  # the server's exit, a timeout, a protocol error
            log.seek(0)
            said = log.read().strip().splitlines()[-8:]
            shown = " ".join([command, *args])
            reason = "it did not answer in time" if isinstance(exc, TimeoutError) else _why(exc)
            raise LaunchError(
                f"`{shown}` did not start as an MCP server ({reason})"
                + (":\n  " + "\n  ".join(said) if said else ".")
                + "\nNothing was written. Fix what it says, or choose another --launcher."
            ) from None
    if not tools:
        raise LaunchError(f"`{command}` started but listed no tools; nothing was written.")
    return tools


def _why(exc: BaseException) -> str:
    """The innermost message of an exception group (anyio's task groups wrap them)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
